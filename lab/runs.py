"""The policies a session can pick, and their runs on the active workload, cached.

``drl`` runs the shipped weights, loaded once per server process; policies trained on
the Train page are kept per session and offered next to the registry's. Every run goes
through ``engine.run.run_policy`` (or ``simulate`` for a trained policy), exactly what
``python -m engine`` runs, and a comparison's runs are one map of an
``engine.parallel.Executor`` (worker processes, or Ray when ``RAY_ADDRESS`` is set).
Registry runs are kept in one server-wide store keyed by the workload's content, so a
class pressing Run comparison on the same settings computes it once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import suppress
from dataclasses import replace
from typing import Any

import pandas as pd
import streamlit as st

from engine.budget import RunBudget
from engine.drl.pretrained import PretrainedPolicy, shipped_policy
from engine.errors import USER_ERRORS, describe
from engine.job import MODES, Job
from engine.modes import mode_candidates, mode_runs
from engine.parallel import Executor, cores, default_backend, describe_backend
from engine.policies import POLICIES, Policy, make_policy
from engine.policies.drl import DrlPolicy
from engine.policies.tuned import TunedPolicy
from engine.run import attempt, pair_outcomes, run_policy
from engine.simulator import SimulationResult, simulate
from engine.workload import generate, to_jobs
from engine.workload.schema import YEAR
from lab import state

RUN_BUDGET = RunBudget(
    events=1_000_000, span=10 * YEAR, wall_s=120.0, memory_mb=1_000.0,
    advice="use fewer or shorter jobs, fewer policies or seeds, or a bigger cluster, or run "
           "it from the command line (python -m engine), which has no budget")
"""What one press of Run comparison, Run job modes, Run the demo or Evaluate may use, all
its runs together for the wall time (``engine.budget``). The largest workloads the app
takes (20,000 jobs at load 0.85 on 64 GPUs) need about 120,000 event times, 45 simulated
days and 40 s on ``pollux-like``, the slowest policy, and add about 120 MB: the budget is
several times that, so it stops only runs that would hold the line for minutes."""

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


DEFAULT_COMPARISON: tuple[str, ...] = tuple(
    next(s.default for s in state.SETTINGS if s.name == "policies").split(","))
"""What Compare starts with (the ``policies`` setting's default): the learned scheduler,
the hindsight-tuned rule, what Slurm/Kubernetes and Mesos do today, and the best simple
heuristic. Five lines stay readable on a projector; the rest are one click away."""


def chosen() -> list[str]:
    """Compare's chosen policies: the ``policies`` setting (in the link), then this
    session's trained ones, which a link cannot carry."""
    linked = [n for n in str(state.get("policies")).split(",") if n]
    return [*linked, *st.session_state.get("cmp_trained", [])]


def choose(names: Sequence[str]) -> None:
    """Make ``names`` Compare's choice: registry ones into the link, trained ones kept here."""
    state.put("policies", ",".join(n for n in names if n in POLICIES))
    st.session_state["cmp_trained"] = [n for n in names if n in trained()]


def choose_all() -> None:
    """A button's callback target: every policy this session can run."""
    choose(policy_names())


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
    return run_on(name, state.workload_key(), state.jobs(), state.seed(), RUN_BUDGET.start())


def run_on(
    name: str, key: tuple, jobs: Sequence[Job], seed: int, budget: RunBudget
) -> SimulationResult:
    """One run, in this process, held to ``budget`` but for memory (this process's memory is
    every session's, not this run's); registry policies are cached across sessions by the
    workload's content."""
    budget = replace(budget, memory_mb=None)
    if name in trained():
        return simulate(jobs, state.cluster(), make(name), seed, budget)
    if name == "drl":
        pretrained()  # a missing or corrupt file is reported once, before any run
    stored = _run_key(name, key, seed)
    try:
        return _stored(stored)
    except _NotStored:
        return _stored(stored, run_policy(name, jobs, state.cluster(), seed, budget))


class _NotStored(Exception):
    """A look-up found nothing: raised inside :func:`_stored`, so nothing is stored."""


@st.cache_data(max_entries=512, show_spinner=False)
def _stored(key: tuple, _value: Any = None) -> Any:
    """The server-wide store: what ``key`` holds, else ``_value`` stored under it.

    A cache rather than a dict so that it has Streamlit's bound, copy on read and
    ``st.cache_data.clear()``; looking without a value raises :class:`_NotStored` (not
    cached), which lets a comparison find its missing runs and compute them in one map.
    ``key`` identifies the value (the workload's content, the cluster, the seed).
    """
    if _value is None:
        raise _NotStored
    return _value


def _run_key(name: str, key: tuple, seed: int) -> tuple:
    cluster = state.cluster()
    return ("run", name, key, (cluster.nodes, cluster.gpus_per_node), seed)


def seed_workloads(first: int, count: int) -> dict[int, tuple[tuple, list[Job]]]:
    """The workloads a comparison over ``count`` seeds uses, as the CLI's ``compare``.

    A generated workload is redrawn per seed; a loaded one is the same jobs each time
    (then only the policies' seeds vary). Either is in the Workload page's job mode.
    """
    cluster = state.cluster()
    out: dict[int, tuple[tuple, list[Job]]] = {}
    for seed in range(first, first + count):
        if state.origin() == "generated":
            config = replace(state.generator_config(), seed=seed)
            key = ("generated", repr(config), cluster, state.job_mode())
            out[seed] = (key, to_jobs(generate(config, cluster), cluster, state.job_mode()))
        else:
            out[seed] = (state.workload_key(), state.jobs())
    return out


def compare_runs(
    names: Sequence[str], first: int, count: int, progress: Callable[[int, int], None],
    budget: RunBudget,
) -> tuple[dict[int, dict[str, SimulationResult]], dict[str, str]]:
    """Every policy on every seed's workload: ``{seed: {policy: result}}``.

    Stored runs are taken as they are; the other registry runs are one executor map,
    each stored as it ends (a press that gives way keeps them for its next turn), and a
    session's trained policies (torch weights of this session) run here after it.
    A policy that cannot run (e.g. ``drl`` without its weights file) is left out and
    reported in the second value, ``{policy: why}``, so the others are still compared.
    All runs share one ``budget`` (:data:`RUN_BUDGET`, started); past it,
    ``BudgetExceeded`` ends them all.
    """
    workloads = seed_workloads(first, count)
    skipped: dict[str, str] = {}
    if "drl" in names:
        try:
            pretrained()
        except USER_ERRORS as error:
            skipped["drl"] = describe(error)
    pairs = [(seed, name) for seed in workloads for name in names if name not in skipped]
    found: dict[tuple[int, str], SimulationResult | str] = {}
    for seed, name in pairs:
        if name not in trained():
            with suppress(_NotStored):
                found[seed, name] = _stored(_run_key(name, workloads[seed][0], seed))
    total, base = len(pairs), len(found)
    progress(base, total)
    missing = [(seed, name) for seed, name in pairs
               if (seed, name) not in found and name not in trained()]
    if missing:  # an executor may connect somewhere (Ray): only when there is work
        for index, result in pair_outcomes(
                missing, {seed: jobs for seed, (_, jobs) in workloads.items()},
                state.cluster(), executor(), budget):
            seed, name = missing[index]
            found[seed, name] = result
            if isinstance(result, SimulationResult):
                _stored(_run_key(name, workloads[seed][0], seed), result)
            progress(len(found), total)
    for seed, name in pairs:
        if name in trained():
            found[seed, name] = attempt(run_on, name, *workloads[seed], seed, budget)
            progress(len(found), total)
    for (_, name), outcome in found.items():
        if isinstance(outcome, str):
            skipped.setdefault(name, outcome)
    results: dict[int, dict[str, SimulationResult]] = {seed: {} for seed in workloads}
    for seed, name in pairs:
        if name not in skipped:
            results[seed][name] = found[seed, name]
    return results, skipped


@st.cache_resource(show_spinner=False)
def executor() -> Executor:
    """The server's one executor for heavy runs, shared by every session and started once.

    On this machine: worker processes on every core but one, even for small maps, so the
    server process (whose one interpreter lock every page's script shares) and a core stay
    with the pages while a comparison runs; the server-wide line runs one heavy job at a
    time. With ``RAY_ADDRESS`` set: that Ray cluster.
    """
    if default_backend() == "ray":
        return Executor("ray")
    return Executor(workers=_workers(), offload=True).start(
        "engine.run", "engine.compare", "engine.policies.drl")


def where_heavy_runs_go() -> str:
    """Where :func:`executor` runs things, said without starting or connecting anything
    (every page shows it; an unreachable Ray would cost each page its time-out)."""
    return describe_backend(workers=_workers())


def _workers() -> int:
    return max(1, cores() - 1)


def compare_modes(
    first: int, count: int, progress: Callable[[int, int], None], budget: RunBudget
) -> tuple[pd.DataFrame, dict[str, str]]:
    """The active workload as rigid, moldable and malleable jobs over ``count`` seeds:
    ``engine.modes.mode_runs``'s table (stored server-wide), and the candidates left out;
    every run held to ``budget`` (:data:`RUN_BUDGET`, started).
    """
    workloads = seed_workloads(first, count)
    cluster = state.cluster()
    plan: dict[str, list[str]] = {}
    skipped: dict[str, str] = {}
    for mode in MODES:
        plan[mode], left_out = mode_candidates(mode, cluster)
        skipped |= left_out
    key = ("modes", tuple(k for k, _ in workloads.values()),
           (cluster.nodes, cluster.gpus_per_node), tuple(workloads), repr(plan))
    try:
        return _stored(key), skipped
    except _NotStored:
        pass
    table = mode_runs(plan, {seed: jobs for seed, (_, jobs) in workloads.items()},
                      cluster, executor=executor(), progress=progress, budget=budget)
    return _stored(key, table), skipped
