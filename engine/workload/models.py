"""Speedup models for a workload's rows, and the load those rows offer a cluster."""

from __future__ import annotations

import numpy as np
import pandas as pd

from engine.cluster import Cluster, packed_nodes
from engine.speedup import SpeedupModel, get_model
from engine.workload.workload import Workload

PARAMETERS = ("serial_fraction", "downey_A", "downey_sigma", "batch_size")


def speedup_models(frame: pd.DataFrame) -> tuple[list[SpeedupModel], np.ndarray]:
    """One model object per distinct (model, parameters), and each row's index into them.

    Sharing one object between identical jobs shares its caches, and keeps building
    100,000 jobs to a handful of ``get_model`` calls.
    """
    key = np.zeros(len(frame), dtype=np.int64)
    for name in ["model", *PARAMETERS]:  # one integer per row, ordered as the tuples are
        factor, distinct = pd.factorize(frame[name], use_na_sentinel=False)
        key = key * len(distinct) + factor
    _, first, codes = np.unique(key, return_index=True, return_inverse=True)
    models = [
        get_model(
            frame["model"].iat[row],
            *(
                None if np.isnan(value) else float(value)
                for value in (frame[name].iat[row] for name in PARAMETERS)
            ),
        )
        for row in first.tolist()
    ]
    return models, codes.reshape(-1)


def packed_speedups(
    models: list[SpeedupModel], codes: np.ndarray, gpus: np.ndarray, cluster: Cluster
) -> np.ndarray:
    """Each row's speedup on ``gpus`` GPUs packed onto the fewest nodes (an empty cluster).

    Computed once per distinct (model, GPU count) pair, then spread over the rows.
    """
    gpus = np.asarray(gpus, dtype=np.int64)
    width = int(gpus.max(initial=0)) + 1
    unique, inverse = np.unique(codes.astype(np.int64) * width + gpus, return_inverse=True)
    speedups = np.array(
        [
            models[code].speedup(k, packed_nodes(k, cluster.gpus_per_node))
            for code, k in (divmod(pair, width) for pair in unique.tolist())
        ],
        dtype=float,
    )
    return speedups[inverse.reshape(-1)]


def requested_work(frame: pd.DataFrame, cluster: Cluster) -> np.ndarray:
    """GPU-seconds each job occupies when run as requested, packed: ``k x runtime(k)``."""
    models, codes = speedup_models(frame)
    gpus = frame["requested_gpus"].to_numpy()
    runtime = frame["runtime_1gpu"].to_numpy() / packed_speedups(models, codes, gpus, cluster)
    return gpus * runtime


def offered_load(workload: Workload, cluster: Cluster) -> float:
    """The fraction of ``cluster`` the users' own requests would keep busy.

    ``arrival rate x mean(requested_gpus x runtime(requested_gpus, packed)) / GPUs``,
    with the rate estimated as ``(n - 1) / (last submit - first submit)``; NaN when
    fewer than two jobs or no time between them make the rate unknowable.
    """
    submit = workload.frame["submit_time"].to_numpy()
    span = submit.max(initial=0.0) - submit.min(initial=0.0)
    if len(submit) < 2 or span <= 0:
        return float("nan")
    rate = (len(submit) - 1) / span
    return float(rate * requested_work(workload.frame, cluster).mean() / cluster.total_gpus)
