"""A fast deterministic slice of the mutation fuzzer (``engine.fuzz``); the long run is
``bench/bench_fuzz.py``. Every case ends in jobs that all complete, or a user error."""

from __future__ import annotations

import math
import subprocess
import sys
import warnings

import pytest

from engine.cluster import Cluster
from engine.errors import USER_ERRORS
from engine.fuzz import SEEDS, case
from engine.policies import make_policy
from engine.simulator import simulate
from engine.workload import load_workload, to_jobs

CLUSTER = Cluster(4, 4)


def test_every_seed_file_is_valid() -> None:
    for data in SEEDS.values():
        assert len(load_workload(data, cluster=Cluster())) >= 3


def test_cases_are_the_same_bytes_every_time() -> None:
    assert [case(i) for i in range(20)] == [case(i) for i in range(20)]
    assert len({case(i)[1] for i in range(20)}) > 15


@pytest.mark.parametrize("block", range(5))
def test_mutated_files_load_and_run_or_say_why(block: int) -> None:
    for number in range(block * 30, block * 30 + 30):
        name, data = case(number)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # a RuntimeWarning leaking is a failure too
            try:
                jobs = to_jobs(load_workload(data, cluster=CLUSTER, max_rows=2000), CLUSTER)
                result = simulate(jobs, CLUSTER, make_policy("knee"))
            except USER_ERRORS:
                continue
        assert result.summary.completed == len(jobs), name  # no job lost silently
        assert all(math.isfinite(x) and x > 0 for x in result.jobs["jct"]), name


@pytest.mark.parametrize("number", [3, 41, 77])
def test_the_cli_exits_0_or_2_without_a_traceback(number: int, tmp_path) -> None:
    path = tmp_path / "case.csv"
    path.write_bytes(case(number)[1])
    done = subprocess.run(
        [sys.executable, "-m", "engine", "simulate", "--workload", str(path),
         "--policy", "tiresias", "--json"],
        capture_output=True, text=True, timeout=60, check=False,
    )
    assert done.returncode in (0, 2) and "Traceback" not in done.stderr, done.stderr
