"""The committed Philly quantiles are what the fitting script derives from the trace."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from engine.workload.philly_fit import OUTPUT, QUANTILES, fit


def test_committed_quantiles_match_the_trace(shared_data: Path) -> None:
    committed = json.loads(OUTPUT.read_text())
    derived = fit(shared_data / "philly.csv")
    assert committed["source"] == derived["source"]
    assert committed["jobs"] == derived["jobs"]
    assert committed["probabilities"] == derived["probabilities"]
    assert np.allclose(committed["gpu_time_s"], derived["gpu_time_s"], rtol=1e-12)


def test_committed_quantiles_are_a_cdf() -> None:
    committed = json.loads(OUTPUT.read_text())
    assert len(committed["probabilities"]) == len(committed["gpu_time_s"]) == QUANTILES
    assert committed["probabilities"][0] == 0.0 and committed["probabilities"][-1] == 1.0
    assert (np.diff(committed["gpu_time_s"]) >= 0).all()
    assert committed["gpu_time_s"][0] > 0
