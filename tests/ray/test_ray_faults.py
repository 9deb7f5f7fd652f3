"""Ray workers killed under a comparison: Ray retries the task and the table is the serial
one; a task whose worker dies every time is one clear ``WorkerDied``, never a traceback
of Ray's, and the executor serves on."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time

import pytest

pytest.importorskip("ray.util", reason="the ray extra is not installed")  # not "ray": this folder
import ray
from ray import cloudpickle

from engine.cluster import Cluster
from engine.compare import compare
from engine.parallel import Executor, WorkerDied
from engine.workload import GeneratorConfig

CLUSTER = Cluster(4, 4)
POLICIES = ["fifo-request", "threshold-optimal", "sjf-knee"]
CONFIG = GeneratorConfig(jobs=600, load=1.0)
SEEDS = [0, 1, 2, 3]


@pytest.fixture(scope="module")
def local_ray():
    """A local Ray with token authentication off for this process and the nodes it starts
    alike: a module before this one (test_ray_cluster) may have left this process's Ray
    reading ``RAY_AUTH_MODE=disabled``, and a head started without it would then refuse
    this process's connection."""
    saved = os.environ.get("RAY_AUTH_MODE")
    os.environ["RAY_AUTH_MODE"] = "disabled"
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # _always_dies, in workers
    yield
    ray.shutdown()
    if saved is None:
        os.environ.pop("RAY_AUTH_MODE")
    else:
        os.environ["RAY_AUTH_MODE"] = saved


def ray_tasks_running(title: str) -> list[int]:
    """PIDs of the Ray workers running ``title`` now (Ray names them ``ray::<function>``)."""
    found = []
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                if cmdline.read().startswith(f"ray::{title}".encode()):
                    found.append(int(entry))
        except (OSError, ValueError):
            continue
    return found


def test_a_worker_killed_mid_compare_gives_the_serial_table(local_ray):
    serial = compare(POLICIES, SEEDS, CLUSTER, config=CONFIG, executor=Executor("serial"))
    outcome: dict[str, object] = {}

    def run() -> None:
        with Executor("ray") as on_ray:
            outcome["table"] = compare(POLICIES, SEEDS, CLUSTER, config=CONFIG,
                                       executor=on_ray)

    thread = threading.Thread(target=run)
    thread.start()
    deadline = time.monotonic() + 60
    while not (busy := ray_tasks_running("_run_ray_chunk")) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert busy, "no Ray worker ran a chunk"
    os.kill(busy[0], signal.SIGKILL)
    thread.join(timeout=300)
    assert not thread.is_alive()
    table = outcome["table"]
    assert serial.equals(table) and serial.attrs == table.attrs


def _always_dies(shared: None, task: int) -> int:
    if task == 3:
        os.kill(os.getpid(), signal.SIGKILL)
    return task


def test_a_task_whose_worker_always_dies_is_one_clear_error(local_ray):
    with Executor("ray") as on_ray:
        with pytest.raises(WorkerDied, match="a Ray worker died while running this"):
            on_ray.map(_always_dies, list(range(8)))
        assert on_ray.map(pow, list(range(8)), shared=2) == [2**t for t in range(8)]
