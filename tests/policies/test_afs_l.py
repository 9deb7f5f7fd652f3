"""Hand-computed scenarios for AFS-L applied at start time."""

from __future__ import annotations

from factories import make_job

from engine.cluster import Cluster
from engine.policies import make_policy
from engine.simulator import simulate
from engine.speedup import Amdahl

# Speedup S(k) = 1 / (0.2 + 0.8 / k) on one node: S(1..4) = 1, 5/3, 15/7, 5/2.
SUBLINEAR = Amdahl(serial_fraction=0.2, cross_node_penalty=0.0)


def test_shorter_job_wins_only_while_its_gain_is_larger():
    # 4 GPUs; j0 has 100 s of work, j1 300 s. Throughput W = S(k) / work.
    # GPU 1: j0 (shorter on its minimum) -> j0 on 1.
    # GPU 2: l = j0 gains W(2)/W(1) - 1 = 2/3; h = j1 has no GPU, its gain counts as 1
    #        -> j1 on 1.
    # GPU 3: l = j0 gains 2/3; h = j1 gains 1 - W(1)/W(2) = 0.4 -> j0 on 2.
    # GPU 4: l = j0 (60 s left < 300 s) gains S(3)/S(2) - 1 = 2/7; h = j1 0.4 -> j1 on 2.
    # Both end on 2 GPUs: j0 after 100 / (5/3) = 60 s, j1 after 180 s.
    jobs = [make_job(0, 0, 100, model=SUBLINEAR), make_job(1, 0, 300, model=SUBLINEAR)]
    table = simulate(jobs, Cluster(1, 4), make_policy("afs-l")).jobs.set_index("job_id")
    assert table["gpus"].to_dict() == {"j0": 2, "j1": 2}
    assert table["end"].round(9).to_dict() == {"j0": 60, "j1": 180}


def test_short_jobs_go_first_whatever_their_arrival():
    # Linear speedup, 4 GPUs. j1 (min 4) is shorter on its minimum (25 s) than j0 on its
    # (1000 s), so it takes all 4 first, although j0 arrived first. Alone at t=25, j0
    # grows to all 4: 25..275.
    jobs = [make_job(0, 0, 1000), make_job(1, 0, 100, min_gpus=4)]
    table = simulate(jobs, Cluster(1, 4), make_policy("afs-l")).jobs.set_index("job_id")
    assert table[["start", "gpus", "end"]].values.tolist() == [[25, 4, 275], [0, 4, 25]]
