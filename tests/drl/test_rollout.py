"""Rollout lanes: they travel between processes, sample valid actions, and match torch."""

from __future__ import annotations

import pickle

import numpy as np
import torch
from torch.distributions import Categorical

from engine.drl.actor import NumpyActor
from engine.drl.network import ActorCritic
from engine.drl.ppo import start_lanes
from engine.drl.ppo_config import PPOConfig
from engine.drl.pretrained import shipped_policy
from engine.drl.rollout import roll
from engine.env.curriculum import Curriculum

CONFIG = PPOConfig(envs=2, curriculum=Curriculum(cluster_gpus=(8, 16), jobs=(10, 20)))


def _actor(seed: int = 0) -> NumpyActor:
    torch.manual_seed(seed)
    return NumpyActor(ActorCritic(16).state_dict())


def _same(a, b) -> bool:
    return all(np.array_equal(getattr(a, f), getattr(b, f))
               for f in ("obs", "masks", "actions", "rewards", "dones")) and (
        a.episodes == b.episodes)


def test_a_pickled_lane_goes_on_exactly_like_the_original():
    actor = _actor()
    lane = start_lanes(CONFIG, 0)[0]
    lane = roll((actor, 40), lane).lane  # mid-episode, after at least one reset
    copy = pickle.loads(pickle.dumps(lane))
    here, there = roll((actor, 60), lane), roll((actor, 60), copy)
    assert _same(here, there)
    assert here.dones.any()  # the comparison spans an episode's end and the next reset


def test_lanes_sample_only_valid_actions_from_their_own_generators():
    actor = _actor()
    first, second = start_lanes(CONFIG, 0)
    alone = roll((actor, 50), start_lanes(CONFIG, 0)[1])
    roll((actor, 50), first)  # stepping another lane first changes nothing for this one
    together = roll((actor, 50), second)
    assert _same(alone, together)
    assert all(mask[action] for mask, action in zip(together.masks, together.actions,
                                                     strict=True))


def test_torch_log_probabilities_match_what_the_numpy_sampler_used():
    shipped = shipped_policy()  # trained weights: peaked probabilities, unlike a fresh net
    model = ActorCritic(shipped.card["hidden"])
    model.load_state_dict(shipped.state_dict)
    actor = shipped.actor
    out = roll((actor, 200), start_lanes(CONFIG, 0)[0])
    with torch.no_grad():
        logits, _ = model(torch.as_tensor(out.obs), torch.as_tensor(out.masks))
        logp = Categorical(logits=logits).log_prob(torch.as_tensor(out.actions)).numpy()
    sampled = [np.log(actor.probabilities(o, m)[a])
               for o, m, a in zip(out.obs, out.masks, out.actions, strict=True)]
    assert np.max(np.abs(logp - np.array(sampled))) < 1e-5
    assert np.min(sampled) < np.log(0.5)  # some actions were not the near-certain ones
