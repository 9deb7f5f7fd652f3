"""The heuristic teacher the agent is warm-started from by behaviour cloning.

Shortest job first over the window (which is already sorted by run-time estimate), each
job on the level maximising ``speedup x efficiency ** efficiency_weight`` on the
placement it would get now (weight 1 is the knee of Eager et al.; larger weights favour
efficient, smaller allocations), among the levels up to a load-aware cap: the free GPUs
shared among the waiting jobs, ``share`` x free / waiting.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from engine.env.features import DecisionPoint
from engine.env.planning import plan_starts
from engine.env.spec import LEVELS, WAIT
from engine.protocol import Allocation, Policy, SchedulerView


@dataclass(frozen=True)
class ExpertConfig:
    """Knobs of the teacher (tuned on training-seed workloads only)."""

    share: float | None = None
    """If set, the widest a job may go is share x free GPUs / waiting jobs (None: no cap)."""
    efficiency_weight: float = 1.0
    """Exponent of efficiency in the level score (1 = knee)."""


def expert_action(point: DecisionPoint, config: ExpertConfig = ExpertConfig()) -> int:
    """The teacher's action at ``point`` (never ``WAIT`` while something fits)."""
    starts = np.flatnonzero(point.valid.any(axis=1))
    if starts.size == 0:
        return WAIT
    slot = int(starts[0])
    levels = np.flatnonzero(point.valid[slot])
    gpus = point.gpus[slot, levels]
    cap = float(gpus[-1]) if config.share is None else max(
        config.share * point.free / max(point.waiting, 1), float(gpus[0])
    )
    eff = point.efficiency[slot, levels].astype(np.float64)
    score = np.where(gpus <= cap, gpus * eff ** (1.0 + config.efficiency_weight), -1.0)
    return slot * LEVELS + int(levels[int(np.argmax(score))])


class ExpertPolicy(Policy):
    """The teacher as a simulator policy (for comparing the student against it)."""

    name = "drl-expert"
    uses_runtimes = True

    def __init__(self, config: ExpertConfig = ExpertConfig()) -> None:
        self.config = config

    def schedule(self, view: SchedulerView) -> Sequence[Allocation]:
        return plan_starts(view, lambda point: (expert_action(point, self.config), None))
