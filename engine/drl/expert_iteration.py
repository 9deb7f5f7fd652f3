"""Expert iteration: clone the policy onto clairvoyant improvements of its own schedules.

PPO on two CPU cores sees too few episodes to find small, state-dependent gains: its
gradient is noisy where the return differs by a percent. The simulator, though, is
deterministic for a workload, so the better decision can be *searched for*:
:func:`engine.drl.shift_search.local_search` shifts per-job GPU counts of the policy's
schedule while the workload's average JCT drops. The student is then cloned
(cross-entropy) onto the searched actions in the states of the improved schedule, as in
expert iteration (Anthony et al., NeurIPS 2017) and AlphaZero, where a search around the
network is its teacher. The search knows the future, which the policy never does; cloned
over many workloads, the student learns the shift that helps on average in each state.
Each round searches around the best weights so far and adds its labels to the earlier
rounds'; the weights kept are those with the best validation score (training seeds only).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np

from engine.cluster import Cluster
from engine.drl.actor import as_array
from engine.drl.bc import Demonstrations, Label, clone, merge, play_episode
from engine.drl.shift_search import ShiftedPolicy, local_search
from engine.env.curriculum import TRAIN_SEEDS, Curriculum
from engine.env.moldable_env import MoldableEnv
from engine.job import Job
from engine.parallel import Executor, borrowed
from engine.policies.drl import DrlPolicy
from engine.preload import TRAINING, import_in_background
from engine.run import run_policy
from engine.simulator import simulate
from engine.workload import GeneratorConfig, generate, to_jobs

if TYPE_CHECKING:
    import torch

REFERENCE = "threshold-optimal"
"""Validation scores are average JCT relative to this baseline's, per workload."""

Progress = Callable[[Mapping[str, Any]], None]
_NO_REGRET = np.zeros(1, np.float32)
"""The weight of a searched action: it is the only label of its state."""
_NAN = float("nan")
_BLANK_ROW: dict[str, Any] = {"round": 0, "epoch": 0, "samples": 0, "headroom": _NAN,
                              "policy_loss": _NAN, "value_loss": _NAN, "val_score": _NAN}
"""A history row's fields before a phase fills in its own."""


def _search_curriculum() -> Curriculum:
    return Curriculum(cluster_gpus=(16, 32, 64, 128), jobs=(100, 200), loads=(0.6, 1.0))


@dataclass(frozen=True)
class ImproveConfig:
    """Hyper-parameters of an expert-iteration run."""

    seed: int = 0  # seeds the searched workloads and the cloning order
    rounds: int = 2  # search-then-clone rounds
    episodes: int = 80  # workloads searched per round
    passes: int = 2  # local-search sweeps over each workload's jobs
    epochs: int = 8  # cloning epochs per round (each validated)
    learning_rate: float = 3e-4  # cloning step size (small: it fine-tunes trained weights)
    gamma: float = 0.999  # discount of the value head's regression targets
    val_per_cell: int = 8  # validation workloads per (cluster, load) cell
    val_clusters: tuple[tuple[int, int], ...] = ((8, 4), (16, 4))  # (nodes, GPUs per node)
    val_loads: tuple[float, ...] = (0.7, 0.85, 1.0)  # offered loads of the validation cells
    val_jobs: int = 200  # jobs per validation workload
    workers: int = 2  # searches at once, when improve() is given no executor
    threads: int = 1  # torch intra-op threads while cloning
    curriculum: Curriculum = field(default_factory=_search_curriculum)  # searched workloads


@dataclass(frozen=True)
class ImproveResult:
    """The best weights, their score and the start's (mean avg JCT / reference's), per epoch."""

    best_state: dict[str, torch.Tensor]
    best_score: float
    start_score: float
    history: tuple[dict[str, Any], ...]
    seconds: float


