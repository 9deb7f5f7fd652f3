"""``reproduce --seeds 2`` on a two-node Ray cluster (``ray start`` twice on one machine).

Each node is a ``ray start --block`` process of its own, with one CPU; the command finds
the cluster through ``RAY_ADDRESS``, as on a real cluster, and must print exactly what
the serial backend prints. Token authentication is off (``RAY_AUTH_MODE=disabled``):
the cluster listens on this machine only, for the test's lifetime.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time

import pytest

pytest.importorskip("ray.util", reason="the ray extra is not installed")  # not "ray": this folder
import ray

REPRODUCE = [sys.executable, "-m", "engine", "reproduce", "--seeds", "2", "--json"]
NO_TOKEN = {"RAY_AUTH_MODE": "disabled"}
NODE_OPTIONS = ["--node-ip-address=127.0.0.1", "--num-cpus=1", "--disable-usage-stats", "--block"]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _ray_cli() -> str:
    return os.path.join(os.path.dirname(sys.executable), "ray")


@pytest.fixture(scope="module")
def two_nodes(tmp_path_factory):
    address = f"127.0.0.1:{_free_port()}"
    logs = tmp_path_factory.mktemp("ray")
    saved = {key: os.environ.get(key) for key in NO_TOKEN}
    os.environ.update(NO_TOKEN)  # for the nodes, this process's probes and the command
    nodes = [subprocess.Popen(
        [_ray_cli(), "start", "--head", f"--port={address.rsplit(':', 1)[1]}",
         "--include-dashboard=false", *NODE_OPTIONS],
        stdout=(logs / "head.log").open("w"), stderr=subprocess.STDOUT)]
    try:
        _wait_for_nodes(address, 1)
        nodes.append(subprocess.Popen(
            [_ray_cli(), "start", f"--address={address}", *NODE_OPTIONS],
            stdout=(logs / "worker.log").open("w"), stderr=subprocess.STDOUT))
        _wait_for_nodes(address, 2)
        yield address
    finally:
        for node in reversed(nodes):  # each --block process stops the node it started
            node.terminate()
            node.wait(timeout=60)
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key)
            else:
                os.environ[key] = value


def _wait_for_nodes(address: str, count: int, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            ray.init(address=address, log_to_driver=False)
            alive = sum(node["Alive"] for node in ray.nodes())
            ray.shutdown()
            if alive >= count:
                return
        except ConnectionError:
            pass
        if time.monotonic() > deadline:
            raise TimeoutError(f"{count} Ray nodes at {address} did not come up")
        time.sleep(1.0)


def test_reproduce_on_two_nodes_matches_serial(two_nodes, tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    serial = subprocess.run([*REPRODUCE, "--backend", "serial"], cwd=tmp_path, env=env,
                            capture_output=True, text=True, check=True)
    clustered = subprocess.run(REPRODUCE, cwd=tmp_path, env={**env, "RAY_ADDRESS": two_nodes},
                               capture_output=True, text=True, check=True)
    assert clustered.stdout == serial.stdout
