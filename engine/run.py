"""Run one named policy on one workload: the unit every command and page builds on."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any

from engine.budget import BudgetExceeded, RunBudget
from engine.cluster import Cluster
from engine.errors import USER_ERRORS, describe
from engine.job import Job
from engine.parallel import Executor, Progress, borrowed
from engine.policies import make_policy
from engine.policies.tuned import TunedPolicy
from engine.simulator import SimulationResult, simulate


def run_policy(
    name: str,
    jobs: Sequence[Job],
    cluster: Cluster,
    seed: int = 0,
    budget: RunBudget | None = None,
    **delays: float,
) -> SimulationResult:
    """Run the policy called ``name``; a tuned one runs every candidate and keeps the best.

    ``delays`` (``restart_delay``, ``start_delay``) reach the elastic simulator, for the
    policies that preempt or resize (see :func:`engine.simulator.make_simulator`); each
    simulation is held to ``budget`` (``engine.budget``; none: no limit).

    A tuned policy's result is its winning candidate's run, renamed, with the sweep
    table in ``extras[policy.sweep_key]`` (for threshold-optimal: ``threshold_sweep``).
    """
    policy = make_policy(name)
    if not isinstance(policy, TunedPolicy):
        return simulate(jobs, cluster, policy, seed, budget, **delays)
    results = [simulate(jobs, cluster, c.policy, seed, budget, **delays)
               for c in policy.candidates()]
    best, table = policy.sweep([r.summary.avg_jct for r in results])
    return replace(results[best], policy=name, extras={policy.sweep_key: table})


def run_pairs(
    pairs: Sequence[tuple[int, str]],
    workloads: Mapping[int, Sequence[Job]],
    cluster: Cluster,
    executor: Executor | None = None,
    progress: Progress | None = None,
    budget: RunBudget | None = None,
) -> list[SimulationResult | str]:
    """Each ``(seed, policy)``'s whole run on ``workloads[seed]`` (policy seed ``seed``),
    or why it could not run (a user error's message), as one ``executor`` map.

    What the app's Compare needs (every run's jobs and timeline, not just a summary);
    ``engine.compare.compare`` is the table-only version. A run past ``budget`` ends the
    whole map with its ``BudgetExceeded``: one message, not one per policy.
    """
    results: list[Any] = [None] * len(pairs)
    if progress is not None:
        progress(0, len(pairs))
    for done, (index, outcome) in enumerate(
            pair_outcomes(pairs, workloads, cluster, executor, budget), 1):
        results[index] = outcome
        if progress is not None:
            progress(done, len(pairs))
    return results


def pair_outcomes(
    pairs: Sequence[tuple[int, str]],
    workloads: Mapping[int, Sequence[Job]],
    cluster: Cluster,
    executor: Executor | None = None,
    budget: RunBudget | None = None,
) -> Iterator[tuple[int, SimulationResult | str]]:
    """:func:`run_pairs`' outcomes as they finish, each with its index in ``pairs``: a
    caller can keep every run the moment it ends, so a press stopped midway (one that
    gave way to others, ``engine.budget.Yielded``) keeps what it finished."""
    work = sum(len(workloads[seed]) for seed, _ in pairs)
    with borrowed(executor) as pool:
        yield from pool.completed(_pair, pairs, shared=(workloads, cluster, budget), work=work,
                                  give_way=None if budget is None else budget.give_way)


def attempt(run: Callable[..., SimulationResult], *args: Any) -> SimulationResult | str:
    """``run(*args)``, or a user error's message (its policy is then left out of a
    comparison). A budget stop is raised, not returned: it ends the whole comparison."""
    try:
        return run(*args)
    except BudgetExceeded:
        raise
    except USER_ERRORS as error:
        return describe(error)


def _pair(
    shared: tuple[Mapping[int, Sequence[Job]], Cluster, RunBudget | None], pair: tuple[int, str]
) -> SimulationResult | str:
    """One run of :func:`run_pairs` (an executor task: workers import it by name)."""
    workloads, cluster, budget = shared
    seed, name = pair
    return attempt(run_policy, name, workloads[seed], cluster, seed, budget)
