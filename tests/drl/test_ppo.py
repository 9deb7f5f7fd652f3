"""A few-second training run end to end: curve, checkpoint, resume, determinism."""

from __future__ import annotations

import csv
from dataclasses import replace

import pytest
import torch

from engine.cli import main
from engine.cluster import Cluster
from engine.drl.checkpoint import load_checkpoint
from engine.drl.ppo import PPOConfig, config_from_dict, train
from engine.env.curriculum import Curriculum
from engine.parallel import Executor
from engine.policies.drl import DrlPolicy
from engine.simulator import simulate
from engine.workload import GeneratorConfig, generate, to_jobs

TINY = PPOConfig(
    iterations=2, envs=2, steps=32, bc_episodes=3, bc_epochs=2, dagger_rounds=1,
    dagger_episodes=1, val_episodes=2, eval_every=1, checkpoint_every=1, hidden=16,
    curriculum=Curriculum(cluster_gpus=(8, 16), jobs=(10, 20)),
)


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    out = tmp_path_factory.mktemp("run")
    rows = []
    return train(TINY, progress=rows.append, out=out), rows, out


def test_training_writes_curve_and_loadable_checkpoint(trained):
    result, rows, out = trained
    with (out / "learning_curve.csv").open() as handle:
        curve = list(csv.DictReader(handle))
    assert [r["phase"] for r in curve] == ["bc", "bc", "ppo", "ppo"] == [r["phase"] for r in rows]
    for column in ("mean_episode_avg_jct", "policy_loss", "value_loss", "entropy", "approx_kl"):
        assert column in curve[0]
    checkpoint = load_checkpoint(result.checkpoint)
    assert checkpoint.iteration == 2 and config_from_dict(checkpoint.config) == TINY
    cluster = Cluster(2, 4)
    jobs = to_jobs(generate(GeneratorConfig(jobs=15, seed=3), cluster), cluster)
    run = simulate(jobs, cluster, DrlPolicy(checkpoint.best_model))
    assert run.summary.completed == 15


def test_resume_continues_where_it_stopped(trained):
    result, _, out = trained
    more = train(replace(TINY, iterations=3), out=out,
                 resume=result.checkpoint)
    assert more.iterations == 3 and len(more.history) == len(result.history) + 1
    assert more.seconds >= result.seconds


def test_stop_flag_ends_the_run_cleanly(tmp_path):
    result = train(TINY, should_stop=lambda: True, out=tmp_path)
    assert result.stopped and result.iterations == 0
    assert load_checkpoint(tmp_path / "checkpoint.pt").iteration == 0


def test_same_seed_same_run():
    config = replace(TINY, iterations=1, bc_episodes=0)
    first, second = train(config), train(config)
    assert first.history[-1]["policy_loss"] == second.history[-1]["policy_loss"]


def test_cli_trains_and_exports(tmp_path, capsys):
    code = main(["train", "--iterations", "1", "--envs", "1", "--steps", "16",
                 "--bc-episodes", "0", "--val-episodes", "1",
                 "--out", str(tmp_path / "run"), "--export", str(tmp_path / "pre")])
    assert code == 0
    assert (tmp_path / "pre" / "drl_policy.json").is_file()
    assert "trained 1 iterations" in capsys.readouterr().out


def test_episodes_in_worker_processes_give_the_same_run():
    config = replace(TINY, iterations=1)
    alone = train(config)
    with Executor("local", workers=2) as executor:
        pooled = train(config, executor=executor)
    assert [_timeless(r) for r in alone.history] == [_timeless(r) for r in pooled.history]
    for key, value in alone.best_state.items():
        assert torch.equal(value, pooled.best_state[key])


def _timeless(row: dict) -> str:
    """A curve row without its clock, as text (so NaN equals NaN)."""
    return repr({k: v for k, v in row.items() if k != "seconds"})
