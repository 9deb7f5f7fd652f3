"""The generator: determinism, invariants over seeds and sizes, and the offered load."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cluster import Cluster, packed_nodes
from engine.speedup import MEASURED_MODELS, Amdahl
from engine.workload import MAX_GENERATED_JOBS, GeneratorConfig, generate, offered_load
from engine.workload.generator import (
    BURSTY_CV,
    PHILLY_SIZES,
    REQUEST_RULES,
    SIZE_DISTRIBUTIONS,
)

CLUSTER = Cluster(16, 4)


def test_same_seed_same_workload_and_different_seed_different() -> None:
    config = GeneratorConfig(jobs=500, seed=42)
    first, second = generate(config, CLUSTER), generate(config, CLUSTER)
    pd.testing.assert_frame_equal(first.frame, second.frame)
    other = generate(GeneratorConfig(jobs=500, seed=43), CLUSTER)
    assert not first.frame["runtime_1gpu"].equals(other.frame["runtime_1gpu"])


def test_default_mix_is_the_measured_models() -> None:
    frame = generate(GeneratorConfig(jobs=2000), CLUSTER).frame
    counts = frame["model"].value_counts()
    assert set(counts.index) == set(MEASURED_MODELS)
    assert counts.min() > 2000 / 6 * 0.8


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    jobs=st.integers(1, 400),
    size_distribution=st.sampled_from(SIZE_DISTRIBUTIONS),
    request_rule=st.sampled_from(REQUEST_RULES),
    max_request=st.integers(1, 100),
    bounds=st.tuples(st.floats(1, 1e5), st.floats(1, 1e5)).map(sorted),
)
def test_invariants(
    seed: int,
    jobs: int,
    size_distribution: str,
    request_rule: str,
    max_request: int,
    bounds: list[float],
) -> None:
    config = GeneratorConfig(
        jobs=jobs,
        seed=seed,
        size_distribution=size_distribution,
        request_rule=request_rule,
        max_request=max_request,
        min_runtime=bounds[0],
        max_runtime=bounds[1],
        model_mix={"amdahl": 1.0, "bert": 2.0, "linear": 0.5, "downey": 1.0},
    )
    frame = generate(config, CLUSTER).frame
    submit = frame["submit_time"].to_numpy()
    assert len(frame) == jobs
    assert submit[0] == 0.0 and (np.diff(submit) >= 0).all()
    assert (frame["min_gpus"] <= frame["requested_gpus"]).all()
    assert (frame["requested_gpus"] <= frame["max_gpus"]).all()
    assert frame["requested_gpus"].max() <= min(max_request, CLUSTER.total_gpus)
    assert frame["runtime_1gpu"].between(*bounds).all()
    assert frame["job_id"].is_unique


@pytest.mark.parametrize("size_distribution", SIZE_DISTRIBUTIONS)
@pytest.mark.parametrize("request_rule", REQUEST_RULES)
@pytest.mark.parametrize("load", [0.5, 0.85, 1.5])
def test_realised_load_is_on_target(size_distribution: str, request_rule: str, load: float) -> None:
    config = GeneratorConfig(
        jobs=2000,
        load=load,
        seed=7,
        size_distribution=size_distribution,
        request_rule=request_rule,
    )
    realised = offered_load(generate(config, CLUSTER), CLUSTER)
    assert realised == pytest.approx(load, rel=0.10)


def test_request_rules() -> None:
    def requests(rule: str, cap: int = 16) -> set[int]:
        config = GeneratorConfig(jobs=3000, request_rule=rule, max_request=cap)
        return set(generate(config, CLUSTER).frame["requested_gpus"])

    assert requests("one") == {1}
    assert requests("power-of-two") == {1, 2, 4, 8, 16}
    assert requests("power-of-two", cap=12) == {1, 2, 4, 8}
    assert max(requests("pollux", cap=8)) <= 8
    assert requests("any", cap=8) == set(range(1, 9))  # over- and under-askers


def test_bursty_arrivals_keep_the_rate_and_come_in_waves() -> None:
    def gaps(arrivals: str) -> np.ndarray:
        config = GeneratorConfig(jobs=4000, seed=3, arrivals=arrivals)
        return np.diff(generate(config, CLUSTER).frame["submit_time"].to_numpy())

    poisson, bursty = gaps("poisson"), gaps("bursty")
    assert bursty.mean() == pytest.approx(poisson.mean(), rel=0.15)  # same offered load
    assert poisson.std() / poisson.mean() == pytest.approx(1.0, abs=0.1)
    assert bursty.std() / bursty.mean() == pytest.approx(BURSTY_CV, rel=0.25)


def test_pollux_rule_picks_the_efficiency_band() -> None:
    config = GeneratorConfig(jobs=500, model_mix={"amdahl": 1.0}, request_rule="pollux")
    requested = generate(config, CLUSTER).frame["requested_gpus"].to_numpy()
    efficiency = [Amdahl().speedup(k, packed_nodes(k, 4)) / k for k in requested]
    assert min(efficiency) >= 0.5 and max(efficiency) <= 0.8


def test_pollux_rule_falls_back_to_the_counts_closest_to_the_band() -> None:
    config = GeneratorConfig(jobs=500, model_mix={"linear": 1.0}, max_request=8)
    # linear scaling is 100 % efficient everywhere: every count is equally close
    assert set(generate(config, CLUSTER).frame["requested_gpus"]) == set(range(1, 9))


def test_philly_sizes_follow_the_committed_quantiles_within_the_bounds() -> None:
    fit = json.loads(PHILLY_SIZES.read_text())
    assert "philly" in fit["source"].lower()
    quantiles = np.array(fit["gpu_time_s"])
    low, high = 600.0, 8 * 3600.0
    config = GeneratorConfig(
        jobs=20_000, size_distribution="philly", min_runtime=low, max_runtime=high
    )
    runtime = generate(config, CLUSTER).frame["runtime_1gpu"].to_numpy()
    inside = quantiles[(quantiles > low) & (quantiles < high)]
    # the share of jobs below each inner quantile matches the truncated distribution
    window = np.interp(np.log([low, high]), np.log(quantiles), fit["probabilities"])
    for q in inside[:: max(len(inside) // 5, 1)]:
        p = np.interp(np.log(q), np.log(quantiles), fit["probabilities"])
        expected = (p - window[0]) / (window[1] - window[0])
        assert np.mean(runtime <= q) == pytest.approx(expected, abs=0.02)


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"jobs": 0}, "jobs must be at least 1"),
        ({"load": 0.0}, "load must be a number in (0, 5]"),
        ({"load": float("nan")}, "load must be a number in (0, 5]"),
        ({"size_distribution": "pareto"}, "size_distribution must be one of"),
        ({"min_runtime": 10.0, "max_runtime": 5.0}, "min_runtime <= max_runtime"),
        ({"model_mix": {"gpt": 1.0}}, "unknown models ['gpt']"),
        ({"model_mix": {"bert": -1.0}}, "weights must be >= 0"),
        ({"model_mix": {"bert": 0.0}}, "positive sum"),
        ({"request_rule": "max"}, "request_rule must be one of"),
        ({"arrivals": "weekly"}, "arrivals must be one of"),
        ({"max_request": 0}, "max_request must be at least 1"),
    ],
)
def test_config_is_checked(change: dict, words: str) -> None:
    with pytest.raises(ValueError, match=re.escape(words)):
        GeneratorConfig(**change)


def test_config_reports_every_mistake_at_once() -> None:
    with pytest.raises(ValueError, match=r"jobs must.*; load must"):
        GeneratorConfig(jobs=0, load=-1.0)


def test_job_count_is_capped() -> None:
    GeneratorConfig(jobs=MAX_GENERATED_JOBS)
    with pytest.raises(
        ValueError,
        match=r"jobs must be at most 1,000,000 \(the generator's limit\), got 10,000,000",
    ):
        GeneratorConfig(jobs=10_000_000)


def test_a_config_pickles_with_its_read_only_default_mix():
    """Executors ship configs to their workers."""
    import pickle
    from types import MappingProxyType

    default = GeneratorConfig(load=0.7)
    copy = pickle.loads(pickle.dumps(default))
    assert copy == default and repr(copy) == repr(default)
    assert isinstance(copy.model_mix, MappingProxyType)
    mixed = GeneratorConfig(model_mix={"bert": 2.0})
    assert pickle.loads(pickle.dumps(mixed)) == mixed
