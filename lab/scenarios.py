"""Home's named scenarios: the learned scheduler against today's practice, over seeds.

A lecturer's first slide is the same for every student, so each scenario is computed
once per server process (``st.cache_resource``) and then served to every session from
memory. Each compares ``drl`` with what clusters do today (Slurm/Kubernetes FIFO on the
user's request) and with the threshold rule tuned with hindsight, over several seeds,
as a relative change with a 95% confidence interval.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import streamlit as st

from engine.cluster import Cluster
from engine.compare import mean_ci
from engine.paths import shared_data
from engine.policies import display_name
from engine.run import run_policy
from engine.workload import GeneratorConfig, Workload, generate, load_workload, to_jobs

SEEDS = 5
CLUSTER = Cluster(16, 4)
"""The scenarios' cluster: the 64-GPU testbed their stories name."""
RIVALS = ("fifo-request", "threshold-optimal")
TIE = 0.02
"""Relative changes smaller than this (and intervals that cross zero) read as a tie."""


@dataclass(frozen=True)
class Scenario:
    """Generated workloads over :data:`SEEDS` seeds, or one real ``trace`` (no interval)."""

    title: str
    story: str
    config: GeneratorConfig | None = None
    trace: Path | None = None


POLLUX_TRACE = shared_data("pollux", "workloads", "workload-6.csv")
"""The trace the Pollux paper ran on its 64-GPU testbed (in the reference data)."""

SCENARIOS = (
    Scenario("A quiet cluster", "200 jobs at offered load 0.5 on 64 GPUs: GPUs are often idle.",
             GeneratorConfig(jobs=200, load=0.5)),
    Scenario("A busy cluster", "200 jobs at offered load 1.0 on 64 GPUs: work arrives as fast "
             "as the cluster can serve it.", GeneratorConfig(jobs=200, load=1.0)),
    *([Scenario("A real trace", "the 160 deep-learning jobs of the Pollux paper's workload 6 "
                "on its 64-GPU testbed: one workload, so no interval.", trace=POLLUX_TRACE)]
      if POLLUX_TRACE.is_file() else []),
)


@dataclass(frozen=True)
class Change:
    """``drl``'s average JCT relative to a rival: mean and 95% CI half-width over seeds."""

    rival: str
    mean: float
    half: float

    def words(self) -> str:
        """``"38% faster (95% CI 30-46%)"``, ``"12% slower …"`` or ``"ties (within 2%)"``."""
        if not math.isfinite(self.mean):
            return "–"
        if abs(self.mean) < TIE or (math.isfinite(self.half) and abs(self.mean) <= self.half):
            spread = max(abs(self.mean) + (self.half if math.isfinite(self.half) else 0), TIE)
            return f"ties (within {spread:.0%})"
        word = "faster" if self.mean < 0 else "slower"
        low, high = sorted((abs(self.mean) - self.half, abs(self.mean) + self.half))
        interval = f" (95% CI {max(low, 0):.0%}–{high:.0%})" if math.isfinite(self.half) else ""
        return f"{abs(self.mean):.0%} {word}{interval}"

    def headline(self) -> str:
        """``"38% faster"``, ``"12% slower"`` or ``"ties"``: short enough for a card."""
        words = self.words()
        return words.split(" (")[0] if words != "–" else words

    def against(self) -> str:
        """``"is 38% faster (95% CI 30-46%) than Slurm FIFO (fifo-request)"``, or a tie."""
        words, name = self.words(), display_name(self.rival)
        return f"{words} with {name}" if words.startswith("ties") else f"is {words} than {name}"


@dataclass(frozen=True)
class Outcome:
    scenario: Scenario
    drl_jct: float
    drl_half: float
    changes: tuple[Change, ...]

    def reading(self) -> str:
        """One sentence that reads the result."""
        return (f"{self.scenario.title}: the deep-RL scheduler (drl) "
                + " and ".join(c.against() for c in self.changes) + ".")


@st.cache_resource(show_spinner="Computing the scenarios once for everyone…")
def outcome(index: int) -> Outcome:
    """Scenario ``index`` on :data:`CLUSTER` over :data:`SEEDS` seeds, once per server."""
    scenario, cluster = SCENARIOS[index], CLUSTER
    jct: dict[str, list[float]] = {name: [] for name in ("drl", *RIVALS)}
    for seed, workload in _workloads(scenario, cluster):
        jobs = to_jobs(workload, cluster)
        for name in jct:
            jct[name].append(run_policy(name, jobs, cluster, seed).summary.avg_jct)
    drl = np.array(jct["drl"])
    changes = tuple(Change(r, *mean_ci(drl / np.array(jct[r]) - 1.0)) for r in RIVALS)
    return Outcome(scenario, *mean_ci(drl), changes)


def _workloads(scenario: Scenario, cluster: Cluster) -> Iterator[tuple[int, Workload]]:
    """(seed, workload) pairs: the trace once, or the generated workload per seed."""
    if scenario.trace is not None:
        yield 0, load_workload(scenario.trace, cluster=cluster)
        return
    assert scenario.config is not None
    for seed in range(SEEDS):
        yield seed, generate(replace(scenario.config, seed=seed), cluster)
