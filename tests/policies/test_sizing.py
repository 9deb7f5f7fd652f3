"""The sizes policies read off a speedup curve (shared by knee, threshold and AFS-L)."""

from __future__ import annotations

import pytest
from factories import make_job

from engine.cluster import Cluster
from engine.policies.sizing import Sizing, request
from engine.speedup import Amdahl


@pytest.mark.parametrize(
    ("cap", "useful", "efficient", "knee"),
    [(8, 8, 6, 4), (5, 5, 5, 4), (3, 3, 3, 3), (0, None, None, None)],
)
def test_amdahl_sizes(cap, useful, efficient, knee):
    # S(k) = 1 / (0.2 + 0.8 / k) keeps rising (useful = the cap); efficiency
    # 1 / (0.2 k + 0.8) >= 0.5 up to k = 6; S x efficiency = k / (0.2 k + 0.8)^2 peaks at 4.
    job = make_job(0, 0, 100, model=Amdahl(serial_fraction=0.2, cross_node_penalty=0.0))
    sizing = Sizing(Cluster(1, 8))
    assert (sizing.useful(job, cap), sizing.efficient(job, cap), sizing.knee(job, cap)) == (
        useful,
        efficient,
        knee,
    )


def test_crossing_nodes_can_make_more_gpus_slower():
    # Perfect scaling but half the speed once on 2 nodes (2 x 2 GPUs):
    # S = 1, 2, 1.5, 2 for 1..4 GPUs. Top speedup first reached at 2; 3 and 4 are 50%
    # efficient yet no faster, so efficient stays at 2; S x efficiency = 1, 2, .75, 1.
    job = make_job(0, 0, 100, model=Amdahl(serial_fraction=0.0, cross_node_penalty=0.5))
    sizing = Sizing(Cluster(2, 2))
    assert (sizing.useful(job, 4), sizing.efficient(job, 4), sizing.knee(job, 4)) == (2, 2, 2)
    assert sizing.runtime(job, 3) == pytest.approx(100 / 1.5)


def test_request_is_clipped_to_job_and_cluster():
    assert request(make_job(0, 0, 1, requested=9, max_gpus=6), 8) == 6
    assert request(make_job(0, 0, 1, requested=9), 8) == 8
    assert request(make_job(0, 0, 1, requested=1, min_gpus=2), 8) == 2
