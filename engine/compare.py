"""Policies side by side on the same workloads, with a mean and 95% CI per policy.

Every (policy, workload) pair is one run; a tuned policy (``threshold-optimal``) is
split into one run per candidate so its sweep spreads over the cores like the rest.
Runs go to worker processes when there are several cores and enough work to repay
starting them (a spawned worker re-imports the engine, seconds on a busy machine);
workers are spawned, never forked, so this is safe under threaded hosts like the app.
"""

from __future__ import annotations

import math
import multiprocessing
import os
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from engine.cluster import Cluster
from engine.job import Job
from engine.policies import POLICIES, Policy, make_policy
from engine.policies.threshold_optimal import ThresholdOptimal
from engine.policies.tuned import TunedPolicy
from engine.run import run_policy
from engine.simulator import SimulationResult, Summary, simulate
from engine.speedup import Linear
from engine.workload import GeneratorConfig, generate, to_jobs

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
PARALLEL_MIN_JOB_RUNS = 250_000
"""Simulated jobs (runs x jobs per run) below which one process beats starting workers."""

HELD_OUT = "threshold-held-out"
"""The threshold rule with (signal, T) tuned on the other workloads compared, not its own."""

Progress = Callable[[int, int], None]


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
            run_policy(name, probe, cluster)
        except Exception as error:  # any failure: report it rather than compare without it
            skipped[name] = f"{type(error).__name__}: {error}"
        else:
            names.append(name)
    return names, skipped


@dataclass(frozen=True)
class _Run:
    """One simulation: ``policy`` (or its ``candidate``-th candidate) on workload ``key``."""

    key: int
    policy: str
    candidate: int | None = None


def compare(
    policies: Sequence[str],
    workloads_or_seeds: Mapping[int, Sequence[Job]] | Sequence[int],
    cluster: Cluster,
    *,
    config: GeneratorConfig | None = None,
    processes: int | None = None,
    progress: Progress | None = None,
) -> pd.DataFrame:
    """One row per (policy, seed): ``policy, seed`` and every metric in ``METRICS``.

    ``workloads_or_seeds`` maps a seed to its jobs, or lists seeds to generate with
    ``config`` (default ``GeneratorConfig()``); the seed is also the policies' seed.
    ``processes`` forces the worker count (1 = this process); ``None`` decides from the
    cores and the amount of work. ``progress(done, total)`` is called as runs finish.
    Each tuned policy's sweep (its table plus ``policy, seed`` columns) is in
    ``df.attrs[policy.sweep_key]`` as a list of records.
    """
    workloads = _workloads(workloads_or_seeds, cluster, config)
    tuned = {name: p for name in policies if isinstance(p := make_policy(name), TunedPolicy)}
    plan = {(key, name): _runs(key, name, tuned) for key in workloads for name in policies}
    summaries = _execute([run for row in plan.values() for run in row], workloads, cluster,
                         processes, progress)
    rows, sweeps = [], {}
    for key in workloads:
        for name in policies:
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


def _runs(key: int, name: str, tuned: Mapping[str, TunedPolicy]) -> list[_Run]:
    """The runs behind one row: the policy itself, or each candidate of a tuned one."""
    if name not in tuned:
        return [_Run(key, name)]
    return [_Run(key, name, i) for i in range(len(tuned[name].candidates()))]


def summarize_comparison(
    table: pd.DataFrame, metrics: Sequence[str] = SUMMARY_METRICS
) -> pd.DataFrame:
    """Per policy: ``runs`` and each metric's ``<m>_mean`` and ``<m>_ci95`` (half-width).

    The interval is Student's t over the seeds (NaN with one seed); rows are sorted by
    mean average JCT, best first.
    """
    rows = []
    for policy, group in table.groupby("policy", sort=False):
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
    from scipy import stats  # here, not at import: only intervals need it, and it is slow to load

    return mean, float(stats.t.ppf(0.975, n - 1) * stats.sem(values))


def _workloads(
    workloads_or_seeds: Mapping[int, Sequence[Job]] | Sequence[int],
    cluster: Cluster,
    config: GeneratorConfig | None,
) -> Mapping[int, Sequence[Job]]:
    if isinstance(workloads_or_seeds, Mapping):
        return workloads_or_seeds
    base = GeneratorConfig() if config is None else config
    return {
        seed: to_jobs(generate(replace(base, seed=seed), cluster), cluster)
        for seed in workloads_or_seeds
    }


def _execute(
    runs: list[_Run],
    workloads: Mapping[int, Sequence[Job]],
    cluster: Cluster,
    processes: int | None,
    progress: Progress | None,
) -> dict[_Run, Summary]:
    workers = _worker_count(runs, workloads, processes)
    done: dict[_Run, Summary] = {}
    if progress is not None:
        progress(0, len(runs))
    if workers == 1:
        for run in runs:
            done[run] = _summary(run, workloads, cluster)
            if progress is not None:
                progress(len(done), len(runs))
        return done
    with ProcessPoolExecutor(
        max_workers=workers,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_init_worker,
        initargs=(workloads, cluster),
    ) as pool:
        futures = {pool.submit(_work, run): run for run in runs}
        for future in as_completed(futures):
            done[futures[future]] = future.result()
            if progress is not None:
                progress(len(done), len(runs))
    return {run: done[run] for run in runs}


def _worker_count(
    runs: Sequence[_Run], workloads: Mapping[int, Sequence[Job]], processes: int | None
) -> int:
    if processes is not None:
        return max(1, min(processes, len(runs)))
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    job_runs = sum(len(workloads[run.key]) for run in runs)
    if (cores or 1) < 2 or job_runs < PARALLEL_MIN_JOB_RUNS:
        return 1
    return min(cores or 1, len(runs))


def _policy(run: _Run) -> Policy:
    policy = make_policy(run.policy)
    if run.candidate is None:
        return policy
    assert isinstance(policy, TunedPolicy)
    return policy.candidates()[run.candidate].policy


def _summary(run: _Run, workloads: Mapping[int, Sequence[Job]], cluster: Cluster) -> Summary:
    return simulate(workloads[run.key], cluster, _policy(run), seed=run.key).summary


_worker_workloads: Mapping[int, Sequence[Job]] = {}
_worker_cluster = Cluster()


def _init_worker(workloads: Mapping[int, Sequence[Job]], cluster: Cluster) -> None:
    """Receive the workloads once per worker rather than once per run."""
    global _worker_workloads, _worker_cluster
    _worker_workloads, _worker_cluster = workloads, cluster


def _work(run: _Run) -> Summary:
    return _summary(run, _worker_workloads, _worker_cluster)
