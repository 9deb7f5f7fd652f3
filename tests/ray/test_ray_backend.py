"""The ray backend on a local Ray: the same numbers as serial and local, reproduce on it,
and PPO (rollouts, warm start, validation) giving the serial weights."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("ray.util", reason="the ray extra is not installed")  # not "ray": this folder
import ray
import torch

from engine.cli import main, reproduce
from engine.cluster import Cluster
from engine.compare import compare
from engine.drl.ppo import train
from engine.drl.ppo_config import PPOConfig
from engine.env.curriculum import Curriculum
from engine.parallel import Executor

CLUSTER = Cluster(2, 4)
POLICIES = ["fifo-request", "threshold-optimal", "drl"]


@pytest.fixture(scope="module")
def local_ray():
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def test_serial_local_and_ray_give_bit_identical_tables(local_ray):
    serial = compare(POLICIES, [0, 1], CLUSTER, executor=Executor("serial"))
    with Executor("local", workers=2) as local:
        pooled = compare(POLICIES, [0, 1], CLUSTER, executor=local)
    with Executor("ray") as on_ray:
        assert on_ray.workers == 2 and on_ray.describe() == "ray: a local Ray, 2 CPUs"
        distributed = compare(POLICIES, [0, 1], CLUSTER, executor=on_ray)
    assert ray.is_initialized()  # an executor leaves a Ray it did not start running
    for table in (pooled, distributed):
        assert serial.equals(table)
        assert serial.attrs == table.attrs


def test_reproduce_on_ray_prints_the_serial_report(local_ray, monkeypatch, capsys):
    monkeypatch.setattr(reproduce, "CLUSTERS", (CLUSTER,))
    monkeypatch.setattr(reproduce, "LOADS", (0.9,))
    argv = ["reproduce", "--quick", "--json"]
    assert main([*argv, "--backend", "serial"]) == 0
    alone = capsys.readouterr().out
    assert main([*argv, "--backend", "ray"]) == 0
    assert capsys.readouterr().out == alone
    assert json.loads(alone)["setup"]["seeds"] == 2


TINY_TRAINING = PPOConfig(
    iterations=2, envs=2, steps=24, bc_episodes=2, bc_epochs=1, dagger_rounds=1,
    dagger_episodes=2, val_episodes=2, eval_every=1, hidden=16,
    curriculum=Curriculum(cluster_gpus=(8, 16), jobs=(10, 20)),
)


def test_training_on_ray_gives_the_serial_weights(local_ray):
    with Executor("ray") as on_ray:
        distributed = train(TINY_TRAINING, executor=on_ray)
    alone = train(TINY_TRAINING)
    assert distributed.history[-1]["episodes"] > 0
    for key, value in alone.model.state_dict().items():
        assert torch.equal(value, distributed.model.state_dict()[key])
