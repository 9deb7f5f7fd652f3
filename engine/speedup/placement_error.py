"""How far the default fitted speedups are from the measurements, per placement.

The default models (``measured.py``) are smooth fits; where placement matters most
(8 GPUs on 2 full nodes) they can be far off. This compares them, at each profile's
reference local batch, with the speedup measured on the placement the artifact's table
model (``engine.speedup.artifact``, used by ``fidelity``) reads for the same
``(gpus, nodes)``: the fullest-first one, linear in local batch between measured ones.
The table model is exact there by construction; between measured placements it
interpolates linearly, as the Pollux simulator does.
"""

from __future__ import annotations

import pandas as pd

from engine.speedup.artifact import fullest_first, load_application
from engine.speedup.measured import MEASURED_MODELS, load_profile

PLACEMENTS: tuple[tuple[int, int], ...] = (
    (2, 1), (2, 2), (4, 1), (4, 2), (4, 4), (8, 2), (8, 3), (8, 4), (12, 3), (16, 4),
)
"""The (gpus, nodes) pairs reported: packed sizes and their spread-out alternatives."""


def placement_errors(models: tuple[str, ...] = MEASURED_MODELS) -> pd.DataFrame:
    """``model, gpus, nodes, placement, measured, fitted, error`` (fitted / measured - 1)."""
    rows = []
    for name in models:
        app, profile = load_application(name), load_profile(name)
        bsz = profile.local_bsz
        lone, _ = app.throughput((1,), bsz)
        for gpus, nodes in PLACEMENTS:
            placement = fullest_first(gpus, nodes)
            try:
                step, _ = app.throughput(placement, bsz)
            except ValueError:  # not measured at this local batch
                continue
            measured = gpus * lone / step
            fitted = profile.speedup(gpus, nodes)
            label = "".join(map(str, sorted(placement)))
            rows.append((name, gpus, nodes, label, measured, fitted, fitted / measured - 1))
    return pd.DataFrame(
        rows, columns=["model", "gpus", "nodes", "placement", "measured", "fitted", "error"]
    )
