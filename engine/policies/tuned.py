"""Policies tuned on the very workload they are scored on: oracle baselines.

A tuned policy is a family of candidate policies. On a workload every candidate runs and
the one with the lowest average JCT is the tuned policy's run. No real scheduler can do
this (it needs the whole future), which is the point: it is the best any setting of the
family can reach, so a learned scheduler that beats it beats every hand-tuned setting.
The simulator shows a policy one event at a time, so tuning happens a level up, in
``engine.compare.run_policy``; a tuned policy handed straight to ``simulate`` refuses.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from engine.protocol import Allocation, Policy, SchedulerView


@dataclass(frozen=True)
class Candidate:
    """One member of the family; ``label`` gives its sweep-table columns."""

    label: Mapping[str, Any]
    policy: Policy


class TunedPolicy(Policy):
    uses_runtimes = True
    sweep_key: str = "sweep"
    """Where ``run_policy`` puts the sweep table in ``SimulationResult.extras``."""

    def candidates(self) -> list[Candidate]:
        """Fresh candidates, always in the same order."""
        raise NotImplementedError

    def sweep(self, avg_jcts: Sequence[float]) -> tuple[int, pd.DataFrame]:
        """The winner's index (first lowest average JCT) and the table of every candidate."""
        labels = [candidate.label for candidate in self.candidates()]
        rows = [{**label, "avg_jct": jct} for label, jct in zip(labels, avg_jcts, strict=True)]
        best = min(range(len(rows)), key=lambda i: (math.isnan(avg_jcts[i]), avg_jcts[i]))
        table = pd.DataFrame(rows)
        table["best"] = table.index == best
        return best, table

    def schedule(self, view: SchedulerView) -> list[Allocation]:
        raise RuntimeError(
            f"{self.name!r} is tuned on the whole workload; run it with "
            "engine.compare.run_policy, not simulate"
        )
