"""The heuristic teachers the agent is warm-started from by behaviour cloning.

Shortest job first over the window (which is already sorted by run-time estimate), each
job on the level maximising ``GPUs x efficiency ** sharpness`` on the placement it would
get now. Sharpness 2 is ``speedup x efficiency``, the knee of Eager et al. (1989), where
adding GPUs stops paying for itself; 1 is the most speedup (wide jobs: best on a quiet
cluster); 3 and 4 lean to fewer GPUs (best on a small or overloaded one). No one setting is
best everywhere (``docs/results.md``), so every teacher labels every training state,
weighted by how well it scheduled that workload in hindsight (``engine.drl.bc``): the
student sees only the state, so it has to learn from the state which one a situation
calls for.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from engine.cluster import Cluster
from engine.env.features import DecisionPoint
from engine.env.planning import plan_starts
from engine.env.spec import LEVELS, WAIT
from engine.job import Job
from engine.protocol import Allocation, Policy, SchedulerView

SHARPNESS: tuple[float, ...] = (1.0, 1.5, 2.0, 3.0, 4.0)
"""The teachers: exponents of efficiency in their GPU-count score."""
KNEE = 2.0


def expert_action(point: DecisionPoint, sharpness: float = KNEE) -> int:
    """The teacher's action at ``point`` (never ``WAIT`` while something fits)."""
    starts = np.flatnonzero(point.valid.any(axis=1))
    if starts.size == 0:
        return WAIT
    slot = int(starts[0])
    levels = np.flatnonzero(point.valid[slot])
    gpus = point.gpus[slot, levels]
    eff = point.efficiency[slot, levels].astype(np.float64)
    score = gpus * eff**sharpness  # at 2: speedup x efficiency (speedup = gpus x eff)
    return slot * LEVELS + int(levels[int(np.argmax(score))])


class ExpertPolicy(Policy):
    """A teacher as a simulator policy (for comparing the student against it)."""

    name = "drl-expert"
    uses_runtimes = True

    def __init__(self, sharpness: float = KNEE) -> None:
        self.sharpness = sharpness

    def schedule(self, view: SchedulerView) -> Sequence[Allocation]:
        return plan_starts(view, lambda point: (expert_action(point, self.sharpness), None))


def teacher_returns(jobs: Sequence[Job], cluster: Cluster) -> dict[float, float]:
    """Each teacher's return (minus avg JCT / ideal) on the workload, by sharpness."""
    from engine.drl.rollout import greedy_return  # rollout plays teachers too

    return {s: greedy_return(None, (list(jobs), cluster), s) for s in SHARPNESS}
