"""Derive ``philly_sizes.json``, the Philly job-size distribution the generator samples.

Run ``python -m engine.workload.philly_fit`` beside ``../shared/data/philly.csv``. Only
the quantiles are committed: the trace itself stays in the shared data folder.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

SHARED_DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
PHILLY_TRACE = SHARED_DATA / "philly.csv"
OUTPUT = Path(__file__).with_name("philly_sizes.json")
QUANTILES = 101


def fit(trace: Path = PHILLY_TRACE) -> dict[str, object]:
    """Quantiles 0, 1, ..., 100 % of ``gpu_time`` over the jobs that used any."""
    gpu_time = pd.read_csv(trace, usecols=["gpu_time"])["gpu_time"]
    gpu_time = gpu_time[gpu_time > 0]
    probabilities = np.linspace(0.0, 1.0, QUANTILES)
    return {
        "source": "quantiles of gpu_time (= duration x num_gpus, seconds) over jobs with "
        "gpu_time > 0 in shared/data/philly.csv (Microsoft Philly trace 2017, as "
        "processed by Pollux); made by python -m engine.workload.philly_fit",
        "jobs": len(gpu_time),
        "probabilities": probabilities.round(2).tolist(),
        "gpu_time_s": np.quantile(gpu_time.to_numpy(), probabilities).tolist(),
    }


def main() -> None:
    entries = (f"  {json.dumps(key)}: {json.dumps(value)}" for key, value in fit().items())
    OUTPUT.write_text("{\n" + ",\n".join(entries) + "\n}\n")
    print(f"wrote {OUTPUT}")


if __name__ == "__main__":
    main()
