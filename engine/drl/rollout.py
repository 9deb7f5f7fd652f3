"""Episodes played by the numpy actor: PPO's rollouts and the greedy validation episodes.

A PPO iteration collects ``steps`` transitions from each of ``envs`` environments. Each
environment is a :class:`Lane`, its simulator state with its own random generator, so
the actions it samples depend on nothing but the lane and the weights: not on the other
lanes, nor on which process stepped it. One lane is one :class:`engine.parallel.Executor`
task, and every backend gives bit-identical transitions. Workers sample from
:class:`~engine.drl.actor.NumpyActor`'s probabilities and never import torch; the driver
computes log-probabilities and values for the whole batch in one torch pass. The two
agree to float32 rounding: over 200 steps of the shipped weights the log-probabilities
differ by at most 3e-6 (``tests/drl/test_rollout.py`` holds them within 1e-5).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from engine.cluster import Cluster
from engine.drl.actor import NumpyActor
from engine.drl.expert import expert_action, teacher_returns
from engine.env.features import DecisionPoint
from engine.env.moldable_env import MoldableEnv
from engine.env.spec import N_ACTIONS, OBS_SIZE
from engine.job import Job
from engine.protocol import SchedulerView
from engine.simulator import Simulator


@dataclass(frozen=True)
class Lane:
    """One training environment, mid-episode, and the generator its actions come from."""

    env: MoldableEnv
    rng: np.random.Generator

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        """Pickle without the simulator's live view: it holds dict views, which do not
        pickle, and is rebuilt from the fields it views."""
        sim = self.env.sim
        env_fields = {k: v for k, v in vars(self.env).items() if k != "sim"}
        sim_fields = {k: v for k, v in vars(sim).items() if k != "_view"}
        return _rebuild_lane, (self.rng, env_fields, type(sim), sim_fields)


def _rebuild_lane(
    rng: np.random.Generator,
    env_fields: dict[str, Any],
    sim_class: type[Simulator],
    sim_fields: dict[str, Any],
) -> Lane:
    sim = sim_class.__new__(sim_class)
    vars(sim).update(sim_fields)
    sim._view = SchedulerView(
        time=sim.now, cluster=sim.cluster, waiting=sim.waiting.values(),
        running=sim.running.values(), free_per_node=sim.free_per_node,
        free_gpus=sim.cluster.total_gpus - sim.busy_gpus,
    )
    env = MoldableEnv.__new__(MoldableEnv)
    vars(env).update(env_fields, sim=sim)
    return Lane(env, rng)


@dataclass(frozen=True)
class Rollout:
    """A lane's transitions in one iteration, and the lane after them."""

    obs: np.ndarray
    """(steps, OBS_SIZE) float32: what each action saw."""
    masks: np.ndarray
    """(steps, N_ACTIONS) bool: the valid actions then."""
    actions: np.ndarray
    """(steps,) int64: the sampled actions."""
    rewards: np.ndarray
    """(steps,) float64."""
    dones: np.ndarray
    """(steps,) bool: the episode ended with this step (the lane then started the next)."""
    episodes: tuple[tuple[float, float], ...]
    """(avg JCT, avg JCT / lower bound) of each episode that ended."""
    lane: Lane
    """Where the next iteration goes on; its current decision is the bootstrap state."""


def roll(shared: tuple[NumpyActor, int], lane: Lane) -> Rollout:
    """``steps`` actions sampled from ``actor`` with the lane's own generator (one task)."""
    actor, steps = shared
    env, rng = lane.env, lane.rng
    obs = np.empty((steps, OBS_SIZE), np.float32)
    masks = np.empty((steps, N_ACTIONS), bool)
    actions = np.empty(steps, np.int64)
    rewards = np.empty(steps)
    dones = np.empty(steps, bool)
    episodes = []
    for t in range(steps):
        point = env.decision
        obs[t], masks[t] = point.obs, point.mask
        actions[t] = rng.choice(N_ACTIONS, p=actor.probabilities(point.obs, point.mask))
        _, rewards[t], dones[t], _, _ = env.step(int(actions[t]))
        if dones[t]:
            summary = env.result().summary
            episodes.append((summary.avg_jct, summary.jct_over_bound))
            env.reset()
    return Rollout(obs, masks, actions, rewards, dones, tuple(episodes), lane)


def greedy_return(actor: NumpyActor | None, workload: tuple[list[Job], Cluster],
                  sharpness: float | None = None) -> float:
    """The return of one episode on ``workload``, acting greedily; ``None``: the teacher
    of that ``sharpness``, or without one the best teacher for the workload (hindsight)."""
    jobs, cluster = workload
    if actor is None and sharpness is None:
        return max(teacher_returns(jobs, cluster).values())
    env = MoldableEnv(jobs=jobs, cluster=cluster)
    env.reset()
    if actor is None:
        return finish(env, partial(expert_action, sharpness=sharpness))
    return finish(env, lambda point: int(np.argmax(actor.probabilities(point.obs, point.mask))))


def finish(env: MoldableEnv, choose: Callable[[DecisionPoint], int]) -> float:
    """Play ``env``'s episode to its end with ``choose``; the return of the steps played."""
    total, done = 0.0, False
    while not done:
        _, reward, done, _, _ = env.step(choose(env.decision))
        total += reward
    return total
