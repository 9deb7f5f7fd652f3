"""The training curriculum: workload seeds apart from evaluation's."""

from __future__ import annotations

import numpy as np

from engine.env.curriculum import TRAIN_SEEDS, Curriculum


def _draws(curriculum: Curriculum, n: int = 12):
    rng = np.random.default_rng(5)
    return [curriculum.sample(rng) for _ in range(n)]


def test_workload_seeds_are_training_seeds():
    for config, _ in _draws(Curriculum()):
        assert config.seed in TRAIN_SEEDS
