"""The training curriculum: seeds apart from evaluation's, and knobs that keep old draws."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from engine.env.curriculum import TRAIN_SEEDS, Curriculum


def _draws(curriculum: Curriculum, n: int = 12):
    rng = np.random.default_rng(5)
    return [curriculum.sample(rng) for _ in range(n)]


def test_workload_seeds_are_training_seeds():
    for config, _ in _draws(Curriculum()):
        assert config.seed in TRAIN_SEEDS


def test_one_max_runtime_draws_exactly_what_the_default_draws():
    longer = replace(Curriculum(), max_runtimes=(100 * 3600.0,))
    for (a, cluster_a), (b, cluster_b) in zip(_draws(Curriculum()), _draws(longer), strict=True):
        assert replace(a, max_runtime=b.max_runtime) == b and cluster_a == cluster_b
        assert b.max_runtime == 100 * 3600.0


def test_several_max_runtimes_are_all_drawn_and_bound_the_jobs():
    bounds = (8 * 3600.0, 200 * 3600.0)
    mixed = replace(Curriculum(cluster_gpus=(32,), jobs=(40, 40)), max_runtimes=bounds)
    assert {config.max_runtime for config, _ in _draws(mixed, 30)} == set(bounds)
    rng = np.random.default_rng(1)
    for _ in range(6):
        jobs, _ = mixed.workload(rng)
        assert max(j.runtime_1gpu for j in jobs) <= bounds[1]
