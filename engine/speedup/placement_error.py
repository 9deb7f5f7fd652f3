"""How far the shipped job model is from the measurements, per measured placement.

For each model at each global batch its Pollux workload jobs use, the speedup of
:class:`engine.speedup.measured.FixedBatchJob` on ``(gpus, nodes)`` is compared with the
speedup the artifact reads from the raw traces on every placement ever measured with
that many GPUs and nodes (``placements.csv``: ``1112``, ``1211``, ...; ``scalability.csv``:
up to 16 nodes and 64 GPUs), through the artifact's own job step
(``engine.speedup.traces``). ``ours`` is what the simulator charges on that placement
(:meth:`FixedBatchJob.speedup_on`); ``shape`` is what a policy estimates from
``(gpus, nodes)`` alone before it knows the placement, so placements of one shape but
another spread show what that estimate costs. Needs the traces (``../shared/data``);
``python -m engine speedup --placements`` prints it.
"""

from __future__ import annotations

import pandas as pd

from engine.cluster import spread
from engine.speedup.measured import MEASURED_MODELS, measured_job, workload_batches
from engine.speedup.traces import fullest_first, load_application


def measured_placements(name: str) -> list[tuple[int, ...]]:
    """Every placement measured for ``name``: GPUs per node, one entry per node."""
    app = load_application(name)
    seen = {tuple(int(d) for d in str(p)) for p in app.placements["placement"].unique()}
    for nodes, gpus in app.scalability[["num_nodes", "num_replicas"]].drop_duplicates(
            ).itertuples(index=False):
        seen.add(fullest_first(int(gpus), int(nodes)))
    return sorted(seen, key=lambda p: (sum(p), len(p), p))


def placement_errors(models: tuple[str, ...] = MEASURED_MODELS) -> pd.DataFrame:
    """``model, batch_size, gpus, nodes, placement, measured, ours, error, shape,
    shape_error`` rows, one per model, workload batch and measured multi-GPU placement
    the batch can use (``error`` = ours / measured - 1, ``shape_error`` likewise)."""
    rows = []
    batches = workload_batches()
    for name in models:
        app = load_application(name)
        for batch in sorted(batches.get(name, {})):
            job = measured_job(name, batch)
            lone = app.duration(batch, 1, 1)
            for placement in measured_placements(name):
                gpus, nodes = sum(placement), len(placement)
                if gpus == 1 or gpus > job.max_gpus:
                    continue
                try:
                    measured = lone / app.duration(batch, gpus, nodes, placement)
                except ValueError:  # the local batch was never measured there
                    continue
                shape = job.speedup(gpus, nodes)
                ours = job.speedup_on(spread_of(placement)) if nodes > 1 else shape
                label = "".join(map(str, placement)) if nodes <= 4 else f"{nodes}x{gpus // nodes}"
                rows.append((name, batch, gpus, nodes, label, measured, ours, ours / measured - 1,
                             shape, shape / measured - 1))
    return pd.DataFrame(rows, columns=["model", "batch_size", "gpus", "nodes", "placement",
                                       "measured", "ours", "error", "shape", "shape_error"])


def spread_of(per_node: tuple[int, ...]) -> tuple[int, ...]:
    """A measured placement (GPUs per node) as the simulator keys it."""
    return spread(tuple(enumerate(per_node)))
