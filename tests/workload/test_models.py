"""Speedup models per row, packed speedups and the offered load."""

from __future__ import annotations

import math

import numpy as np
import pytest

from engine.cluster import Cluster
from engine.speedup import Amdahl, Linear
from engine.workload import load_workload, offered_load
from engine.workload.models import packed_speedups, speedup_models

TEXT = (
    "submit_time,runtime_1gpu,model,requested_gpus,serial_fraction\n"
    "0,100,amdahl,4,0.1\n"
    "10,100,amdahl,4,\n"
    "20,100,linear,8,\n"
    "30,100,amdahl,2,0.1\n"
    "40,100,amdahl,4,\n"
)


def test_identical_models_share_one_object() -> None:
    models, codes = speedup_models(load_workload(TEXT).frame)
    assert len(models) == 3
    assert [models[c] for c in codes] == [
        Amdahl(0.1),
        Amdahl(),
        Linear(),
        Amdahl(0.1),
        Amdahl(),
    ]
    assert codes[0] == codes[3] and codes[1] == codes[4]


def test_packed_speedups_use_the_fewest_nodes() -> None:
    cluster = Cluster(16, 4)
    models = [Amdahl(0.1)]
    got = packed_speedups(models, np.zeros(3, dtype=np.intp), np.array([1, 4, 8]), cluster)
    assert got.tolist() == pytest.approx(
        [1.0, Amdahl(0.1).speedup(4, 1), Amdahl(0.1).speedup(8, 2)]
    )


def test_offered_load_is_requested_work_over_cluster_capacity() -> None:
    cluster = Cluster(16, 4)
    workload = load_workload(TEXT)
    work = [
        4 * 100 / Amdahl(0.1).speedup(4, 1),
        4 * 100 / Amdahl().speedup(4, 1),
        8 * 100 / Linear().speedup(8, 2),
        2 * 100 / Amdahl(0.1).speedup(2, 1),
        4 * 100 / Amdahl().speedup(4, 1),
    ]
    rate = 4 / 40
    assert offered_load(workload, cluster) == pytest.approx(rate * np.mean(work) / 64)


def test_offered_load_needs_two_distinct_submit_times() -> None:
    one = load_workload("submit_time,runtime_1gpu\n0,1\n")
    assert math.isnan(offered_load(one, Cluster()))
