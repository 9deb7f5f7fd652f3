"""Behaviour-cloning warm start: imitate the heuristic teachers before PPO fine-tunes.

Every state is labelled by the five teachers' actions, each with its regret: the fraction
of average JCT it adds to the best teacher's when it schedules the episode from there on.
How the student learns from them is :class:`Labelling`'s choice. By default
(cross-entropy, ``regret_scale`` 0, how the shipped weights were trained) the best teacher
in hindsight takes all the weight; with ``regret_scale > 0`` a teacher that much behind
the best counts ``1/e`` as much. Both learn, in states that look alike, the teacher most
often best there, which on small busy clusters is a wide one that is a little better in
many episodes and far worse in the rest. The ``expected-regret`` loss instead minimises the
student's expected regret over the teachers' actions (:func:`_expected_regret`), so it
learns the action that costs least on average (cost-sensitive classification).

A label fixed at the workload's start says which teacher is best over its whole run,
which in a long, overloaded episode depends on arrivals the state at any one decision
cannot show. So the episode is relabelled ``segments`` times (every ``jobs / segments``
decisions; default 8, the shipped weights) by each teacher's return *from that state on*
(:func:`returns_from_here`, played on copies), and that teacher acts until the next
relabelling: labels that follow what the state shows, on the trajectory of a teacher
switching in hindsight, which is at least as good as the best single one. Measured
against labels fixed at the start (``segments`` 0), same seed: validation 2.602 against
2.614, 40 of 46 matrix cells against 38 (``docs/results.md``).

PPO from scratch needs far more simulated episodes than two shared CPU cores give in
half an hour; starting from a policy that already schedules like a strong heuristic
(AlphaGo did the same with human games) leaves PPO the easier job of improving on it.
The value head is fitted at the same time on the teacher's Monte-Carlo returns, so
PPO's first advantages are not noise.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

import numpy as np

from engine.drl.actor import NumpyActor
from engine.drl.expert import KNEE, SHARPNESS, expert_action
from engine.drl.ppo_config import PPOConfig
from engine.env.curriculum import Curriculum
from engine.env.moldable_env import MoldableEnv
from engine.parallel import Executor

if TYPE_CHECKING:
    import torch

    from engine.drl.network import ActorCritic

Demonstrations = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]
"""(observations, masks, label actions (states x labels), each label's regret (the
fraction of average JCT its teacher adds to the best one's from the last labelling on;
0 for the best), discounted returns of the acting policy)."""


EPISODES_PER_POLL = 4
"""Episodes per worker between two polls of ``should_stop``: a batch of the Train page's
small episodes (tens of ms each, three to four times that with relabelling) ends within
about a second, so Stop is honoured quickly, yet each worker gets a few tasks per map;
the broad curriculum's longest episodes take seconds each."""


LOSSES = ("cross-entropy", "expected-regret")
"""How cloning scores the student's action distribution against the labels."""
REGRET_UNIT = 0.02
"""The expected-regret loss counts regret in units of 2% of average JCT, so its gradients
are on the scale of cross-entropy's."""
LEAST_REGRET_PULL = 0.1
"""Weight of a little cross-entropy on the least-regret action in the expected-regret
loss: the expected regret alone is flat between actions of equal regret and gives a
state where every teacher ties no direction at all."""


