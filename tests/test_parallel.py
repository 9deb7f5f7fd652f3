"""engine.parallel: the same results in task order on every backend, and when work stays here."""

from __future__ import annotations

import os
import signal
import socket
import sys
import time

import pytest
from factories import make_job

from engine.budget import RunBudget, Yielded
from engine.cluster import Cluster
from engine.errors import LabError
from engine.parallel import (
    PARALLEL_MIN_WORK,
    RAY_ADDRESS,
    BackendUnavailable,
    Executor,
    WorkerDied,
    default_backend,
    describe_backend,
)
from engine.run import run_policy

TASKS = list(range(40))


def test_serial_and_local_workers_give_the_same_results_in_task_order():
    seen: list[tuple[int, int]] = []
    with Executor("local", workers=2) as executor:
        assert not executor.in_process(len(TASKS))
        got = executor.map(pow, TASKS, shared=3,  # pow(shared, task), in a worker
                           progress=lambda done, total: seen.append((done, total)))
        again = executor.map(pow, TASKS, shared=5)  # the pool is reused, the new inputs used
    assert got == [pow(3, t) for t in TASKS] == Executor("serial").map(pow, TASKS, shared=3)
    assert again == [pow(5, t) for t in TASKS]
    assert seen[0] == (0, len(TASKS)) and seen[-1] == (len(TASKS), len(TASKS))
    assert [done for done, _ in seen] == sorted(done for done, _ in seen)


def test_small_work_stays_in_process_unless_a_worker_count_is_given():
    auto = Executor("local")
    assert auto.in_process(10, work=PARALLEL_MIN_WORK - 1)
    assert auto.in_process(1, work=10 * PARALLEL_MIN_WORK)  # one task: nothing to spread
    assert auto.in_process(10, work=10 * PARALLEL_MIN_WORK) == (auto.workers < 2)
    assert not Executor("local", workers=2).in_process(10, work=1)
    assert Executor("local", workers=1).in_process(10, work=10 * PARALLEL_MIN_WORK)
    assert Executor("serial").in_process(10, work=10 * PARALLEL_MIN_WORK)


def _pid(shared: None, task: int) -> int:
    return os.getpid()


def test_offload_sends_even_one_small_task_to_a_worker_process():
    """The app's executor: its own process (the server's) never simulates."""
    with Executor("local", workers=1, offload=True) as executor:
        assert not executor.in_process(1, work=1)
        (pid,) = executor.map(_pid, [0])
    assert pid != os.getpid()
    assert "1 worker process on" in executor.describe()


def test_completed_yields_every_index_once():
    pairs = list(Executor("serial").completed(pow, TASKS, shared=2))
    assert sorted(index for index, _ in pairs) == TASKS
    assert all(value == 2**index for index, value in pairs)


def test_ray_address_makes_ray_the_default(monkeypatch):
    monkeypatch.delenv(RAY_ADDRESS, raising=False)
    assert default_backend() == "local"
    assert describe_backend().startswith("local: up to ")
    monkeypatch.setenv(RAY_ADDRESS, "10.0.0.1:6379")
    assert default_backend() == "ray"
    assert describe_backend() == f"ray: the cluster at 10.0.0.1:6379 ({RAY_ADDRESS})"
    assert describe_backend("serial") == "serial: one process"


def test_bad_settings_and_a_missing_ray_are_clear_errors(monkeypatch):
    with pytest.raises(ValueError, match="unknown backend 'spark'"):
        Executor("spark")
    with pytest.raises(ValueError, match="at least 1"):
        Executor("local", workers=0)
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray now raises ImportError
    with pytest.raises(BackendUnavailable, match=r'pip install -e "\.\[ray\]"'):
        Executor("ray")


def _killed_once(marker: str, task: int) -> int:
    """Task 7 kills its worker the first time it runs (as an out-of-memory kill would)."""
    if task == 7 and not os.path.exists(marker):
        open(marker, "w").close()
        os.kill(os.getpid(), signal.SIGKILL)
    return 2 * task


def _killed_always(shared: None, task: int) -> int:
    if task == 7:
        os.kill(os.getpid(), signal.SIGKILL)
    return task


def test_a_dead_worker_is_replaced_and_its_map_finished(tmp_path):
    with Executor("local", workers=2) as executor:
        got = executor.map(_killed_once, TASKS, shared=str(tmp_path / "died"))
        assert got == [2 * t for t in TASKS]
        assert executor.map(pow, TASKS, shared=2) == [2**t for t in TASKS]  # serves on


def test_a_worker_dying_again_is_one_clear_error_and_the_pool_recovers():
    with Executor("local", workers=2) as executor:
        with pytest.raises(WorkerDied, match="died twice"):
            executor.map(_killed_always, TASKS)
        assert executor.map(pow, TASKS, shared=2) == [2**t for t in TASKS]


