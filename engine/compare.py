"""Policies side by side on the same workloads, with a mean and 95% CI per policy.

Every (policy, workload) pair is one run; a tuned policy (``threshold-optimal``) is
split into one run per candidate so its sweep spreads over the cores like the rest.
The runs are tasks of an :class:`engine.parallel.Executor` (in-process, local worker
processes, or Ray), which computes the same numbers on each.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from engine.budget import RunBudget
from engine.cluster import Cluster
from engine.job import Job
from engine.parallel import Executor, Progress, borrowed
from engine.policies import POLICIES, Policy, make_policy
from engine.policies.threshold_optimal import ThresholdOptimal
from engine.policies.tuned import TunedPolicy
from engine.simulator import SimulationResult, Summary, make_simulator, simulate
from engine.speedup import Linear
from engine.workload import GeneratorConfig, Workload, generate, to_jobs

METRICS: tuple[str, ...] = (
    "avg_jct",
    "p50_jct",
    "p95_jct",
    "makespan",
    "utilization",
    "avg_wait",
    "lower_bound_avg_jct",
)
SUMMARY_METRICS: tuple[str, ...] = ("avg_jct", "p95_jct", "makespan", "utilization")
HELD_OUT = "threshold-held-out"
"""The threshold rule with (signal, T) tuned on the other workloads compared, not its own."""

def runnable_policies(cluster: Cluster) -> tuple[list[str], dict[str, str]]:
    """Every registered policy that runs here, and why each other one does not.

    A policy may need files that are not there (e.g. trained weights); each is tried on
    a one-job workload so that "all policies" means all that can run.
    """
    probe = [Job(0, "probe", 0.0, 1.0, "probe", Linear(), min_gpus=1, max_gpus=1)]
    names: list[str] = []
    skipped: dict[str, str] = {}
    for name in POLICIES:
        try:
            policy = make_policy(name)
            if isinstance(policy, TunedPolicy):  # its candidates share what it needs
                policy = policy.candidates()[0].policy
            simulator = make_simulator(probe, cluster, policy)
            while simulator.step():  # the run, without building a result nobody reads
                pass
        except Exception as error:  # any failure: report it rather than compare without it
            skipped[name] = f"{type(error).__name__}: {error}"
        else:
            names.append(name)
    return names, skipped


@dataclass(frozen=True)
class Comparison:
    """One table to compute: ``policies`` on each of ``workloads`` (seed -> jobs) on ``cluster``."""

    policies: tuple[str, ...]
    workloads: Mapping[int, Sequence[Job]]
    cluster: Cluster


@dataclass(frozen=True)
class _Run:
    """One simulation: ``policy`` (or its ``candidate``-th candidate) on workload ``key`` of
    comparison ``table``."""

    table: int
    key: int
    policy: str
    candidate: int | None = None


def compare(
    policies: Sequence[str],
    workloads_or_seeds: Mapping[int, Sequence[Job]] | Sequence[int],
    cluster: Cluster,
    *,
    config: GeneratorConfig | None = None,
    executor: Executor | None = None,
    progress: Progress | None = None,
    budget: RunBudget | None = None,
) -> pd.DataFrame:
    """One row per (policy, seed): ``policy, seed`` and every metric in ``METRICS``.

    ``workloads_or_seeds`` maps a seed to its jobs, or lists seeds to generate with
    ``config`` (default ``GeneratorConfig()``); the seed is also the policies' seed.
    The runs go to ``executor`` (default: a local one, in-process for small work).
    ``progress(done, total)`` is called as runs finish. Each tuned policy's sweep (its
    table plus ``policy, seed`` columns) is in ``df.attrs[policy.sweep_key]`` as a list
    of records. Every run is held to ``budget`` (``engine.budget``; none: no limit).
    """
    workloads = resolve_workloads(workloads_or_seeds, cluster, config)
    (table,) = compare_all([Comparison(tuple(policies), workloads, cluster)], executor,
                           progress, budget)
    return table


def compare_all(
    comparisons: Sequence[Comparison],
    executor: Executor | None = None,
    progress: Progress | None = None,
    budget: RunBudget | None = None,
) -> list[pd.DataFrame]:
    """:func:`compare`'s table for each comparison, every run of them all in one map.

    One map, so the workers start once and no table waits for the last run of another.
    """
    names = {name for c in comparisons for name in c.policies}
    tuned = {name: p for name in names if isinstance(p := make_policy(name), TunedPolicy)}
    plans = [{(key, name): _runs(i, key, name, tuned) for key in c.workloads for name in c.policies}
             for i, c in enumerate(comparisons)]
    runs = [run for plan in plans for row in plan.values() for run in row]
    work = sum(len(comparisons[run.table].workloads[run.key]) for run in runs)
    shared = ([(c.workloads, c.cluster) for c in comparisons], budget)
    with borrowed(executor) as pool:
        summaries = dict(zip(runs, pool.map(
            _summary, runs, shared=shared, work=work, progress=progress,
            give_way=None if budget is None else budget.give_way), strict=True))
    return [_tabulate(c, plan, summaries, tuned)
            for c, plan in zip(comparisons, plans, strict=True)]


def _tabulate(
    comparison: Comparison,
    plan: Mapping[tuple[int, str], list[_Run]],
    summaries: Mapping[_Run, Summary],
    tuned: Mapping[str, TunedPolicy],
) -> pd.DataFrame:
    rows, sweeps = [], {}
    for key in comparison.workloads:
        for name in comparison.policies:
            found = [summaries[run] for run in plan[key, name]]
            summary = found[0]
            if name in tuned:
                best, sweep = tuned[name].sweep([s.avg_jct for s in found])
                summary = found[best]
                sweeps.setdefault(tuned[name].sweep_key, []).extend(_records(sweep, name, key))
            rows.append(_row(name, key, summary))
    return _table(rows, sweeps)


def results_table(results: Mapping[int, Mapping[str, SimulationResult]]) -> pd.DataFrame:
    """:func:`compare`'s table (sweeps in ``attrs`` too) from runs already made.

    ``results`` is ``{seed: {policy: result}}``, as a caller that keeps each run's jobs
    and timeline (the app) holds them; a tuned policy's sweep comes from its ``extras``.
    """
    rows, sweeps = [], {}
    for key, by_policy in results.items():
        for name, result in by_policy.items():
            for sweep_key, sweep in result.extras.items():
                if isinstance(sweep, pd.DataFrame):
                    sweeps.setdefault(sweep_key, []).extend(_records(sweep, name, key))
            rows.append(_row(name, key, result.summary))
    return _table(rows, sweeps)


def _records(sweep: pd.DataFrame, policy: str, key: int) -> list[dict]:
    return sweep.assign(policy=policy, seed=key).to_dict("records")


def _row(policy: str, key: int, summary: Summary) -> dict:
    return {"policy": policy, "seed": key, **{m: getattr(summary, m) for m in METRICS}}


def _table(rows: list[dict], sweeps: dict[str, list[dict]]) -> pd.DataFrame:
    table = pd.DataFrame(rows, columns=["policy", "seed", *METRICS])
    table.attrs.update(sweeps)
    return table


def held_out_tuning(sweep: pd.DataFrame) -> pd.Series:
    """Per seed: the average JCT of the setting that is best on the *other* seeds.

    ``sweep`` is one tuned policy's sweep records (as ``compare`` leaves them in
    ``attrs``): a row per (seed, setting) with ``avg_jct``. Tuning on the other workloads
    of a cell (leave-one-out) is how an operator would pick one setting for a kind of
    workload; tuning on the scored workload itself is the oracle. Ties go to the first
    setting in grid order, as in :meth:`TunedPolicy.sweep`.
    """
    settings = [c for c in sweep.columns if c not in ("avg_jct", "best", "policy", "seed")]
    grid = sweep.pivot_table(index=settings, columns="seed", values="avg_jct", sort=False)
    if grid.shape[1] < 2:
        raise ValueError("held-out tuning needs at least two workloads")
    jcts = grid.to_numpy()
    others = jcts.sum(axis=1, keepdims=True) - jcts  # (setting, seed): sum over other seeds
    picked = jcts[others.argmin(axis=0), np.arange(jcts.shape[1])]  # argmin: first of ties
    return pd.Series(picked, index=grid.columns, name="avg_jct")


def threshold_sweep(table: pd.DataFrame) -> pd.DataFrame:
    """threshold-optimal's sweep records of a comparison as one frame (empty without it)."""
    return pd.DataFrame(table.attrs.get(ThresholdOptimal.sweep_key, []))


