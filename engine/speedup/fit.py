"""Fit the measured speedup profiles to Pollux's traces and write ``pollux_profiles.json``.

Run from the repository root: ``python -m engine.speedup.fit [--data DIR] [--out PATH]``.

Per model, the step-time model of ``measured.MeasuredProfile`` (Pollux's, Qiao et al.
OSDI'21, plus a lone-GPU compute line and a GPUs-per-node term in cross-node sync) is
fitted by robust least squares on log step time over every row of ``placements.csv``
and ``scalability.csv``. Soft-L1 with a 5 % scale keeps the many noisy cross-node points
from dragging the fit, and log residuals weigh a 10 ms step like a 1 s one.

The reference local batch, at which speedup is evaluated, is the most-measured one
(ties to the largest): the largest batch measured on every placement and every scale,
so speedups up to 64 GPUs rest on measurements, not on extrapolation in batch size.
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy.optimize import least_squares

from engine.speedup.measured import (
    MEASURED_MODELS,
    PARAM_NAMES,
    PROFILES_PATH,
    MeasuredProfile,
    profile_params,
)

DEFAULT_DATA = Path(__file__).resolve().parents[2].parent / "shared/data/pollux/traces"
SOURCE = (
    "petuum/adaptdl osdi21-artifact simulator/traces, Apache-2.0, via ../shared/data/pollux/traces"
)
WORK_SOURCE = (
    "petuum/adaptdl osdi21-artifact simulator/applications.py: max_epochs per application, "
    "max_local_bsz = largest measured local batch (yolov3: 8), iterations = validation-<B>.csv "
    "iteration after epoch max_epochs; samples_per_epoch = progress after epoch 1 x smallest "
    "validated batch (informational: the dataset size)"
)
POLLUX_EPOCHS: dict[str, int] = {
    "bert": 2,
    "cifar10": 100,
    "ncf": 10,
    "imagenet": 90,
    "deepspeech2": 80,
    "yolov3": 50,
}
POLLUX_MAX_LOCAL_BSZ: dict[str, int] = {"yolov3": 8}
"""Pollux's overrides of the largest measured local batch (applications.py)."""

LOSS_SCALE = 0.05
GAMMA_STARTS = (1.01, 1.5, 3.0, 6.0)


def load_measurements(trace_dir: Path) -> pd.DataFrame:
    """Both CSVs of one model as ``gpus, nodes, local_bsz, step_time, sync_time`` rows."""
    placements = pd.read_csv(trace_dir / "placements.csv", dtype={"placement": str})
    digits = placements["placement"].map(lambda p: [int(d) for d in p])
    placements["gpus"] = digits.map(sum)
    placements["nodes"] = digits.map(len)
    scalability = pd.read_csv(trace_dir / "scalability.csv").rename(
        columns={"num_replicas": "gpus", "num_nodes": "nodes"}
    )
    columns = ["gpus", "nodes", "local_bsz", "step_time", "sync_time"]
    return pd.concat([placements[columns], scalability[columns]], ignore_index=True)


def reference_local_bsz(rows: pd.DataFrame) -> int:
    """The most-measured local batch, ties to the largest (see the module docstring)."""
    counts = rows["local_bsz"].value_counts()
    return int(counts[counts == counts.max()].index.max())


def _columns(rows: pd.DataFrame) -> tuple[np.ndarray, ...]:
    return tuple(rows[c].to_numpy(float) for c in ("gpus", "nodes", "local_bsz", "step_time"))


def _profile(name: str, local_bsz: float, params: Sequence[float]) -> MeasuredProfile:
    return MeasuredProfile(name, local_bsz, *(float(p) for p in params))


def fit_profile(name: str, rows: pd.DataFrame) -> MeasuredProfile:
    """Least-squares fit of the step-time model to ``rows``, best of a few gamma starts."""
    gpus, nodes, bsz, step = _columns(rows)
    local_bsz = reference_local_bsz(rows)
    log_step = np.log(step)

    def residuals(params: np.ndarray) -> np.ndarray:
        return np.log(_profile(name, local_bsz, params).step_time(gpus, nodes, bsz)) - log_step

    fastest, smallest = step.min(), bsz.min()
    compute = [fastest / 2, fastest / smallest / 4]
    sync = [fastest / 10, fastest / 100]
    lower = [0.0] * (len(PARAM_NAMES) - 1) + [1.0]
    upper = [np.inf] * (len(PARAM_NAMES) - 1) + [10.0]
    best = None
    for gamma in GAMMA_STARTS:
        start = [*compute, *compute, *sync, *sync, fastest / 100, gamma]
        result = least_squares(
            residuals,
            start,
            bounds=(lower, upper),
            x_scale="jac",
            loss="soft_l1",
            f_scale=LOSS_SCALE,
        )
        if best is None or result.cost < best.cost:
            best = result
    return _profile(name, local_bsz, best.x)