@dataclass(frozen=True)
class Labelling:
    """How teachers label a demonstration: PPOConfig's four ``bc_*`` settings as one
    value (checkpoints store them flat, with the rest of the config)."""

    regret_scale: float = PPOConfig.bc_regret_scale
    segments: int = PPOConfig.bc_segments
    knee_margin: float = PPOConfig.bc_knee_margin
    loss: str = PPOConfig.bc_loss

    def __post_init__(self) -> None:
        if self.loss not in LOSSES:
            raise ValueError(f"bc loss {self.loss!r} is not one of {', '.join(LOSSES)}")

    @classmethod
    def of(cls, config: PPOConfig) -> Labelling:
        return cls(config.bc_regret_scale, config.bc_segments, config.bc_knee_margin,
                   config.bc_loss)

    @staticmethod
    def regrets(returns: Mapping[float, float]) -> np.ndarray:
        """Each teacher's regret (in :data:`SHARPNESS` order) from its return.

        A return is minus average JCT over its ideal, so ``returns[s] / returns[best] - 1``
        is teacher ``s``'s regret: the fraction of average JCT it adds to the best
        teacher's.
        """
        values = np.array([returns[s] for s in SHARPNESS])
        return (values / values.max() - 1.0).astype(np.float32)  # both negative

    def weights(self, regrets: np.ndarray) -> np.ndarray:
        """Cross-entropy weights of each row's labels (the teachers, in :data:`SHARPNESS`
        order, or a single searched label) from their regrets; each row sums to 1.

        The knee's regret is first reduced by ``knee_margin`` (not below 0), so it keeps
        the label unless another teacher is that much better: a state that looks alike in
        a quiet and in an overloaded episode then learns the knee, which is never far
        behind, rather than the wide teacher, which loses badly where it is wrong.
        Weights are ``exp(-regret / regret_scale)``, normalised; at 0, all of it goes to
        the least regret (the first of equals; with a margin, the knee among them).
        """
        regret = np.array(regrets, dtype=np.float64, ndmin=2)
        knee = SHARPNESS.index(KNEE)
        margin = self.knee_margin > 0 and regret.shape[1] == len(SHARPNESS)
        if margin:
            regret[:, knee] = np.maximum(regret[:, knee] - self.knee_margin, 0.0)
        if self.regret_scale <= 0:
            best = regret.argmin(1)
            if margin:  # within the margin the knee ties the best and takes the label
                best = np.where(regret[:, knee] == 0.0, knee, best)
            weights = np.eye(regret.shape[1])[best]
        else:
            weights = np.exp(-regret / self.regret_scale)
        return (weights / weights.sum(1, keepdims=True)).astype(np.float32)

    def acting(self, regrets: np.ndarray) -> int:
        """The teacher that acts while the student is not: the label's best."""
        return int(self.weights(regrets)[0].argmax())


SEARCHED = Labelling(regret_scale=0.0, segments=0, knee_margin=0.0, loss="cross-entropy")
"""Labels found by a search: one action per state, learnt as it is."""


