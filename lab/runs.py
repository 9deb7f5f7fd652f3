"""The policies a session can pick, and their runs on the active workload, cached.

``drl`` runs the shipped weights, loaded once per server process; policies trained on
the Train page are kept per session and offered next to the registry's. Every run goes
through ``engine.compare.run_policy`` (or ``simulate`` for a trained policy), exactly
what ``python -m engine`` runs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import streamlit as st

from engine.cluster import Cluster
from engine.drl.pretrained import PretrainedPolicy, shipped_policy
from engine.errors import USER_ERRORS, describe
from engine.job import Job
from engine.policies import POLICIES, Policy, make_policy
from engine.policies.drl import DrlPolicy
from engine.policies.tuned import TunedPolicy
from engine.run import run_policy
from engine.simulator import SimulationResult, simulate
from engine.workload import generate, to_jobs
from lab import state

REFERENCE = "threshold-optimal"
"""The best tuned threshold method: what the research's ~20% claim is measured against."""


@st.cache_resource(show_spinner="Loading the pretrained DRL policy…")
def pretrained() -> PretrainedPolicy:
    """The verified shipped weights, once per server process (all sessions share them)."""
    return shipped_policy()


def trained() -> dict[str, dict[str, Any]]:
    """Policies trained in this session: name -> {"state": weights, "run": TrainingRun}."""
    return st.session_state["trained"]


def policy_names() -> list[str]:
    """Registry policies (``drl`` first), then this session's trained ones."""
    return [*sorted(POLICIES, key=lambda n: (n != "drl", n)), *trained()]


DEFAULT_COMPARISON = ("drl", REFERENCE, "fifo-request", "mesos-offer", "sjf-knee")
"""What Compare starts with: the learned scheduler, the hindsight-tuned rule, what
Slurm/Kubernetes and Mesos do today, and the best simple heuristic. Five lines stay
readable on a projector; the rest are one click away."""


def default_comparison() -> list[str]:
    return list(DEFAULT_COMPARISON)


def choose_all(key: str) -> None:
    """A multiselect's callback target: every policy this session can run."""
    st.session_state[key] = policy_names()


def baseline_names() -> list[str]:
    return [n for n in sorted(POLICIES) if n != "drl"]


def make(name: str) -> Policy:
    """A policy object to simulate step by step (the Live page).

    A tuned policy cannot run event by event without knowing the outcome, so it is
    replaced by the candidate its tuning run on this workload picked.
    """
    if name in trained():
        return DrlPolicy(trained()[name]["state"])
    if name == "drl":
        return DrlPolicy(pretrained().actor)
    policy = make_policy(name)
    if isinstance(policy, TunedPolicy):
        sweep = run(name).extras[policy.sweep_key]
        return policy.candidates()[int(sweep.index[sweep["best"]][0])].policy
    return policy


def run(name: str) -> SimulationResult:
    """``name`` on the active workload, cluster and seed."""
    return run_on(name, state.workload_key(), state.jobs(), state.seed())


def run_on(name: str, key: tuple, jobs: Sequence[Job], seed: int) -> SimulationResult:
    """One run; registry policies are cached across sessions by the workload's content."""
    if name in trained():
        return simulate(jobs, state.cluster(), make(name), seed)
    if name == "drl":
        pretrained()  # a missing or corrupt file is reported once, before any run
    cluster = state.cluster()
    return _cached(name, key, (cluster.nodes, cluster.gpus_per_node), seed, jobs)


@st.cache_data(max_entries=512, show_spinner=False)
def _cached(
    name: str, key: tuple, shape: tuple[int, int], seed: int, _jobs: Sequence[Job]
) -> SimulationResult:
    """``key`` identifies ``_jobs`` (which is not hashed: it is derived from ``key``)."""
    del key
    return run_policy(name, _jobs, Cluster(*shape), seed)


def seed_workloads(first: int, count: int) -> dict[int, tuple[tuple, list[Job]]]:
    """The workloads a comparison over ``count`` seeds uses, as the CLI's ``compare``.

    A generated workload is redrawn per seed; a loaded one is the same jobs each time
    (then only the policies' seeds vary).
    """
    cluster = state.cluster()
    out: dict[int, tuple[tuple, list[Job]]] = {}
    for seed in range(first, first + count):
        if state.origin() == "generated":
            config = replace(state.generator_config(), seed=seed)
            key = ("generated", repr(config), cluster)
            out[seed] = (key, to_jobs(generate(config, cluster), cluster))
        else:
            out[seed] = (state.workload_key(), state.jobs())
    return out


def compare_runs(
    names: Sequence[str], first: int, count: int, progress: Callable[[int, int], None]
) -> tuple[dict[int, dict[str, SimulationResult]], dict[str, str]]:
    """Every policy on every seed's workload: ``{seed: {policy: result}}``.

    A policy that cannot run (e.g. ``drl`` without its weights file) is left out and
    reported in the second value, ``{policy: why}``, so the others are still compared.
    """
    workloads = seed_workloads(first, count)
    total, done = len(names) * len(workloads), 0
    results: dict[int, dict[str, SimulationResult]] = {seed: {} for seed in workloads}
    skipped: dict[str, str] = {}
    for seed, (key, jobs) in workloads.items():
        for name in names:
            if name not in skipped:
                try:
                    results[seed][name] = run_on(name, key, jobs, seed)
                except USER_ERRORS as error:
                    skipped[name] = describe(error)
            done += 1
            progress(done, total)
    return results, skipped

