"""Home's scenarios: the learned scheduler against today's practice, over seeds.

Each scenario compares ``drl`` with what clusters do today (Slurm/Kubernetes FIFO on the
user's request) and with the threshold rule tuned with hindsight, over several seeds, as
a relative change with a 95% confidence interval. The named ones are a lecturer's first
slide, the same for every student, so each is computed once per server process
(``st.cache_resource``). "Your workload" is the session's own settings as one more
scenario; its outcome is kept server-wide by its key (workload, cluster, seeds, job mode),
so two students with the same settings share one computation, which Home runs through
the server-wide line (``lab.line``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from pathlib import Path

import pandas as pd
import streamlit as st

from engine.budget import RunBudget
from engine.cluster import Cluster
from engine.compare import compare, mean_ci, summarize_comparison
from engine.job import Job
from engine.parallel import Progress
from engine.paths import pollux_workloads
from engine.policies import display_name
from engine.workload import GeneratorConfig, Workload, generate, load_workload, to_jobs
from lab import runs, state
from lab.plain import plain

SEEDS = 5
CLUSTER = Cluster(16, 4)
"""The named scenarios' cluster: the 64-GPU testbed their stories name."""
RIVALS = ("fifo-request", "threshold-optimal")
POLICIES = ("drl", *RIVALS)
TIE = 0.02
"""Relative changes smaller than this (and intervals that cross zero) read as a tie."""
KEPT = 64
""""Your workload" outcomes the server keeps (the least recently used go first)."""


@dataclass(frozen=True)
class Scenario:
    """Generated workloads (``config``) over ``seeds`` seeds from ``seed``, or one fixed set
    of jobs (a ``trace`` file or a loaded ``workload``: one run, no interval)."""

    title: str
    story: str
    config: GeneratorConfig | None = None
    trace: Path | None = None
    workload: Workload | None = field(default=None, repr=False)
    cluster: Cluster = CLUSTER
    mode: str | None = None
    seed: int = 0
    seeds: int = SEEDS


POLLUX_TRACE = pollux_workloads() / "workload-6.csv"
"""The trace the Pollux paper ran on its 64-GPU testbed (shipped with the engine)."""

SCENARIOS = (
    Scenario("A quiet cluster", "200 jobs at offered load 0.5 on 64 GPUs: GPUs are often idle.",
             GeneratorConfig(jobs=200, load=0.5)),
    Scenario("A busy cluster", "200 jobs at offered load 1.0 on 64 GPUs: work arrives as fast "
             "as the cluster can serve it.", GeneratorConfig(jobs=200, load=1.0)),
    *([Scenario("A real trace", "the 160 deep-learning jobs of the Pollux paper's workload 6 "
                "on its 64-GPU testbed: one workload, so no interval.", trace=POLLUX_TRACE)]
      if POLLUX_TRACE.is_file() else []),
    Scenario("One 8-GPU server", "200 jobs at offered load 0.9 on a single node of 8 GPUs, "
             "as a lab group's own machine: little room, so every GPU given to one job is "
             "taken from the queue.", GeneratorConfig(jobs=200, load=0.9),
             cluster=Cluster(1, 8)),
)


def missing_trace() -> str | None:
    """Why Home has no real-trace scenario, in words a lecturer can act on (None: it has)."""
    if POLLUX_TRACE.is_file():
        return None
    return (f"The real-trace scenario is missing: it reads the Pollux paper's workload 6, "
            f"which ships with the engine, from `{POLLUX_TRACE}`, and that file is not there. "
            "Reinstall the package (`pip install .`) and restart the app.")


@dataclass(frozen=True)
class Change:
    """``drl``'s average JCT relative to a rival: mean and 95% CI half-width over seeds."""

    rival: str
    mean: float
    half: float

    def words(self) -> str:
        """``"38% faster (95% CI 30-46%)"``, ``"12% slower …"`` or ``"ties (within ±2%)"``:
        a tie is a change under :data:`TIE`, or one whose 95% interval includes zero."""
        if not math.isfinite(self.mean):
            return "–"
        if abs(self.mean) < TIE or (math.isfinite(self.half) and abs(self.mean) <= self.half):
            spread = max(abs(self.mean) + (self.half if math.isfinite(self.half) else 0), TIE)
            return f"ties (within ±{spread:.0%})"
        word = "faster" if self.mean < 0 else "slower"
        low, high = sorted((abs(self.mean) - self.half, abs(self.mean) + self.half))
        interval = f" (95% CI {max(low, 0):.0%}–{high:.0%})" if math.isfinite(self.half) else ""
        return f"{abs(self.mean):.0%} {word}{interval}"

    def headline(self) -> str:
        """``"38% faster"``, ``"12% slower"`` or ``"ties"``: short enough for a card."""
        words = self.words()
        return words.split(" (")[0] if words != "–" else words

    def against(self) -> str:
        """``"is 38% faster (95% CI 30-46%) than Slurm FIFO (fifo-request)"``, or a tie, said
        with what it means."""
        words, name = self.words(), display_name(self.rival)
        if words.startswith("ties"):
            spread = words.removeprefix("ties (").removesuffix(")")
            return (f"ties with {name} (no clear difference: {spread}, and the 95% "
                    "confidence interval includes zero)")
        return f"is {words} than {name}"


