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
    assert Curriculum().trace_shaped == 0.25  # what the shipped drl trained on
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


def test_trace_shaped_episodes_look_like_an_imported_trace_of_rigid_runs():
    draws = _draws(Curriculum().trace_like(), 100)
    for config, _ in draws:
        assert list(config.model_mix) == ["amdahl"] and config.arrivals == "bursty"
        assert config.load >= 1.0 and config.max_runtime == 3 * 86400.0
        assert config.request_rule in {"one", "power-of-two", "any"}
    # the rest of the curriculum (clusters, jobs) is the broad one's
    assert {cluster.total_gpus for _, cluster in draws} == set(Curriculum().cluster_gpus)


def test_a_share_of_trace_shaped_episodes_is_drawn_among_the_others():
    draws = _draws(Curriculum(trace_shaped=0.25), 400)
    shaped = sum(list(config.model_mix) == ["amdahl"] for config, _ in draws)
    assert 70 <= shaped <= 130  # 100 expected
    assert {config.arrivals for config, _ in draws} == {"poisson", "bursty"}
    # without a share, none: every draw is the independent settings' own
    assert not any(list(config.model_mix) == ["amdahl"]
                   for config, _ in _draws(Curriculum(trace_shaped=0.0), 400))
