"""Behaviour-cloning warm start: imitate the heuristic teachers before PPO fine-tunes.

Each episode's labels come from the teacher that scheduled that workload best
(:func:`engine.drl.expert.best_sharpness`), so the student learns when to run jobs wide
and when lean from what it can see.

PPO from scratch needs far more simulated episodes than two shared CPU cores give in
half an hour; starting from a policy that already schedules like a strong heuristic
(AlphaGo did the same with human games) leaves PPO the easier job of improving on it.
The value head is fitted at the same time on the teacher's Monte-Carlo returns, so
PPO's first advantages are not noise.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from engine.drl.actor import NumpyActor
from engine.drl.expert import best_sharpness, expert_action
from engine.env.curriculum import Curriculum
from engine.env.moldable_env import MoldableEnv
from engine.parallel import Executor

if TYPE_CHECKING:
    from engine.drl.network import ActorCritic

Demonstrations = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]
"""(observations, masks, teacher actions, discounted returns of the acting policy)."""


EPISODES_PER_POLL = 4
"""Episodes per worker between two polls of ``should_stop``: a batch of curriculum
episodes (10-100 ms each) ends well within a second, so Stop is honoured quickly, yet
each worker gets a few tasks per map."""


def collect_demonstrations(
    episodes: int,
    curriculum: Curriculum,
    seed: int,
    gamma: float,
    actor: NumpyActor | None = None,
    executor: Executor | None = None,
    should_stop: Callable[[], bool] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Demonstrations:
    """Teacher-labelled states from ``episodes`` curriculum episodes.

    With ``actor`` the student acts (greedily) and the teacher only labels: DAgger's
    fix for behaviour cloning's compounding errors, since the student then learns the
    teacher's answer in the states its own mistakes lead to. Each episode is one
    ``executor`` task (default: here, in order); they are merged in episode order.
    Episodes go in batches (``EPISODES_PER_POLL`` per worker); after each batch
    ``progress(done, episodes)`` is called and ``should_stop`` polled, and a stop
    returns the episodes played so far (at least one batch).
    """
    executor = executor or Executor("serial")
    batch = EPISODES_PER_POLL * executor.workers
    shared = (curriculum, seed, gamma, actor)
    parts: list[Demonstrations] = []
    for start in range(0, episodes, batch):
        parts += executor.map(_demonstration, list(range(start, min(start + batch, episodes))),
                              shared=shared)
        if progress is not None:
            progress(len(parts), episodes)
        if should_stop is not None and should_stop():
            break
    return merge(*parts)


def _demonstration(
    shared: tuple[Curriculum, int, float, NumpyActor | None], episode: int
) -> Demonstrations:
    curriculum, seed, gamma, actor = shared
    env = MoldableEnv(curriculum)
    obs, info = env.reset(seed=seed * 100_003 + episode)
    sharpness = best_sharpness(env.sim.jobs, env.sim.cluster)

    def label_and_act(obs: np.ndarray, info: dict) -> tuple[int, int]:
        label = expert_action(env.decision, sharpness)
        if actor is None:
            return label, label
        return label, int(np.argmax(actor.probabilities(obs, info["action_mask"])))

    return play_episode(env, obs, info, label_and_act, gamma)


LabelAndAct = Callable[[np.ndarray, dict], tuple[int, int]]
"""From an observation and its info: the action to learn and the action to take."""


def play_episode(
    env: MoldableEnv, obs: np.ndarray, info: dict, label_and_act: LabelAndAct, gamma: float
) -> Demonstrations:
    """Play a just-reset ``env`` to the end; every state with its label, and the returns."""
    observations, masks, labels, rewards = [], [], [], []
    done = False
    while not done:
        label, action = label_and_act(obs, info)
        observations.append(obs)
        masks.append(info["action_mask"])
        labels.append(label)
        obs, reward, done, _, info = env.step(action)
        rewards.append(reward)
    return (np.stack(observations), np.stack(masks), np.array(labels),
            np.array(_discounted(rewards, gamma)))


def _discounted(rewards: list[float], gamma: float) -> list[float]:
    """The discounted return from each step on: the value head's regression target."""
    running, out = 0.0, []
    for reward in reversed(rewards):
        running = reward + gamma * running
        out.append(running)
    return out[::-1]


def merge(*parts: Demonstrations) -> Demonstrations:
    """The demonstrations one after another, as one set."""
    return tuple(np.concatenate(arrays) for arrays in zip(*parts, strict=True))  # type: ignore[return-value]


def clone(
    model: ActorCritic,
    data: Demonstrations,
    epochs: int,
    lr: float,
    seed: int,
    batch: int = 256,
    progress: Callable[[int, float, float], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> tuple[float, float]:
    """Fit actor (cross-entropy) and critic (MSE) to the data; last (policy, value) loss.

    ``progress(epoch, policy loss, value loss)`` follows each epoch; ``should_stop`` is
    polled before every minibatch (a few milliseconds apart) and ends the fit there,
    returning the last complete epoch's losses (NaN before the first).
    """
    import torch  # here: collecting demonstrations (what workers run) needs no torch
    import torch.nn.functional as F
    obs, masks, actions, returns = (torch.as_tensor(a) for a in data)
    obs = obs.float()
    returns = returns.float()
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    generator = torch.Generator().manual_seed(seed)
    policy_loss = value_loss = float("nan")
    for epoch in range(epochs):
        order = torch.randperm(len(actions), generator=generator)
        totals = np.zeros(2)
        for start in range(0, len(order), batch):
            if should_stop is not None and should_stop():
                return float(policy_loss), float(value_loss)
            idx = order[start : start + batch]
            logits, values = model(obs[idx], masks[idx])
            pl = F.cross_entropy(logits, actions[idx])
            vl = F.mse_loss(values, returns[idx])
            optimizer.zero_grad()
            (pl + 0.5 * vl).backward()
            optimizer.step()
            totals += (pl.item() * len(idx), vl.item() * len(idx))
        policy_loss, value_loss = totals / len(order)
        if progress is not None:
            progress(epoch, policy_loss, value_loss)
    return float(policy_loss), float(value_loss)