def test_a_worker_killed_while_idle_does_not_break_the_next_map():
    with Executor("local", workers=2) as executor:
        pids = set(executor.map(_pid, TASKS))
        for pid in pids:
            os.kill(pid, signal.SIGKILL)
        assert executor.map(pow, TASKS, shared=3) == [3**t for t in TASKS]


def _first_fails(folder: str, task: int) -> int:
    """Task 0 fails at once; each other task takes 0.3 s and leaves a file behind."""
    if task == 0:
        raise LabError("task 0 is refused")
    time.sleep(0.3)
    open(os.path.join(folder, str(task)), "w").close()
    return task


def test_a_failed_map_cancels_its_queued_tasks(tmp_path):
    """An error (a budget stop, say) ends the map, and the tasks queued behind it do not
    run: the workers are free for the next map at once."""
    with Executor("local", workers=1, offload=True) as executor:
        with pytest.raises(LabError, match="task 0 is refused"):
            executor.map(_first_fails, TASKS[:20], shared=str(tmp_path))  # a task a chunk
        time.sleep(3.0)  # what was not cancelled would run meanwhile (10 tasks)
        assert len(os.listdir(tmp_path)) <= 4  # the few the pool had already handed out
        assert executor.map(pow, TASKS, shared=2) == [2**t for t in TASKS]


def _fails_then_holds(shared: None, task: int) -> int:
    """Task 0 fails after a moment; task 1 would hold its worker for a minute."""
    time.sleep(0.5 if task == 0 else 60.0)
    if task == 0:
        raise LabError("task 0 is refused")
    return task


def test_a_failed_map_stops_the_chunks_a_worker_already_holds():
    """The pool hands a worker its next chunk before the first ends; stopping the map
    stops that worker too, so the next map (another session's) does not wait a minute."""
    with Executor("local", workers=1, offload=True) as executor:
        with pytest.raises(LabError, match="task 0 is refused"):
            executor.map(_fails_then_holds, [0, 1])
        started = time.monotonic()
        assert executor.map(pow, TASKS, shared=2) == [2**t for t in TASKS]
        assert time.monotonic() - started < 30


def test_an_unreachable_ray_address_fails_fast_with_one_message(monkeypatch):
    pytest.importorskip("ray")
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setenv(RAY_ADDRESS, f"127.0.0.1:{port}")
    started = time.monotonic()
    with pytest.raises(BackendUnavailable, match=f"cannot reach the Ray cluster at .*:{port}"):
        Executor()
    assert time.monotonic() - started < 30  # ray.init alone retried for minutes


def _gives_way(flag: str, task: int) -> int:
    """Task 0 asks the map's runs to give way, as the server's line does, and every task's
    run then stops at its budget's first check."""
    if task == 0:
        time.sleep(0.2)  # the pool hands the worker its next chunk meanwhile
        open(flag, "w").close()
    RunBudget(give_way=flag).meter("fifo-request")
    return task


def test_a_map_that_gives_way_keeps_its_worker(tmp_path):
    """The chunk the worker already holds gives way too, so the worker is kept: the next
    session's map does not wait for a fresh one to start."""
    with Executor("local", workers=1, offload=True) as executor:
        (before,) = executor.map(_pid, [0])
        with pytest.raises(Yielded, match="gave way"):
            executor.map(_gives_way, TASKS[:4], shared=str(tmp_path / "give-way"))
        assert executor.map(_pid, [0]) == [before]


def _fails_beside_a_long_run(flag: str, task: int) -> int:
    """Task 0 fails after a moment; task 1, held by the worker meanwhile, is a run that
    would take minutes, held to a budget that gives way to ``flag``."""
    if task == 0:
        time.sleep(0.2)
        raise LabError("task 0 is refused")
    endless = [make_job(i, 0.0, 365 * 86400.0) for i in range(50)]
    run_policy("tiresias", endless, Cluster(1, 1), budget=RunBudget(give_way=flag))
    return task


def test_a_map_ended_early_asks_the_runs_its_worker_holds_to_give_way(tmp_path):
    """A budget stop ends the press; the run the worker already holds gives way rather than
    costing the worker, so the next map finds it ready."""
    with Executor("local", workers=1, offload=True) as executor:
        (before,) = executor.map(_pid, [0])
        flag = str(tmp_path / "give-way")
        with pytest.raises(LabError, match="task 0 is refused"):
            executor.map(_fails_beside_a_long_run, [0, 1], shared=flag, give_way=flag)
        assert os.path.exists(flag)
        assert executor.map(_pid, [0]) == [before]