@dataclass(frozen=True)
class Validation:
    """Fixed workloads (training seeds) and the reference's average JCT on each."""

    workloads: tuple[tuple[list[Job], Cluster], ...]
    reference: tuple[float, ...]

    def score(self, state: Mapping[str, Any], executor: Executor | None = None) -> float:
        """Mean over the workloads of the policy's average JCT / the reference's (lower wins).

        One ``executor`` task per workload (default: here, in order)."""
        tasks = list(zip(self.workloads, self.reference, strict=True))
        ratios = (executor or Executor("serial")).map(_ratio, tasks, shared=_numpy(state))
        return float(np.mean(ratios))


def _ratio(weights: Mapping[str, Any], task: tuple[tuple[list[Job], Cluster], float]) -> float:
    (jobs, cluster), reference = task
    return simulate(jobs, cluster, DrlPolicy(weights), 0).summary.avg_jct / reference


def _reference(_shared: None, workload: tuple[list[Job], Cluster]) -> float:
    jobs, cluster = workload
    return run_policy(REFERENCE, jobs, cluster).summary.avg_jct


def validation(config: ImproveConfig, executor: Executor | None = None) -> Validation:
    """Workloads like the evaluation cells, drawn from the training seeds.

    The reference's runs are ``executor`` tasks (default: here)."""
    rng = np.random.default_rng([config.seed, 31_337])
    workloads = []
    for nodes, per_node in config.val_clusters:
        cluster = Cluster(nodes, per_node)
        for load in config.val_loads:
            for seed in rng.integers(TRAIN_SEEDS.start, TRAIN_SEEDS.stop, config.val_per_cell):
                spec = GeneratorConfig(jobs=config.val_jobs, load=load, seed=int(seed))
                workloads.append((to_jobs(generate(spec, cluster), cluster), cluster))
    reference = tuple((executor or Executor("serial")).map(_reference, workloads))
    return Validation(tuple(workloads), reference)


def search_episode(
    state: Mapping[str, Any], curriculum: Curriculum, seed: tuple[int, ...], passes: int,
    gamma: float,
) -> tuple[Demonstrations, float]:
    """Search one curriculum workload around the policy; its improved states and actions.

    Returns the demonstrations (observation, mask, searched action, return) along the
    improved schedule and the fraction of average JCT the search removed.
    """
    jobs, cluster = curriculum.workload(np.random.default_rng(seed))
    choose = DrlPolicy(state).choose
    found = local_search(jobs, cluster, choose, passes)
    improved = ShiftedPolicy(choose, found.shifts)
    env = MoldableEnv(jobs=jobs, cluster=cluster)
    obs, info = env.reset()

    def label_and_act(_obs: np.ndarray, _info: dict) -> tuple[Label, int]:
        action, _ = improved.choose(env.decision)
        return ([action], _NO_REGRET), action

    return play_episode(env, obs, info, label_and_act, gamma), found.headroom


def improve(
    state: Mapping[str, Any],
    hidden: int,
    config: ImproveConfig = ImproveConfig(),
    progress: Progress | None = None,
    executor: Executor | None = None,
) -> ImproveResult:
    """Run ``config.rounds`` of search-then-clone from ``state``; the best weights found.

    ``state`` holds the weights as numpy arrays or torch tensors (the same values). The
    searches and the validation runs go to ``executor`` (default: ``config.workers``
    local processes, started once for every round); cloning runs here.
    """
    with borrowed(executor, "local", config.workers) as pool:
        return _improve(state, hidden, config, progress, pool)


