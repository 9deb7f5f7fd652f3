"""Derive ``pollux_profiles.json`` from the Pollux artifact's traces and workloads.

Run from the repository root: ``python -m engine.speedup.fit [--data DIR] [--workloads DIR]
[--out PATH]``. The traces stay outside the project; this writes what the engine needs of
them at run time (see ``engine.speedup.measured``):

* per model, the step and sync time per measured ``(gpus, nodes)`` shape and local batch,
  the statistical-efficiency columns of the validation traces up to ``max_epochs``, the
  batch limits, and the model's default batch (the one its Pollux workload jobs use most);
* per model, a fitted step-time model for placements never measured: Pollux's (Qiao et
  al. OSDI'21) plus a lone-GPU compute line and a GPUs-per-node term in cross-node sync,
  fitted by robust least squares on log step time over every row of ``placements.csv``
  and ``scalability.csv``. Soft-L1 with a 5 % scale keeps the many noisy cross-node points
  from dragging the fit, and log residuals weigh a 10 ms step like a 1 s one;
* how often each (model, batch) occurs in the eight workloads, for the generator.
"""

from __future__ import annotations

import argparse
import datetime
import json
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
from engine.speedup.traces import load_application

DEFAULT_DATA = Path(__file__).resolve().parents[2].parent / "shared/data/pollux/traces"
DEFAULT_WORKLOADS = DEFAULT_DATA.parent / "workloads"
SOURCE = (
    "petuum/adaptdl osdi21-artifact simulator/traces, Apache-2.0, via ../shared/data/pollux/traces"
)
WORK_SOURCE = (
    "petuum/adaptdl osdi21-artifact simulator/applications.py: max_epochs per application, "
    "max_local_bsz = largest measured local batch (yolov3: 8), min_local_bsz = smallest; "
    "configs = means of placements.csv and scalability.csv rows per (gpus, nodes) and local "
    "batch; placements = placements.csv rows of each multi-node placement, keyed as the "
    "artifact keys them (GPUs per node, smallest rotation); efficiency = validation-<B>.csv "
    "progress (least over B), grad_sqr and grad_var for the first max_epochs epochs"
)
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


def _columns(rows: pd.DataFrame) -> tuple[np.ndarray, ...]:
    return tuple(rows[c].to_numpy(float) for c in ("gpus", "nodes", "local_bsz", "step_time"))


def _profile(name: str, params: Sequence[float]) -> MeasuredProfile:
    return MeasuredProfile(name, *(float(p) for p in params))


def fit_profile(name: str, rows: pd.DataFrame) -> MeasuredProfile:
    """Least-squares fit of the step-time model to ``rows``, best of a few gamma starts."""
    gpus, nodes, bsz, step = _columns(rows)
    log_step = np.log(step)

    def residuals(params: np.ndarray) -> np.ndarray:
        return np.log(_profile(name, params).step_time(gpus, nodes, bsz)) - log_step

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
    return _profile(name, best.x)


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


def measured_configs(name: str, trace_dir: Path) -> list[dict[str, Any]]:
    """Step and sync time per ``(gpus, nodes)`` and local batch: the mean over every
    placement of that shape (``1133``, ``1313``, ``2222`` ... for 8 GPUs on 4 nodes) and
    scale row: the speed of a placement never measured by itself (its shape's mean is the
    best guess, since single placements are noisy: ``1442`` and ``1424`` differ by a third
    for cifar10), and what a policy estimates before it knows the placement.
    """
    rows = load_measurements(trace_dir)
    configs = []
    for (gpus, nodes), group in rows.groupby(["gpus", "nodes"]):
        means = group.groupby("local_bsz")[["step_time", "sync_time"]].mean().sort_index()
        configs.append({
            "gpus": int(gpus),
            "nodes": int(nodes),
            "local_bsz": [float(b) for b in means.index],
            "step_time": [float(f"{v:.6g}") for v in means["step_time"]],
            "sync_time": [float(f"{v:.6g}") for v in means["sync_time"]],
        })
    return configs


def measured_placements(name: str, trace_dir: Path) -> dict[str, dict[str, list[float]]]:
    """Step and sync time per local batch on each multi-node placement ever measured
    (``placements.csv``: ``1442``, ``1424`` ...), keyed as the artifact keys them: a
    placement's spread differs from its shape's mean by up to a third, and the simulator
    knows the spread."""
    table = pd.read_csv(trace_dir / "placements.csv", dtype={"placement": str})
    out = {}
    for key, rows in table[table["placement"].str.len() > 1].groupby("placement"):
        rows = rows.groupby("local_bsz")[["step_time", "sync_time"]].mean().sort_index()
        out[str(key)] = {
            "local_bsz": [float(b) for b in rows.index],
            "step_time": [float(f"{v:.6g}") for v in rows["step_time"]],
            "sync_time": [float(f"{v:.6g}") for v in rows["sync_time"]],
        }
    return out


