"""Expert iteration end to end on a tiny config: searched labels, cloning, export via the CLI."""

from __future__ import annotations

import csv
import json
from dataclasses import replace

import numpy as np
import pytest

from engine.cli import main
from engine.cluster import Cluster
from engine.drl.expert_iteration import (
    ImproveConfig,
    improve,
    search_all,
    search_episode,
    validation,
)
from engine.drl.pretrained import load_pretrained
from engine.drl.shift_search import local_search
from engine.env.curriculum import Curriculum
from engine.env.spec import OBS_SIZE
from engine.policies.drl import DrlPolicy
from engine.simulator import simulate
from engine.workload import GeneratorConfig, generate, to_jobs

SMALL = Curriculum(cluster_gpus=(8, 16), jobs=(10, 16))
TINY = ImproveConfig(
    rounds=2, episodes=2, passes=1, epochs=1, val_per_cell=1, val_clusters=((2, 4),),
    val_loads=(0.9,), val_jobs=16, workers=1, curriculum=SMALL,
)


@pytest.fixture(scope="module")
def shipped():
    return load_pretrained()


def test_search_labels_are_the_improved_schedule(shipped):
    seed = (0, 1, 0)
    data, headroom = search_episode(shipped.state_dict, SMALL, seed, passes=1, gamma=1.0)
    obs, masks, labels, regrets, returns = data
    assert labels.shape == regrets.shape == (len(obs), 1) and (regrets == 0.0).all()
    actions = labels[:, 0]
    assert obs.shape == (len(actions), OBS_SIZE) and masks[np.arange(len(actions)), actions].all()
    jobs, cluster = SMALL.workload(np.random.default_rng(seed))
    found = local_search(jobs, cluster, DrlPolicy(shipped.state_dict).choose, passes=1)
    assert headroom == found.headroom >= 0.0
    ideal = simulate(jobs, cluster, DrlPolicy(shipped.state_dict), 0).summary.lower_bound_avg_jct
    # undiscounted, the first return is minus the improved schedule's avg JCT / ideal
    assert returns[0] == pytest.approx(-found.avg_jct / ideal)


def test_improve_keeps_the_best_weights_and_is_reproducible(shipped):
    """Twice, from torch's tensors and from the numpy archive: the same run."""
    rows = []
    result = improve(shipped.state_dict, int(shipped.card["hidden"]), TINY, rows.append)
    assert result.best_score <= result.start_score
    clones = [r for r in result.history if r["phase"] == "clone"]
    assert [(r["round"], r["epoch"]) for r in clones] == [(1, 1), (2, 1)]
    assert clones[1]["samples"] > clones[0]["samples"]  # round 2 adds to round 1's labels
    assert [r["samples"] for r in rows if r["phase"] == "search"] == [1, 2, 1, 2]
    again = improve(shipped.weights, int(shipped.card["hidden"]), TINY)
    assert again.best_score == result.best_score
    for key, value in result.best_state.items():
        assert np.array_equal(value.numpy(), again.best_state[key].numpy())


def test_cli_exports_a_card_that_loads(tmp_path, shipped):
    out, export = tmp_path / "run", tmp_path / "weights"
    argv = ["improve", "--rounds", "1", "--episodes", "2", "--passes", "1", "--epochs", "1",
            "--workers", "1", "--quick", "--out", str(out), "--export", str(export)]
    assert main(argv) == 0
    with (out / "improve_curve.csv").open() as handle:
        assert [row["phase"] for row in csv.DictReader(handle)] == ["start", "clone"]
    loaded = load_pretrained(export)
    card = json.loads((export / "drl_policy.json").read_text())
    earlier = shipped.card.get("improvements", [])
    assert card["improvements"][:-1] == earlier  # the record is appended to, never lost
    assert card["improvements"][-1]["hyperparameters"]["rounds"] == 1
    assert card["method"] == shipped.card["method"] and "evaluation" not in card
    policy = DrlPolicy(loaded.state_dict)
    cluster = Cluster(2, 4)
    jobs = to_jobs(generate(GeneratorConfig(jobs=12, seed=4), cluster), cluster)
    assert simulate(jobs, cluster, policy, 0).summary.completed == 12


def test_searching_in_worker_processes_gives_the_same_labels(shipped):
    seeds = [(0, 1, 0), (0, 1, 1)]
    state = shipped.state_dict
    alone = search_all(state, replace(TINY, workers=1), seeds, lambda n, h: None)
    pooled = search_all(state, replace(TINY, workers=2), seeds, lambda n, h: None)
    assert [h for _, h in alone] == [h for _, h in pooled]
    for (a, _), (b, _) in zip(alone, pooled, strict=True):
        assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))


def test_validation_has_val_per_cell_workloads_in_each_cell_and_their_reference():
    check = validation(replace(TINY, val_per_cell=2))
    assert len(check.workloads) == len(check.reference) == 2
    assert [len(jobs) for jobs, _ in check.workloads] == [16, 16]
    assert {cluster for _, cluster in check.workloads} == {Cluster(2, 4)}
    assert all(ref > 0 for ref in check.reference)
