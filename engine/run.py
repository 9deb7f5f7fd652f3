"""Run one named policy on one workload: the unit every command and page builds on."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from engine.cluster import Cluster
from engine.job import Job
from engine.policies import make_policy
from engine.policies.tuned import TunedPolicy
from engine.simulator import SimulationResult, simulate


def run_policy(
    name: str, jobs: Sequence[Job], cluster: Cluster, seed: int = 0, **delays: float
) -> SimulationResult:
    """Run the policy called ``name``; a tuned one runs every candidate and keeps the best.

    ``delays`` (``restart_delay``, ``start_delay``) reach the elastic simulator, for the
    policies that preempt or resize (see :func:`engine.simulator.make_simulator`).

    A tuned policy's result is its winning candidate's run, renamed, with the sweep
    table in ``extras[policy.sweep_key]`` (for threshold-optimal: ``threshold_sweep``).
    """
    policy = make_policy(name)
    if not isinstance(policy, TunedPolicy):
        return simulate(jobs, cluster, policy, seed, **delays)
    results = [simulate(jobs, cluster, c.policy, seed, **delays) for c in policy.candidates()]
    best, table = policy.sweep([r.summary.avg_jct for r in results])
    return replace(results[best], policy=name, extras={policy.sweep_key: table})