def application_entry(name: str, trace_dir: Path, batches: dict[int, int]) -> dict[str, Any]:
    """What a fixed-batch job of ``name`` needs at run time (see ``WORK_SOURCE``)."""
    app = load_application(name, trace_dir.parent)
    sizes = sorted(app.validation)
    epochs = app.max_epochs
    progress = np.min([v["progress"].to_numpy(float)[:epochs] for v in app.validation.values()],
                      axis=0)

    def column(label: str) -> dict[str, list[float]]:
        return {str(b): [float(f"{x:.6g}") for x in app.validation[b][label].to_numpy(float)[
            :epochs]] for b in sizes}

    return {
        "max_epochs": epochs,
        "min_local_bsz": app.min_local_bsz,
        "max_local_bsz": app.max_local_bsz,
        "validated_batches": sizes,
        "default_batch": max(batches, key=lambda b: (batches[b], -b)) if batches else sizes[-1],
        "configs": measured_configs(name, trace_dir),
        "placements": measured_placements(name, trace_dir),
        "efficiency": {
            "progress": [float(f"{x:.8g}") for x in progress],
            "grad_sqr": column("grad_sqr"),
            "grad_var": column("grad_var"),
        },
    }


def workload_batches(workloads: Path) -> dict[str, dict[str, int]]:
    """How often each model trains at each global batch in the Pollux workloads."""
    frame = pd.concat([pd.read_csv(p) for p in sorted(workloads.glob("workload-*.csv"))])
    counts = frame.groupby(["application", "batch_size"]).size()
    table: dict[str, dict[str, int]] = {}
    for (model, batch), count in counts.items():
        table.setdefault(str(model), {})[str(int(batch))] = int(count)
    return table


def build_document(data_dir: Path, workloads: Path, command: str) -> dict[str, Any]:
    """The whole ``pollux_profiles.json``: source, provenance, profiles and applications."""
    profiles: dict[str, Any] = {}
    applications: dict[str, Any] = {}
    batches = workload_batches(workloads)
    for name in MEASURED_MODELS:
        rows = load_measurements(data_dir / name)
        profile = fit_profile(name, rows)
        profiles[name] = {
            "params": {k: float(f"{v:.6g}") for k, v in profile_params(profile).items()},
            "fit": fit_quality(profile, rows),
        }
        counts = {int(b): n for b, n in batches.get(name, {}).items()}
        applications[name] = application_entry(name, data_dir / name, counts)
    return {
        "source": SOURCE,
        "fitted": {"date": datetime.date.today().isoformat(), "command": command},
        "model": (
            "T_iter(1 GPU) = alpha_1 + beta_1*b; otherwise T_grad = alpha_c + beta_c*b, "
            "T_sync = alpha_r + beta_r*max(K-2,0) on one node, alpha_n + beta_n*max(K-2,0) "
            "+ zeta_n*(K/N-1) across N nodes, T_iter = (T_grad^gamma + T_sync^gamma)^(1/gamma);"
            " used, scaled to the nearest measurements, where no placement was measured"
        ),
        "profiles": profiles,
        "work_source": WORK_SOURCE,
        "applications": applications,
        "workload_batches_source": (
            "petuum/adaptdl osdi21-artifact simulator/workloads/workload-{1..8}.csv: "
            "jobs per (application, batch_size)"
        ),
        "workload_batches": batches,
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="Pollux traces folder")
    parser.add_argument("--workloads", type=Path, default=DEFAULT_WORKLOADS,
                        help="Pollux workloads folder")
    parser.add_argument("--out", type=Path, default=PROFILES_PATH, help="JSON to write")
    args = parser.parse_args(argv)
    words = sys.argv[1:] if argv is None else list(argv)
    command = " ".join(["python -m engine.speedup.fit", *words])
    document = build_document(args.data, args.workloads, command)
    args.out.write_text(json.dumps(document, indent=2) + "\n")
    for name, entry in document["profiles"].items():
        print(f"{name:12s} {entry['fit']}")


if __name__ == "__main__":
    main()
