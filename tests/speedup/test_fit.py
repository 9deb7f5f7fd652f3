"""The shipped fit against Pollux's data (skipped where ../shared/data is absent).

Thresholds: the shipped fit's median step-time errors are 3.6-6.5 % and its median
speedup errors 3.7-11.0 % (yolov3 worst: its lone-GPU timings are the noisiest, 0.45 s
at batch 6 but 0.33 s at batch 8). The traces hold single, unrepeated timings whose p90
errors are 13-21 % under any variant of the model tried, so that is the noise floor;
7.5 % and 12.5 % leave room for a refit, yet catch a profile fitted to the wrong data or
evaluated with a changed formula (one shared compute line, for instance, put cifar10's
speedup error at 13.5 %).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.speedup import fit, measured
from engine.speedup.measured import MEASURED_MODELS, load_profile

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"
if not DATA.exists():
    pytest.skip("../shared/data is absent", allow_module_level=True)
TRACES = DATA / "pollux" / "traces"

STEP_THRESHOLD = 7.5
SPEEDUP_THRESHOLD = 12.5


@pytest.fixture(scope="module")
def rows() -> dict:
    return {name: fit.load_measurements(TRACES / name) for name in MEASURED_MODELS}


@pytest.mark.parametrize("name", MEASURED_MODELS)
def test_shipped_fit_is_close_to_the_data(name: str, rows: dict) -> None:
    quality = fit.fit_quality(load_profile(name), rows[name])
    assert quality["step_median_abs_pct_error"] < STEP_THRESHOLD
    assert quality["speedup_median_abs_pct_error"] < SPEEDUP_THRESHOLD


@pytest.mark.parametrize("name", MEASURED_MODELS)
def test_shipped_quality_figures_are_current(name: str, rows: dict) -> None:
    shipped = measured._document()["profiles"][name]["fit"]
    quality = fit.fit_quality(load_profile(name), rows[name])
    assert quality["points"] == shipped["points"]
    for key in ("step_median_abs_pct_error", "speedup_median_abs_pct_error"):
        assert quality[key] == pytest.approx(shipped[key], abs=0.05)


def test_refit_reproduces_the_shipped_json(tmp_path: Path) -> None:
    out = tmp_path / "profiles.json"
    fit.main(["--data", str(TRACES), "--workloads", str(DATA / "pollux" / "workloads"),
              "--out", str(out)])
    refit = json.loads(out.read_text())
    shipped = measured._document()
    for key in ("source", "applications", "workload_batches"):
        assert refit[key] == shipped[key], key
    for name in MEASURED_MODELS:
        new = measured.MeasuredProfile(
            name, *(refit["profiles"][name]["params"][p] for p in measured.PARAM_NAMES))
        for gpus in (2, 4, 8, 16, 64):
            nodes = -(-gpus // 4)
            assert new.step_time(gpus, nodes, 16) == pytest.approx(
                load_profile(name).step_time(gpus, nodes, 16), rel=1e-3)