def _improve(
    state: Mapping[str, Any],
    hidden: int,
    config: ImproveConfig,
    progress: Progress | None,
    executor: Executor,
) -> ImproveResult:
    started = time.perf_counter()
    # the workers first, then torch on a thread: it loads while they validate and search,
    # which need only numpy weights; the first cloning epoch waits for it
    executor.start()
    torch_loading = import_in_background(TRAINING)
    check = validation(config, executor)
    best_state = _numpy(state)
    best_score = start_score = check.score(best_state, executor)
    history: list[dict[str, Any]] = []

    def emit(keep: bool = True, **values: Any) -> None:
        row = {"seconds": round(time.perf_counter() - started, 1), **_BLANK_ROW, **values}
        if keep:
            history.append(row)
        if progress is not None:
            progress(row)

    emit(phase="start", val_score=start_score)
    searched: list[tuple[Demonstrations, float]] = []
    model = None
    for round_ in range(1, config.rounds + 1):
        seeds = [(config.seed, round_, episode) for episode in range(config.episodes)]
        found = search_all(best_state, config, seeds, partial(_searched, emit, round_), executor)
        searched += found
        data = merge(*(episode for episode, _ in searched))
        headroom = float(np.mean([h for _, h in found]))
        if model is None:
            if torch_loading is not None:
                torch_loading.join()
            model = _student(hidden, config)
        model.load_state_dict(_tensors(best_state))
        for epoch in range(1, config.epochs + 1):
            policy_loss, value_loss = clone(model, data, 1, config.learning_rate,
                                            seed=config.seed + 1_000 * round_ + epoch)
            weights = _numpy(model.state_dict())
            score = check.score(weights, executor)
            if score < best_score:
                best_state, best_score = {k: v.copy() for k, v in weights.items()}, score
            emit(round=round_, epoch=epoch, phase="clone", samples=len(data[2]),
                 headroom=headroom, policy_loss=policy_loss, value_loss=value_loss,
                 val_score=score)
    return ImproveResult(_tensors(best_state), best_score, start_score, tuple(history),
                         time.perf_counter() - started)


def _student(hidden: int, config: ImproveConfig) -> torch.nn.Module:
    """The network cloning trains (torch, seeded and threaded as configured)."""
    import torch  # here: the searches (what workers run) need no torch

    from engine.drl.network import ActorCritic

    torch.set_num_threads(config.threads)
    torch.manual_seed(config.seed)
    return ActorCritic(hidden)


def _tensors(weights: Mapping[str, np.ndarray]) -> dict[str, torch.Tensor]:
    """Numpy weights as torch tensors of their own (what cloning and exports take)."""
    import torch

    return {k: torch.from_numpy(np.array(v, dtype=np.float32)) for k, v in weights.items()}


def _searched(emit: Callable[..., None], round_: int, episodes: int, headroom: float) -> None:
    """Progress (not history) after each searched workload."""
    emit(keep=False, round=round_, phase="search", samples=episodes, headroom=headroom)


def search_all(
    state: dict[str, torch.Tensor], config: ImproveConfig, seeds: list[tuple[int, ...]],
    done: Callable[[int, float], None], executor: Executor | None = None,
) -> list[tuple[Demonstrations, float]]:
    """Every seed's :func:`search_episode`, in seed order, one executor task per seed.

    ``executor`` defaults to ``config.workers`` local processes. ``done(searched,
    headroom)`` is called as each search finishes, with that workload's headroom.
    """
    shared = (_numpy(state), config.curriculum, config.passes, config.gamma)
    out: list[Any] = [None] * len(seeds)
    with borrowed(executor, "local", config.workers) as pool:
        for finished, (index, result) in enumerate(
                pool.completed(_search_task, seeds, shared=shared), 1):
            out[index] = result
            done(finished, result[1])
    return out


def _numpy(state: Mapping[str, Any]) -> dict[str, np.ndarray]:
    """Weights as numpy arrays: what a task ships (a worker then needs no torch to read them)."""
    return {k: as_array(v) for k, v in state.items()}


def _search_task(
    shared: tuple[Mapping[str, Any], Curriculum, int, float], seed: tuple[int, ...]
) -> tuple[Demonstrations, float]:
    weights, curriculum, passes, gamma = shared
    return search_episode(weights, curriculum, seed, passes, gamma)
