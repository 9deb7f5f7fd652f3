"""Hand-computed scenarios for the knee allocation, FIFO."""

from __future__ import annotations

import pytest
from factories import make_job

from engine.cluster import Cluster
from engine.policies import make_policy
from engine.simulator import simulate
from engine.speedup import Amdahl

# Amdahl with serial fraction 0.2: speedup x efficiency = k / (0.2 k + 0.8)^2, highest
# at k = 0.8 / 0.2 = 4 (S = 2.5); below it, every extra GPU still raises it.
KNEE_AT_4 = Amdahl(serial_fraction=0.2, cross_node_penalty=0.0)


def _table(jobs, cluster):
    return simulate(jobs, cluster, make_policy("knee")).jobs.set_index("job_id")


def test_each_job_gets_its_knee_and_the_head_blocks():
    # 8 GPUs: j0 on 4, j1 on 4 (100 / 2.5 = 40 s each); j2 (min 2) finds none free and
    # starts at 40 on its knee 4 (40..80).
    jobs = [make_job(i, 0, 100, min_gpus=1 + i // 2, model=KNEE_AT_4) for i in range(3)]
    table = _table(jobs, Cluster(1, 8))
    assert table[["start", "gpus", "end"]].values.tolist() == [
        [0, 4, 40],
        [0, 4, 40],
        [40, 4, 80],
    ]


def test_knee_within_the_free_gpus():
    # 6 GPUs: j0 on its knee 4; j1 gets the best of the 2 left, 2 (S = 5/3 -> 60 s).
    jobs = [make_job(i, 0, 100, model=KNEE_AT_4) for i in range(2)]
    table = _table(jobs, Cluster(1, 6))
    assert table["gpus"].to_dict() == {"j0": 4, "j1": 2}
    assert table.loc["j1", "end"] == pytest.approx(60)
