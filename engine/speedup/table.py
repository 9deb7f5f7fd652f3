"""Speedup and efficiency of every model on its best placement, for the app to plot."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from engine.cluster import packed_nodes
from engine.speedup import MODEL_NAMES, get_model
from engine.speedup.base import SpeedupModel
from engine.speedup.measured import load_application, measured_job


def speedup_table(
    models: Mapping[str, SpeedupModel] | None = None,
    max_gpus: int = 64,
    gpus_per_node: int = 4,
) -> pd.DataFrame:
    """``model, gpus, nodes, speedup, efficiency`` for 1..``max_gpus`` GPUs, packed.

    Packed (``nodes = ceil(gpus / gpus_per_node)``) because that is the placement the
    cluster gives an allocation when it can; ``models`` defaults to every known model
    with its default parameters. A model with a ``max_gpus`` (a measured job, limited by
    its batch) stops there.
    """
    if max_gpus < 1 or gpus_per_node < 1:
        raise ValueError(
            f"max_gpus and gpus_per_node must be >= 1, got {max_gpus}, {gpus_per_node}"
        )
    chosen = {name: get_model(name) for name in MODEL_NAMES} if models is None else models
    rows = []
    for label, model in chosen.items():
        for gpus in range(1, min(max_gpus, getattr(model, "max_gpus", max_gpus)) + 1):
            nodes = packed_nodes(gpus, gpus_per_node)
            speedup = model.speedup(gpus, nodes)
            rows.append((label, gpus, nodes, speedup, speedup / gpus))
    return pd.DataFrame(rows, columns=["model", "gpus", "nodes", "speedup", "efficiency"])


STRONG, WEAK = "fixed global batch (strong scaling)", "fixed local batch (weak scaling)"


def scaling_table(name: str, batch_size: int | None = None, max_gpus: int = 64,
                  gpus_per_node: int = 4) -> pd.DataFrame:
    """A measured job at global ``batch_size`` against the same job keeping one GPU's local
    batch on every GPU, packed: ``speedup_table``'s columns, ``model`` naming the scaling.

    Why a fixed-batch job stops speeding up: on ``k`` GPUs each gets ``batch / k``
    samples, so computing shrinks while synchronising does not (strong scaling); with the
    local batch kept (weak scaling, the batch growing with ``k``) computing stays large
    beside it, which flatters a job that does not change its batch.
    """
    job = measured_job(name, batch_size)
    app = load_application(name)
    local = min(job.batch_size, app.max_local_bsz)
    one = app.throughput(1, 1, local)[0]
    rows = []
    for gpus in range(1, min(max_gpus, job.max_gpus) + 1):
        nodes = packed_nodes(gpus, gpus_per_node)
        weak = gpus * one / app.throughput(gpus, nodes, local)[0]
        for label, speedup in ((STRONG, job.speedup(gpus, nodes)), (WEAK, min(gpus, weak))):
            rows.append((label, gpus, nodes, speedup, speedup / gpus))
    return pd.DataFrame(rows, columns=["model", "gpus", "nodes", "speedup", "efficiency"])
