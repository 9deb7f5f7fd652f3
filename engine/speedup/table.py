"""Speedup and efficiency of every model on its best placement, for the app to plot."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from engine.cluster import packed_nodes
from engine.speedup import MODEL_NAMES, get_model
from engine.speedup.base import SpeedupModel


def speedup_table(
    models: Mapping[str, SpeedupModel] | None = None,
    max_gpus: int = 64,
    gpus_per_node: int = 4,
) -> pd.DataFrame:
    """``model, gpus, nodes, speedup, efficiency`` for 1..``max_gpus`` GPUs, packed.

    Packed (``nodes = ceil(gpus / gpus_per_node)``) because that is the placement the
    cluster gives an allocation when it can; ``models`` defaults to every known model
    with its default parameters.
    """
    if max_gpus < 1 or gpus_per_node < 1:
        raise ValueError(
            f"max_gpus and gpus_per_node must be >= 1, got {max_gpus}, {gpus_per_node}"
        )
    chosen = {name: get_model(name) for name in MODEL_NAMES} if models is None else models
    rows = []
    for label, model in chosen.items():
        for gpus in range(1, max_gpus + 1):
            nodes = packed_nodes(gpus, gpus_per_node)
            speedup = model.speedup(gpus, nodes)
            rows.append((label, gpus, nodes, speedup, speedup / gpus))
    return pd.DataFrame(rows, columns=["model", "gpus", "nodes", "speedup", "efficiency"])