@dataclass(frozen=True)
class Outcome:
    """A scenario's result: ``drl``'s mean average JCT and CI half-width, its change against
    each rival, and ``engine.compare.summarize_comparison``'s table (for the chart)."""

    scenario: Scenario
    drl_jct: float
    drl_half: float
    changes: tuple[Change, ...]
    summary: pd.DataFrame

    def reading(self) -> str:
        """One sentence that reads the result."""
        return (f"{self.scenario.title}: the deep-RL scheduler (drl) "
                + " and ".join(c.against() for c in self.changes) + ".")


def compute(
    scenario: Scenario, progress: Progress | None = None, budget: RunBudget | None = None
) -> Outcome:
    """``drl`` and :data:`RIVALS` on the scenario's workloads, through ``engine.compare``,
    on the server's heavy-run executor (``lab.runs.executor``: out of the server process),
    held to ``budget`` (a session's own workload; the named scenarios are the server's).

    The weights are checked here first, so a missing or altered file is named on the page
    rather than failing in a worker.
    """
    runs.pretrained()
    table = compare(POLICIES, _workloads(scenario), scenario.cluster,
                    executor=runs.executor(), progress=progress, budget=budget)
    jct = table.pivot(index="seed", columns="policy", values="avg_jct")
    drl = jct["drl"].to_numpy()
    changes = tuple(Change(r, *mean_ci(drl / jct[r].to_numpy() - 1.0)) for r in RIVALS)
    summary = summarize_comparison(table, ("avg_jct", "lower_bound_avg_jct"))
    return Outcome(scenario, *mean_ci(drl), changes, summary)


@st.cache_resource(show_spinner="Computing the scenarios once for everyone…")
def outcome(index: int) -> Outcome:
    """Named scenario ``index``, once per server."""
    return compute(SCENARIOS[index])


def _workloads(scenario: Scenario) -> dict[int, list[Job]]:
    """Seed -> jobs: the fixed jobs once (policy seed ``seed``), or a workload per seed."""
    cluster, mode = scenario.cluster, scenario.mode
    if scenario.config is None:
        fixed = scenario.workload
        if fixed is None:
            assert scenario.trace is not None
            fixed = load_workload(scenario.trace, cluster=cluster)
        return {scenario.seed: to_jobs(fixed, cluster, mode)}
    seeds = range(scenario.seed, scenario.seed + scenario.seeds)
    return {seed: to_jobs(generate(replace(scenario.config, seed=seed), cluster), cluster, mode)
            for seed in seeds}


# -- the session's own workload -----------------------------------------------------------


def yours() -> tuple[Scenario, str]:
    """The session's workload, cluster, seed and job mode as a scenario, and its key."""
    cluster, seed, mode = state.cluster(), state.seed(), state.job_mode()
    moded = f", every job {mode}" if mode else ""
    if mode == "malleable":
        moded += " (none of these policies resizes a running job, so they run as moldable)"
    if state.origin() == "generated":
        config = state.generator_config()
        story = (f"{config.jobs} generated jobs at offered load {config.load:g} on {cluster}"
                 f"{moded}, seeds {seed}–{seed + SEEDS - 1}.")
        scenario = Scenario("Your workload", story, config, cluster=cluster, mode=mode,
                            seed=seed)
    else:
        loaded = state.workload()
        story = (f"{plain(state.origin())}, {len(loaded)} jobs on {cluster}{moded}: one fixed "
                 f"set of jobs, so one run (seed {seed}) and no interval.")
        scenario = Scenario("Your workload", story, workload=loaded, cluster=cluster,
                            mode=mode, seed=seed)
    return scenario, repr((state.workload_key(), scenario.seeds))


@st.cache_resource(max_entries=KEPT, show_spinner=False)
def _box(key: str) -> dict[str, Outcome]:
    """A server-wide box per key, empty until its outcome is put in it."""
    return {}


@st.cache_resource(show_spinner="Computing the default demo once for everyone…")
def warm(key: str, _scenario: Scenario) -> Outcome:
    """The default settings' "Your workload", computed once per server with the named
    scenarios, so the class's first click on Run the demo finds it ready."""
    return known(key) or keep(key, compute(_scenario))


def known(key: str) -> Outcome | None:
    """The outcome kept for ``key``, if any session computed it (and it is still kept)."""
    return _box(key).get("outcome")


def keep(key: str, result: Outcome) -> Outcome:
    _box(key)["outcome"] = result
    return result
