"""A few-second training run end to end: curve, checkpoint, resume, determinism, and
the warm start's progress and Stop."""

from __future__ import annotations

import csv
import threading
from dataclasses import replace

import numpy as np
import pytest
import torch

from engine.cli import main
from engine.cluster import Cluster
from engine.drl.bc import EPISODES_PER_POLL, clone, collect_demonstrations
from engine.drl.checkpoint import load_checkpoint
from engine.drl.network import ActorCritic
from engine.drl.ppo import TrainResult, WarmStart, train
from engine.drl.ppo_config import PPOConfig, config_from_dict
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


def test_rollouts_in_worker_processes_give_bit_identical_weights():
    config = replace(TINY, bc_episodes=0, val_episodes=1)
    alone = train(config)
    with Executor("local", workers=2) as executor:
        pooled = train(config, executor=executor)
    assert pooled.history[-1]["episodes"] > 0  # the rollouts ran episodes to their end
    for key, value in alone.model.state_dict().items():
        assert torch.equal(value, pooled.model.state_dict()[key])


WARM = replace(TINY, bc_episodes=6, bc_epochs=200, dagger_rounds=1, dagger_episodes=4)


def _train_until(stage: str, out=None) -> tuple[TrainResult, list[WarmStart]]:
    """Train ``WARM`` in a thread, setting Stop at the warm start's first ``stage`` step."""
    stop, steps, done = threading.Event(), [], []

    def report(step: WarmStart) -> None:
        steps.append(step)
        if step.stage == stage:
            stop.set()

    worker = threading.Thread(target=lambda: done.append(
        train(WARM, should_stop=stop.is_set, warm_progress=report, out=out)))
    worker.start()
    worker.join(120)  # generous: a stop ends it in well under a second
    assert not worker.is_alive() and stop.is_set()
    return done[0], steps


def test_stop_while_cloning_ends_the_warm_start_with_weights(tmp_path):
    result, steps = _train_until("cloning", tmp_path)
    assert result.stopped and result.iterations == 0
    assert steps[0] == WarmStart("teacher", 1, 2, 4, 6)  # one batch: 4 episodes per worker
    assert steps[-1].stage == "cloning" and steps[-1].done < WARM.bc_epochs
    assert not result.history  # no cloning round ended, so none was validated...
    assert np.isfinite(result.best_score)  # ...but the weights kept were
    assert set(result.best_state) == set(result.model.state_dict())
    assert load_checkpoint(tmp_path / "checkpoint.pt").iteration == 0


def test_stop_in_a_dagger_round_keeps_the_cloned_round():
    result, steps = _train_until("student")
    assert result.stopped and result.iterations == 0
    assert [row["phase"] for row in result.history] == ["bc"]
    assert result.best_score == result.history[0]["val_jct_over_bound"]
    assert [s.stage for s in steps][-1] == "student"


def test_cloning_polls_stop_inside_an_epoch():
    data = collect_demonstrations(2, TINY.curriculum, 0, 0.99)
    model = ActorCritic(16)
    before = {k: v.clone() for k, v in model.state_dict().items()}
    polls, epochs = [], []

    def stop() -> bool:
        polls.append(1)
        return len(polls) > 1  # one minibatch, then stop

    losses = clone(model, data, 5, 1e-3, 0, batch=8, progress=lambda *a: epochs.append(a),
                   should_stop=stop)
    assert not epochs and np.isnan(losses).all()  # stopped inside the first epoch
    assert any(not torch.equal(v, before[k]) for k, v in model.state_dict().items())


def test_demonstrations_stop_after_a_batch_and_report_progress():
    seen = []
    data = collect_demonstrations(10, TINY.curriculum, 0, 0.99, should_stop=lambda: True,
                                  progress=lambda done, total: seen.append((done, total)))
    assert seen == [(EPISODES_PER_POLL, 10)]
    assert len(data[2]) == len(collect_demonstrations(EPISODES_PER_POLL, TINY.curriculum, 0,
                                                      0.99)[2])


def test_warm_start_steps_in_words():
    step = WarmStart("cloning", 1, 3, 7, 20)
    assert step.describe() == (
        "warm start: imitating the teacher, cloning epoch 7 of 20 (round 1 of 3)")
    assert step.fraction == (0.5 + 0.5 * 7 / 20) / 3
    assert WarmStart("teacher", 1, 1, 5, 10).describe() == (
        "warm start: imitating the teacher, who plays episode 5 of 10")
    assert WarmStart("student", 2, 2, 5, 10).describe() == (
        "warm start: imitating the teacher, who labels the student's episode 5 of 10 "
        "(round 2 of 2)")
    assert WarmStart("student", 2, 2, 10, 10).fraction == 0.75


def test_stop_inside_a_ppo_update_keeps_its_steps_but_not_the_iteration():
    config = replace(TINY, bc_episodes=0)
    calls = []

    def stop() -> bool:
        calls.append(1)
        return len(calls) > 2  # the loop's check, one minibatch, then stop

    result = train(config, should_stop=stop)
    assert result.stopped and result.iterations == 0 and not result.history
    fresh = train(replace(config, iterations=0))  # the same start, never updated
    assert any(not torch.equal(v, fresh.model.state_dict()[k])
               for k, v in result.model.state_dict().items())


def test_a_config_survives_a_json_round_trip_with_its_nested_tuples():
    import json
    from dataclasses import asdict

    from engine.drl.ppo_config import PPOConfig, config_from_dict

    config = PPOConfig()
    assert config_from_dict(json.loads(json.dumps(asdict(config)))) == config


def test_a_checkpoint_from_before_a_setting_resumes_as_it_was_trained():
    """Checkpoints written before the expected-regret loss and the trace-shaped episodes
    trained without them: resuming one must not switch them on."""
    from dataclasses import asdict

    from engine.drl.ppo_config import PPOConfig, config_from_dict

    stored = asdict(PPOConfig())
    del stored["bc_loss"], stored["curriculum"]["trace_shaped"]
    old = config_from_dict(stored)
    assert old.bc_loss == "cross-entropy" and old.curriculum.trace_shaped == 0.0
