"""The same workloads as rigid, moldable and malleable jobs, each mode with its best policy.

"What elasticity buys" is one table: every job of a workload is made rigid (it runs
exactly its request), moldable (a GPU count chosen at start) or malleable (resized while
it runs) with :func:`engine.job.with_mode`, the policies that make sense for that mode run
on it, and the mode is scored by its best policy's mean average JCT over the seeds.

Each policy is a candidate of exactly one mode, the one whose freedom it uses:

* rigid: the rules that run jobs on their request, ``fifo-request``, ``fifo-backfill``,
  ``mesos-offer``, and the elastic policies that preempt jobs but never resize them
  (``tiresias``; preemption is not a job mode: a job of any mode may be paused and
  resumed);
* moldable: every other policy of :data:`engine.policies.POLICIES`, the ones that choose
  a GPU count at start (``drl`` and ``threshold-optimal`` included);
* malleable: the elastic policies that resize running jobs (``optimus-elastic``,
  ``afs-elastic``, ``pollux-like``).

The elastic runs also count their restarts: each resize and each resume after a
preemption holds the job's GPUs for the restart delay without progress.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pandas as pd

from engine.budget import RunBudget
from engine.cluster import Cluster
from engine.compare import METRICS, SUMMARY_METRICS, runnable_policies, summarize_comparison
from engine.errors import UnknownName
from engine.job import MODES, Job, with_mode
from engine.parallel import Executor, Progress, borrowed
from engine.policies import ELASTIC_POLICIES, POLICIES
from engine.run import run_policy
from engine.simulator import Summary

REQUEST_RULES: tuple[str, ...] = ("fifo-request", "fifo-backfill", "mesos-offer")
"""Moldable-registry policies that only ever run a job on its request: rigid policies."""
_RESIZING = {name: entry.load().resizes for name, entry in ELASTIC_POLICIES.items()}
MODE_POLICIES: dict[str, tuple[str, ...]] = {
    "rigid": (*REQUEST_RULES, *(name for name, resizes in _RESIZING.items() if not resizes)),
    "moldable": tuple(name for name in POLICIES if name not in REQUEST_RULES),
    "malleable": tuple(name for name, resizes in _RESIZING.items() if resizes),
}
COUNTS: tuple[str, ...] = ("resizes", "preemptions", "restarts")
"""Per run, summed over its jobs (0 for a policy that neither preempts nor resizes)."""
MODE_METRICS: tuple[str, ...] = (*SUMMARY_METRICS, *COUNTS)


def check_mode(mode: str) -> str:
    """``mode`` itself, or ``UnknownName`` listing the modes."""
    if mode not in MODES:
        raise UnknownName(f"unknown job mode {mode!r}; known: {', '.join(MODES)}")
    return mode


def in_mode(jobs: Sequence[Job], mode: str) -> list[Job]:
    """Every job of ``jobs`` as a ``mode`` job (a rigid one accepts exactly its request)."""
    check_mode(mode)
    return [with_mode(job, mode) for job in jobs]


def mode_candidates(mode: str, cluster: Cluster) -> tuple[list[str], dict[str, str]]:
    """``mode``'s candidate policies that run here, and why each other one does not
    (e.g. ``drl`` without its weights file)."""
    runnable, skipped = runnable_policies(cluster)
    names = [n for n in MODE_POLICIES[check_mode(mode)] if n in runnable or n not in POLICIES]
    return names, {n: why for n, why in skipped.items() if n in MODE_POLICIES[mode]}


@dataclass(frozen=True)
class _Task:
    """One run: ``policy`` on workload ``seed`` with every job in ``mode``."""

    mode: str
    policy: str
    seed: int


@dataclass(frozen=True)
class _Outcome:
    """What a worker sends back: the summary and the counts, not the whole result."""

    summary: Summary
    resizes: int
    preemptions: int


def mode_runs(
    plan: Mapping[str, Sequence[str]],
    workloads: Mapping[int, Sequence[Job]],
    cluster: Cluster,
    *,
    executor: Executor | None = None,
    progress: Progress | None = None,
    budget: RunBudget | None = None,
) -> pd.DataFrame:
    """One row per (mode, policy, seed): ``mode, policy, seed``, ``METRICS`` and ``COUNTS``.

    ``plan`` maps a mode to the policies to run on its jobs; ``workloads`` maps a seed to
    its jobs (as :func:`engine.compare.resolve_workloads` gives them), the seed also being
    the policies' seed. All runs are one map of ``executor`` (default: a local one, which
    keeps small work in-process), so the numbers are the same on every backend. Every run
    is held to ``budget`` (``engine.budget``; none: no limit).
    """
    shared = ({mode: {seed: in_mode(jobs, mode) for seed, jobs in workloads.items()}
               for mode in plan}, cluster, budget)
    tasks = [_Task(mode, name, seed) for mode, names in plan.items() for seed in workloads
             for name in names]
    work = sum(len(workloads[task.seed]) for task in tasks)
    with borrowed(executor) as pool:
        outcomes = pool.map(_run, tasks, shared=shared, work=work, progress=progress,
                            give_way=None if budget is None else budget.give_way)
    rows = [{"mode": task.mode, "policy": task.policy, "seed": task.seed,
             **{m: getattr(out.summary, m) for m in METRICS},
             "resizes": out.resizes, "preemptions": out.preemptions,
             "restarts": out.resizes + out.preemptions}
            for task, out in zip(tasks, outcomes, strict=True)]
    return pd.DataFrame(rows, columns=["mode", "policy", "seed", *METRICS, *COUNTS])


def summarize_modes(table: pd.DataFrame) -> pd.DataFrame:
    """Per mode (in ``MODES`` order) its best policy by mean average JCT.

    Columns: ``mode, policy, candidates, runs`` and each of ``MODE_METRICS``'s
    ``<m>_mean`` and ``<m>_ci95`` (Student-t over the seeds, NaN with one seed).
    """
    rows = []
    present = set(table["mode"])
    for mode in (m for m in MODES if m in present):
        summary = summarize_comparison(table[table["mode"] == mode], MODE_METRICS)
        rows.append({"mode": mode, "candidates": len(summary), **summary.iloc[0].to_dict()})
    columns = ["mode", "policy", "candidates", "runs",
               *(f"{m}_{s}" for m in MODE_METRICS for s in ("mean", "ci95"))]
    return pd.DataFrame(rows, columns=columns)


def _run(
    shared: tuple[Mapping[str, Mapping[int, Sequence[Job]]], Cluster, RunBudget | None],
    task: _Task,
) -> _Outcome:
    """One run's summary and restart counts (an executor task)."""
    workloads, cluster, budget = shared
    result = run_policy(task.policy, workloads[task.mode][task.seed], cluster, task.seed,
                        budget)
    jobs = result.jobs
    counts = [int(jobs[c].sum()) if c in jobs else 0 for c in ("resizes", "preemptions")]
    return _Outcome(result.summary, *counts)