def fit_quality(profile: MeasuredProfile, rows: pd.DataFrame) -> dict[str, float]:
    """How far the profile is from the data, in the two figures the project cares about.

    ``step_*`` compare predicted with measured step time over every row; ``speedup_*``
    compare predicted speedup with the measured one (``gpus`` x the 1-GPU step at the
    same local batch / the row's step) over the multi-GPU rows.
    """
    gpus, nodes, bsz, step = _columns(rows)
    predicted = profile.step_time(gpus, nodes, bsz)
    step_error = np.abs(predicted / step - 1.0) * 100.0
    one = rows[rows["gpus"] == 1].groupby("local_bsz")["step_time"].mean()
    multi = gpus > 1
    measured = gpus * rows["local_bsz"].map(one).to_numpy(float) / step
    lone = profile.step_time(np.ones_like(gpus), np.ones_like(gpus), bsz)
    speedup_error = np.abs(gpus * lone / predicted / measured - 1.0)[multi] * 100.0
    return {
        "points": len(rows),
        "step_median_abs_pct_error": round(float(np.median(step_error)), 2),
        "step_p90_abs_pct_error": round(float(np.percentile(step_error, 90)), 2),
        "speedup_median_abs_pct_error": round(float(np.median(speedup_error)), 2),
    }


def application_work(name: str, trace_dir: Path, max_local_bsz: int) -> dict[str, Any]:
    """How much training a Pollux job of this model does (see ``WORK_SOURCE``)."""
    epochs = POLLUX_EPOCHS[name]
    traces = {
        int(re.fullmatch(r"validation-(\d+)\.csv", p.name).group(1)): pd.read_csv(p)
        for p in trace_dir.glob("validation-*.csv")
    }
    first_epoch = min(t["progress"].iloc[0] for t in traces.values())
    return {
        "epochs": epochs,
        "samples_per_epoch": round(float(first_epoch * min(traces))),
        "max_local_bsz": max_local_bsz,
        "iterations": {
            str(b): int(traces[b]["iteration"].iloc[epochs - 1]) for b in sorted(traces)
        },
    }


def build_document(data_dir: Path, command: str) -> dict[str, Any]:
    """The whole ``pollux_profiles.json``: source, provenance, profiles and workloads."""
    profiles: dict[str, Any] = {}
    applications: dict[str, Any] = {}
    for name in MEASURED_MODELS:
        rows = load_measurements(data_dir / name)
        profile = fit_profile(name, rows)
        profiles[name] = {
            "local_bsz": profile.local_bsz,
            "params": {k: float(f"{v:.6g}") for k, v in profile_params(profile).items()},
            "fit": fit_quality(profile, rows),
        }
        max_local = POLLUX_MAX_LOCAL_BSZ.get(name, int(rows["local_bsz"].max()))
        applications[name] = application_work(name, data_dir / name, max_local)
    return {
        "source": SOURCE,
        "fitted": {"date": datetime.date.today().isoformat(), "command": command},
        "model": (
            "T_iter(1 GPU) = alpha_1 + beta_1*b; otherwise T_grad = alpha_c + beta_c*b, "
            "T_sync = alpha_r + beta_r*max(K-2,0) on one node, alpha_n + beta_n*max(K-2,0) "
            "+ zeta_n*(K/N-1) across N nodes, T_iter = (T_grad^gamma + T_sync^gamma)^(1/gamma);"
            " speedup(K, N) = K*T_iter(1 GPU)/T_iter(K, N) at b = local_bsz"
        ),
        "profiles": profiles,
        "work_source": WORK_SOURCE,
        "applications": applications,
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="Pollux traces folder")
    parser.add_argument("--out", type=Path, default=PROFILES_PATH, help="JSON to write")
    args = parser.parse_args(argv)
    words = sys.argv[1:] if argv is None else list(argv)
    command = " ".join(["python -m engine.speedup.fit", *words])
    document = build_document(args.data, command)
    args.out.write_text(json.dumps(document, indent=2) + "\n")
    for name, entry in document["profiles"].items():
        print(f"{name:12s} local_bsz={entry['local_bsz']:<5} {entry['fit']}")


if __name__ == "__main__":
    main()
