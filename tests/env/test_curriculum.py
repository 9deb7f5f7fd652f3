"""The training curriculum: workload seeds apart from evaluation's."""

from __future__ import annotations

import numpy as np

from engine.env.curriculum import CURRICULA, TRAIN_SEEDS, Curriculum


def _draws(curriculum: Curriculum, n: int = 12):
    rng = np.random.default_rng(5)
    return [curriculum.sample(rng) for _ in range(n)]


def test_workload_seeds_are_training_seeds():
    for config, _ in _draws(Curriculum()):
        assert config.seed in TRAIN_SEEDS


def test_the_broad_curriculum_reaches_every_regime_it_is_used_in():
    draws = _draws(Curriculum(), 400)
    clusters = {(c.nodes, c.gpus_per_node) for _, c in draws}
    assert (1, 8) in clusters and (32, 8) in clusters and (64, 4) in clusters
    loads = [config.load for config, _ in draws]
    assert min(loads) < 0.5 and max(loads) > 3.0 and all(0.3 <= x <= 5.0 for x in loads)
    assert {config.request_rule for config, _ in draws} == {"pollux", "power-of-two", "one",
                                                             "any"}
    assert {config.arrivals for config, _ in draws} == {"poisson", "bursty"}
    assert {config.max_runtime for config, _ in draws} == {8 * 3600.0, 3 * 86400.0}
    assert any(config.model_mix["amdahl"] > 0.3 for config, _ in draws)


def test_every_named_curriculum_draws_valid_workloads():
    for name, curriculum in CURRICULA.items():
        rng = np.random.default_rng(1)
        jobs, cluster = curriculum.workload(rng)
        assert jobs and cluster.total_gpus in curriculum.cluster_gpus, name
