"""Threshold scaling with ``T`` tuned on the workload itself: the family's best case.

Every ``threshold`` setting on a full grid runs on the same workload (both signals:
``free`` for T = 0.00, 0.05, ..., 1.00 and ``queue`` for T = 0, 1, ..., 16) and the one
with the lowest average JCT wins (ties: the first in grid order). That is oracle tuning:
it needs the workload's outcome in advance, so it is the strongest threshold baseline
there can be. The sweep table (signal, T, avg_jct, best) lands in the run's
``extras["threshold_sweep"]``.
"""

from __future__ import annotations

from engine.policies.threshold import Threshold
from engine.policies.tuned import Candidate, TunedPolicy

FREE_GRID: tuple[float, ...] = tuple(round(0.05 * i, 2) for i in range(21))
QUEUE_GRID: tuple[int, ...] = tuple(range(17))


class ThresholdOptimal(TunedPolicy):
    name = "threshold-optimal"
    sweep_key = "threshold_sweep"

    def candidates(self) -> list[Candidate]:
        grid = [("free", t) for t in FREE_GRID] + [("queue", t) for t in QUEUE_GRID]
        return [
            Candidate({"signal": signal, "T": t}, Threshold(signal, t, name=self.name))
            for signal, t in grid
        ]
