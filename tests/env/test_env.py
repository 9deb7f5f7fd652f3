"""The Gymnasium environment: API conformance, masking and the reward identity."""

from __future__ import annotations

import numpy as np
import pytest
from factories import make_job
from gymnasium.utils.env_checker import check_env
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cluster import Cluster, pack
from engine.drl.expert import ExpertPolicy, expert_action
from engine.env.curriculum import Curriculum
from engine.env.moldable_env import MoldableEnv
from engine.env.spec import LEVELS, N_ACTIONS, OBS_SIZE, WAIT, decode
from engine.simulator import simulate
from engine.speedup import Amdahl

SMALL = Curriculum(cluster_gpus=(8, 16), jobs=(8, 16))

job_specs = st.lists(
    st.tuples(
        st.floats(0, 500, allow_nan=False),  # submit
        st.floats(1, 300, allow_nan=False),  # 1-GPU run time
        st.integers(1, 4),  # min GPUs
        st.integers(0, 12),  # max GPUs above min
        st.sampled_from([0.0, 0.05, 0.3]),  # serial fraction
    ),
    min_size=1,
    max_size=25,
)
clusters = st.sampled_from([Cluster(1, 8), Cluster(2, 4), Cluster(4, 2), Cluster(3, 4)])


def _jobs(specs):
    return [
        make_job(i, submit, runtime, requested=lo, min_gpus=lo, max_gpus=lo + extra,
                 model=Amdahl(serial_fraction=s))
        for i, (submit, runtime, lo, extra, s) in enumerate(specs)
    ]


def test_check_env_passes():
    check_env(MoldableEnv(SMALL), skip_render_check=True)


def test_observation_has_one_size_on_every_cluster():
    for total in (8, 64, 256):
        env = MoldableEnv(Curriculum(cluster_gpus=(total,), jobs=(10, 10)))
        obs, info = env.reset(seed=1)
        assert obs.shape == (OBS_SIZE,) and env.observation_space.contains(obs)
        assert info["action_mask"].shape == (N_ACTIONS,)
        assert env.sim.cluster.total_gpus == total


@settings(max_examples=40, deadline=None)
@given(job_specs, clusters, st.randoms(use_true_random=False))
def test_mask_lets_exactly_the_valid_actions_through(specs, cluster, rnd):
    env = MoldableEnv(jobs=_jobs(specs), cluster=cluster)
    env.reset()
    done = False
    while not done:
        mask = env.action_masks()
        point, sim = env.decision, env.sim
        assert mask[:WAIT].any(), "every decision point offers a start"
        for action in np.flatnonzero(~mask):
            if action == WAIT:
                assert not sim.running  # waiting is masked only on an idle cluster
                continue
            slot, level = decode(action)
            gpus = int(point.gpus[slot, level]) if slot < len(point.jobs) else 0
            if gpus:  # a real size that cannot be placed now
                assert pack(sim.free_per_node, gpus) is None
        refused = rnd.choice(np.flatnonzero(~mask).tolist() or [WAIT])
        if not mask[refused]:
            before = (sim.now, len(sim.waiting))
            _, reward, _, _, info = env.step(refused)
            assert info["refused"] and reward == 0 and (sim.now, len(sim.waiting)) == before
        action = rnd.choice(np.flatnonzero(mask).tolist())
        if action != WAIT:
            slot, level = decode(action)
            job = point.jobs[slot]
            assert job.min_gpus <= point.gpus[slot, level] <= job.max_gpus
        _, _, done, _, info = env.step(action)  # the simulator would raise if invalid
        assert not info["refused"]
    assert len(env.sim.finished) == len(specs)


@settings(max_examples=30, deadline=None)
@given(job_specs, clusters, st.randoms(use_true_random=False))
def test_return_is_minus_total_jct_over_scale(specs, cluster, rnd):
    env = MoldableEnv(jobs=_jobs(specs), cluster=cluster)
    env.reset()
    total, done = 0.0, False
    while not done:
        _, reward, done, _, _ = env.step(rnd.choice(np.flatnonzero(env.action_masks()).tolist()))
        total += reward
    result = env.result()
    assert total == pytest.approx(-result.jobs["jct"].sum() / env.scale, rel=1e-9)
    assert total == pytest.approx(-result.summary.jct_over_bound, rel=1e-9)


def test_policy_in_simulator_matches_the_environment():
    env = MoldableEnv(SMALL)
    env.reset(seed=5)
    done = False
    while not done:
        _, _, done, _, _ = env.step(expert_action(env.decision))
    in_env = env.result()
    in_sim = simulate(env.sim.jobs, env.sim.cluster, ExpertPolicy())
    assert in_sim.jobs[["start", "gpus"]].equals(in_env.jobs[["start", "gpus"]])


def test_levels_are_distinct_and_reach_the_job_maximum():
    env = MoldableEnv(jobs=[make_job(0, 0.0, 100.0, min_gpus=3, max_gpus=7)], cluster=Cluster(2, 4))
    env.reset()
    sizes = [int(g) for g in env.decision.gpus[0] if g]
    assert sizes == [3, 4, 5, 6, 7] and len(env.decision.gpus[0]) == LEVELS
