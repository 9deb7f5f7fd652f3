"""The ``drl`` policy: shipped weights, an in-memory model, explanations, and a real
regression test of the artifact against the oracle-tuned threshold baseline."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from engine.cluster import Cluster
from engine.drl.network import ActorCritic
from engine.drl.pretrained import shipped_policy
from engine.env import planning
from engine.env.features import observe
from engine.policies import make_policy
from engine.policies.drl import DrlPolicy
from engine.run import run_policy
from engine.simulator import simulate
from engine.workload import GeneratorConfig, generate, to_jobs

# seed 424242 is below the training seeds (1,000,000+), so training never saw it
CLUSTER = Cluster(8, 4)
JOBS = to_jobs(generate(GeneratorConfig(jobs=80, load=0.9, seed=424_242), CLUSTER), CLUSTER)


def test_shipped_policy_beats_threshold_optimal_on_an_unseen_workload():
    drl = run_policy("drl", JOBS, CLUSTER).summary.avg_jct
    threshold = run_policy("threshold-optimal", JOBS, CLUSTER).summary.avg_jct
    assert drl < 0.9 * threshold, (drl, threshold)


def test_every_start_explains_itself():
    result = simulate(JOBS, CLUSTER, make_policy("drl"))
    info = result.decisions["info"].iloc[0]
    assert {"probabilities", "wait"} <= set(info)
    job_id, gpus, p = info["probabilities"][0]
    assert isinstance(job_id, str) and gpus >= 1 and 0 < p <= 1
    assert sum(q for *_, q in info["probabilities"]) + info["wait"] <= 1 + 1e-3  # rounded


def test_an_in_memory_model_replaces_the_shipped_one():
    model = ActorCritic(hidden=8)
    result = simulate(JOBS[:20], CLUSTER, DrlPolicy(model))
    assert result.summary.completed == 20


def test_shipped_weights_load_once():
    assert shipped_policy() is shipped_policy()
    assert shipped_policy().card["spec"]["spec_version"] >= 1


@pytest.mark.parametrize("nodes, per_node", [(2, 4), (32, 8)])
def test_runs_on_small_and_large_clusters(nodes, per_node):
    cluster = Cluster(nodes, per_node)
    jobs = to_jobs(generate(GeneratorConfig(jobs=30, seed=7), cluster), cluster)
    assert simulate(jobs, cluster, DrlPolicy()).summary.completed == 30


def test_numpy_forward_pass_matches_the_torch_network(monkeypatch):
    points = []

    def recording(*args):
        points.append(observe(*args))
        return points[-1]

    monkeypatch.setattr(planning, "observe", recording)
    simulate(JOBS[:40], CLUSTER, DrlPolicy())
    model = ActorCritic(hidden=shipped_policy().card["hidden"])
    model.load_state_dict(shipped_policy().state_dict)
    actor = DrlPolicy().actor
    obs = torch.as_tensor(np.stack([p.obs for p in points]))
    mask = torch.as_tensor(np.stack([p.mask for p in points]))
    with torch.no_grad():
        expected = torch.softmax(model(obs, mask)[0], -1).numpy()
    got = np.stack([actor.probabilities(p.obs, p.mask) for p in points])
    assert len(points) >= 40
    np.testing.assert_allclose(got, expected, atol=1e-5)
    np.testing.assert_array_equal(got.argmax(1), expected.argmax(1))
