"""The shipped measured profiles: sane, smooth, cached, and true to Pollux's quirks."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.speedup import SpeedupModel, measured
from engine.speedup.measured import (
    MEASURED_MODELS,
    MeasuredProfile,
    load_profile,
    pollux_runtime_1gpu,
)

WORKLOADS = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "pollux" / "workloads"
HOUR = 3600.0


def _packed(profile: MeasuredProfile, gpus: int) -> float:
    return profile.speedup(gpus, math.ceil(gpus / 4))


def test_the_six_pollux_models() -> None:
    assert MEASURED_MODELS == ("bert", "cifar10", "deepspeech2", "imagenet", "ncf", "yolov3")
    for name in MEASURED_MODELS:
        profile = load_profile(name)
        assert isinstance(profile, SpeedupModel)
        assert profile.name == name


@pytest.mark.parametrize("name", MEASURED_MODELS)
def test_one_gpu_is_the_unit(name: str) -> None:
    assert load_profile(name).speedup(1, 1) == pytest.approx(1.0, rel=1e-12)


@pytest.mark.parametrize("name", MEASURED_MODELS)
def test_finite_and_positive_on_every_placement(name: str) -> None:
    profile = load_profile(name)
    for gpus in range(1, 65):
        for nodes in range(math.ceil(gpus / 4), gpus + 1):
            value = profile.speedup(gpus, nodes)
            assert math.isfinite(value) and value > 0, (gpus, nodes, value)


@pytest.mark.parametrize("name", MEASURED_MODELS)
def test_smooth_in_gpus(name: str) -> None:
    """One more GPU never halves or more than doubles speed; only crossing to a 2nd node may
    slow a job down (a real cliff in the data), and past it speed only grows."""
    profile = load_profile(name)
    speeds = [_packed(profile, k) for k in range(1, 65)]
    ratios = [b / a for a, b in itertools.pairwise(speeds)]
    assert all(0.5 <= r <= 2.0 for r in ratios)
    assert all(r >= 1.0 for k, r in enumerate(ratios, start=1) if k != 4)


def test_crossing_nodes_costs_what_pollux_measured() -> None:
    two_nodes = {name: load_profile(name).speedup(2, 2) for name in MEASURED_MODELS}
    assert all(two_nodes[n] < load_profile(n).speedup(2, 1) for n in MEASURED_MODELS)
    slower_than_one = {name for name, value in two_nodes.items() if value < 1.0}
    assert {"ncf", "yolov3"} <= slower_than_one


def test_loading_is_cached() -> None:
    measured._document.cache_clear()
    load_profile.cache_clear()
    profiles = [load_profile(name) for name in MEASURED_MODELS * 2]
    assert measured._document.cache_info().misses == 1
    assert load_profile("bert") is profiles[0]


def test_bad_arguments() -> None:
    with pytest.raises(KeyError, match="known"):
        load_profile("gpt5")
    profile = load_profile("bert")
    for gpus, nodes in [(0, 1), (2, 3), (4, 0)]:
        with pytest.raises(ValueError):
            profile.speedup(gpus, nodes)


@given(
    st.sampled_from(MEASURED_MODELS),
    st.integers(1, 256).flatmap(lambda k: st.tuples(st.just(k), st.integers(1, k))),
)
def test_never_superlinear(name: str, placement: tuple[int, int]) -> None:
    gpus, nodes = placement
    assert load_profile(name).speedup(gpus, nodes) <= gpus * (1 + 1e-12)


def test_runtime_of_typical_pollux_jobs() -> None:
    """Minutes to hours on one GPU; only ImageNet's 90 epochs take days."""
    typical = {
        ("bert", 384): (1, 24),
        ("cifar10", 2048): (0.25, 24),
        ("cifar10", 4096): (0.25, 24),
        ("deepspeech2", 320): (1, 24),
        ("deepspeech2", 640): (1, 24),
        ("imagenet", 3200): (48, 14 * 24),
        ("imagenet", 6400): (48, 14 * 24),
        ("ncf", 32768): (0, 0.25),
        ("yolov3", 64): (1, 48),
    }
    for (application, batch), (low, high) in typical.items():
        hours = pollux_runtime_1gpu(application, batch) / HOUR
        assert low < hours < high, (application, batch, hours)


def test_runtime_splits_big_batches_into_micro_batches() -> None:
    """On one GPU cifar10's batch 2048 runs as 2 micro-batches of its largest measured 1024."""
    work = measured._document()["applications"]["cifar10"]
    profile = load_profile("cifar10")
    micro_step = profile.alpha_1 + profile.beta_1 * 1024
    expected = work["iterations"]["2048"] * 2 * micro_step
    assert pollux_runtime_1gpu("cifar10", 2048) == pytest.approx(expected)


def test_runtime_interpolates_and_keeps_small_batches_efficient() -> None:
    work = measured._document()["applications"]["imagenet"]["iterations"]
    step = load_profile("imagenet").step_time(1, 1, 100)
    assert pollux_runtime_1gpu("imagenet", 100) == pytest.approx(work["200"] * 2 * step)
    between = pollux_runtime_1gpu("imagenet", 300) / load_profile("imagenet").step_time(1, 1, 150)
    assert between / 2 == pytest.approx((work["200"] + work["400"]) / 2)


def test_runtime_bad_arguments() -> None:
    with pytest.raises(KeyError):
        pollux_runtime_1gpu("resnet9000", 128)
    with pytest.raises(ValueError):
        pollux_runtime_1gpu("cifar10", 8192)
    with pytest.raises(ValueError):
        pollux_runtime_1gpu("cifar10", 0)


@pytest.mark.skipif(not WORKLOADS.exists(), reason="../shared/data is absent")
def test_every_workload_job_has_a_runtime() -> None:
    jobs = pd.concat(pd.read_csv(p) for p in sorted(WORKLOADS.glob("workload-*.csv")))
    pairs = set(zip(jobs["application"], jobs["batch_size"], strict=True))
    for application, batch in pairs:
        seconds = pollux_runtime_1gpu(application, int(batch))
        assert math.isfinite(seconds) and seconds > 0