def collect_demonstrations(
    episodes: int,
    curriculum: Curriculum,
    seed: int,
    gamma: float,
    actor: NumpyActor | None = None,
    executor: Executor | None = None,
    should_stop: Callable[[], bool] | None = None,
    progress: Callable[[int, int], None] | None = None,
    labelling: Labelling = Labelling(),
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
    shared = (curriculum, seed, gamma, actor, labelling)
    parts: list[Demonstrations] = []
    for start in range(0, episodes, batch):
        parts += executor.map(_demonstration, list(range(start, min(start + batch, episodes))),
                              shared=shared)
        if progress is not None:
            progress(len(parts), episodes)
        if should_stop is not None and should_stop():
            break
    return merge(*parts)


def returns_from_here(env: MoldableEnv) -> dict[float, float]:
    """Each teacher's return over the rest of ``env``'s episode, from its current state
    (played on copies: ``env`` is left as it is)."""
    from engine.drl.rollout import Lane, finish  # Lane pickles a mid-episode environment

    frozen = pickle.dumps(Lane(env, np.random.default_rng(0)))
    return {s: finish(pickle.loads(frozen).env, partial(expert_action, sharpness=s))
            for s in SHARPNESS}


def _demonstration(
    shared: tuple[Curriculum, int, float, NumpyActor | None, Labelling], episode: int
) -> Demonstrations:
    curriculum, seed, gamma, actor, labelling = shared
    segments = labelling.segments
    env = MoldableEnv(curriculum)
    obs, info = env.reset(seed=seed * 100_003 + episode)
    every = max(1, len(env.sim.jobs) // max(segments, 1))
    regrets, acting, steps = None, 0, 0

    def label_and_act(obs: np.ndarray, info: dict) -> tuple[Label, int]:
        nonlocal regrets, acting, steps
        # labelled at the start (by the whole workload), relabelled every `every` steps
        if steps == 0 or (segments > 1 and steps % every == 0):
            regrets = Labelling.regrets(returns_from_here(env))
            acting = labelling.acting(regrets)
        steps += 1
        point = env.decision
        actions = [expert_action(point, s) for s in SHARPNESS]
        if actor is None:  # the teacher best from here acts
            act = actions[acting]
        else:
            act = int(np.argmax(actor.probabilities(obs, info["action_mask"])))
        return (actions, regrets), act

    return play_episode(env, obs, info, label_and_act, gamma)


Label = tuple[Sequence[int], np.ndarray]
"""Actions to learn at a state and the regret of each."""
LabelAndAct = Callable[[np.ndarray, dict], tuple[Label, int]]
"""From an observation and its info: the actions to learn (with their regrets) and the one
to take."""


def play_episode(
    env: MoldableEnv, obs: np.ndarray, info: dict, label_and_act: LabelAndAct, gamma: float
) -> Demonstrations:
    """Play a just-reset ``env`` to the end; every state with its label, and the returns."""
    observations, masks, labels, regrets, rewards = [], [], [], [], []
    done = False
    while not done:
        (actions, regret), action = label_and_act(obs, info)
        observations.append(obs)
        masks.append(info["action_mask"])
        labels.append(actions)
        regrets.append(regret)
        obs, reward, done, _, info = env.step(action)
        rewards.append(reward)
    return (np.stack(observations), np.stack(masks), np.array(labels, dtype=np.int64),
            np.array(regrets, dtype=np.float32), np.array(_discounted(rewards, gamma)))


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
    labelling: Labelling = SEARCHED,
) -> tuple[float, float]:
    """Fit actor (``labelling.loss`` on the labels and their regrets) and critic (MSE on
    the returns) to the data; last (policy, value) loss.

    ``progress(epoch, policy loss, value loss)`` follows each epoch; ``should_stop`` is
    polled before every minibatch (a few milliseconds apart) and ends the fit there,
    returning the last complete epoch's losses (NaN before the first).
    """
    import torch  # here: collecting demonstrations (what workers run) needs no torch
    import torch.nn.functional as F
    obs, masks, actions, regrets, returns = data
    weights = torch.as_tensor(labelling.weights(regrets))
    obs, masks, actions, regrets, returns = (
        torch.as_tensor(a) for a in (obs, masks, actions, regrets, returns))
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
            log_p = F.log_softmax(logits, -1).gather(1, actions[idx])
            if labelling.loss == "expected-regret":
                pl = _expected_regret(log_p, actions[idx], regrets[idx])
            else:
                pl = -(weights[idx] * log_p).sum(1).mean()
            vl = F.mse_loss(values, returns[idx])
            optimizer.zero_grad()
            (pl + 0.5 * vl).backward()
            optimizer.step()
            totals += (pl.item() * len(idx), vl.item() * len(idx))
        policy_loss, value_loss = totals / len(order)
        if progress is not None:
            progress(epoch, policy_loss, value_loss)
    return float(policy_loss), float(value_loss)


def _expected_regret(log_p: torch.Tensor, actions: torch.Tensor,
                     regrets: torch.Tensor) -> torch.Tensor:
    """The student's expected regret at each state, in :data:`REGRET_UNIT`, plus
    :data:`LEAST_REGRET_PULL` x cross-entropy on the least-regret action.

    Taking a teacher's action costs the least regret among the teachers that take it;
    an action no teacher takes costs the worst teacher's. ``log_p`` holds the student's
    log-probability of each label's action, so an action several teachers share appears
    once per teacher and counts once (its probability split between them). Unlike
    cross-entropy on the teacher most often best, this learns, in states that look
    alike, the action that costs least on average.
    """
    import torch

    same = actions[:, :, None] == actions[:, None, :]
    least = torch.where(same, regrets[:, None, :], torch.inf).amin(2)
    share = log_p.exp() / same.sum(2)
    uncovered = (1.0 - share.sum(1)).clamp(min=0.0)
    expected = (share * least).sum(1) + uncovered * regrets.amax(1)
    best = least.argmin(1, keepdim=True)
    return expected.mean() / REGRET_UNIT - LEAST_REGRET_PULL * log_p.gather(1, best).mean()
