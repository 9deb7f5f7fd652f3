"""The heuristic teacher the agent is warm-started from by behaviour cloning.

Shortest job first over the window (which is already sorted by run-time estimate), each
job on the level maximising ``speedup x efficiency`` on the placement it would get now:
the knee of Eager et al. (1989), where adding GPUs stops paying for itself.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from engine.env.features import DecisionPoint
from engine.env.planning import plan_starts
from engine.env.spec import LEVELS, WAIT
from engine.protocol import Allocation, Policy, SchedulerView


def expert_action(point: DecisionPoint) -> int:
    """The teacher's action at ``point`` (never ``WAIT`` while something fits)."""
    starts = np.flatnonzero(point.valid.any(axis=1))
    if starts.size == 0:
        return WAIT
    slot = int(starts[0])
    levels = np.flatnonzero(point.valid[slot])
    gpus = point.gpus[slot, levels]
    eff = point.efficiency[slot, levels].astype(np.float64)
    score = gpus * eff**2  # speedup x efficiency, as speedup = gpus x efficiency
    return slot * LEVELS + int(levels[int(np.argmax(score))])


class ExpertPolicy(Policy):
    """The teacher as a simulator policy (for comparing the student against it)."""

    name = "drl-expert"
    uses_runtimes = True

    def schedule(self, view: SchedulerView) -> Sequence[Allocation]:
        return plan_starts(view, lambda point: (expert_action(point), None))