def held_out_threshold(table: pd.DataFrame) -> pd.Series | None:
    """Per workload, ``HELD_OUT``'s average JCT from a comparison's threshold sweep.

    ``None`` when ``table`` has no threshold-optimal sweep or fewer than two workloads.
    """
    sweep = threshold_sweep(table)
    if sweep.empty or sweep["seed"].nunique() < 2:
        return None
    return held_out_tuning(sweep)


def with_held_out_threshold(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` plus one ``HELD_OUT`` row (``avg_jct`` only) per workload, given two or more."""
    held_out = held_out_threshold(table)
    if held_out is None:
        return table
    rows = pd.DataFrame({"policy": HELD_OUT, "seed": held_out.index, "avg_jct": held_out.values})
    merged = pd.concat([table, rows], ignore_index=True)
    merged.attrs.update(table.attrs)
    return merged


def _runs(table: int, key: int, name: str, tuned: Mapping[str, TunedPolicy]) -> list[_Run]:
    """The runs behind one row: the policy itself, or each candidate of a tuned one."""
    if name not in tuned:
        return [_Run(table, key, name)]
    return [_Run(table, key, name, i) for i in range(len(tuned[name].candidates()))]


def summarize_comparison(
    table: pd.DataFrame, metrics: Sequence[str] = SUMMARY_METRICS
) -> pd.DataFrame:
    """Per policy: ``runs`` and each metric's ``<m>_mean`` and ``<m>_ci95`` (half-width).

    The interval is Student's t over the seeds (NaN with one seed); rows are sorted by
    mean average JCT, best first.
    """
    rows = []
    plain = table.copy(deep=False)
    plain.attrs = {}  # pandas deep-copies attrs (the sweeps) into every group otherwise
    for policy, group in plain.groupby("policy", sort=False):
        row: dict[str, object] = {"policy": policy, "runs": len(group)}
        for metric in metrics:
            mean, half = mean_ci(group[metric].to_numpy(dtype=float))
            row[f"{metric}_mean"], row[f"{metric}_ci95"] = mean, half
        rows.append(row)
    summary = pd.DataFrame(rows)
    if "avg_jct_mean" in summary:
        summary = summary.sort_values("avg_jct_mean", kind="stable", ignore_index=True)
    return summary


def mean_ci(values: np.ndarray) -> tuple[float, float]:
    """Mean and the half-width of its 95% Student-t interval (NaN for one value)."""
    n = len(values)
    mean = float(values.mean())
    if n < 2:
        return mean, math.nan
    # scipy.special, not scipy.stats: the same Student-t quantile (stats.t.ppf calls
    # stdtrit) without the second it takes to import scipy.stats; here, not at import
    from scipy.special import stdtrit

    sem = np.std(values, ddof=1) / np.sqrt(n)  # scipy.stats.sem, computed the same way
    return mean, float(stdtrit(n - 1, 0.975) * sem)


def resolve_workloads(
    workloads_or_seeds: Mapping[int, Sequence[Job]] | Sequence[int],
    cluster: Cluster,
    config: GeneratorConfig | None = None,
    executor: Executor | None = None,
) -> Mapping[int, Sequence[Job]]:
    """Seed -> jobs: ``workloads_or_seeds`` itself, or its seeds generated with ``config``
    (one ``executor`` task per seed; default: here)."""
    (resolved,) = resolve_all([(workloads_or_seeds, cluster, config)], executor)
    return resolved


Workloads = tuple[Mapping[int, Sequence[Job]] | Sequence[int], Cluster, GeneratorConfig | None]
"""What :func:`resolve_workloads` takes: jobs per seed, or seeds to generate, on a cluster."""


def resolve_all(
    requests: Sequence[Workloads], executor: Executor | None = None
) -> list[Mapping[int, Sequence[Job]]]:
    """:func:`resolve_workloads` for each request, every workload to generate one task of a
    single ``executor`` map (default: here), so generating runs on the workers too."""
    tasks = [(i, seed) for i, (given, _, _) in enumerate(requests)
             if not isinstance(given, Mapping) for seed in given]
    shared = [(cluster, GeneratorConfig() if config is None else config)
              for _, cluster, config in requests]
    work = sum(shared[i][1].jobs for i, _ in tasks)
    with borrowed(executor, "serial") as pool:
        made = dict(zip(tasks, pool.map(_generated, tasks, shared=shared, work=work),
                        strict=True))
    # jobs are built here: every workload's jobs then share one speedup model object per
    # model (and its memo of run times), as they would have if generated here
    return [given if isinstance(given, Mapping) else
            {seed: to_jobs(made[i, seed], requests[i][1]) for seed in given}
            for i, (given, _, _) in enumerate(requests)]


def _generated(
    shared: Sequence[tuple[Cluster, GeneratorConfig]], task: tuple[int, int]
) -> Workload:
    """One generated workload (an executor task)."""
    cluster, config = shared[task[0]]
    return generate(replace(config, seed=task[1]), cluster)


def _policy(run: _Run) -> Policy:
    policy = make_policy(run.policy)
    if run.candidate is None:
        return policy
    assert isinstance(policy, TunedPolicy)
    return policy.candidates()[run.candidate].policy


def _summary(
    shared: tuple[Sequence[tuple[Mapping[int, Sequence[Job]], Cluster]], RunBudget | None],
    run: _Run,
) -> Summary:
    """One run's summary (an executor task: ``shared`` is every comparison's workloads and
    the budget)."""
    tables, budget = shared
    workloads, cluster = tables[run.table]
    return simulate(workloads[run.key], cluster, _policy(run), run.key, budget).summary
