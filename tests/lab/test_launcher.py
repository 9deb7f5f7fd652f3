"""The launcher passes the app's Streamlit settings, including the classroom ones, and
its server dies with it."""

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from lab.__main__ import streamlit_flags

ROOT = Path(__file__).resolve().parents[2]


def test_flags_carry_every_setting_of_the_config_file():
    flags = streamlit_flags()
    assert "--runner.magicEnabled=false" in flags
    assert "--theme.base=light" in flags


def test_a_classroom_server_neither_watches_sources_nor_collects_after_every_run():
    """Both cost more CPU per script run than most pages' own work (bench_classroom_server)."""
    flags = streamlit_flags()
    assert "--server.fileWatcherType=none" in flags
    assert "--runner.postScriptGC=false" in flags


def test_a_spawned_worker_reimporting_the_entry_point_starts_no_app(monkeypatch):
    """Worker processes spawned under the app re-import ``app.py`` as ``__mp_main__``;
    starting the app there would start another executor, and so on."""
    import runpy

    import lab.app

    calls = []
    monkeypatch.setattr(lab.app, "main", lambda: calls.append(1))
    entry = ROOT / "app.py"
    runpy.run_path(str(entry), run_name="__mp_main__")
    assert calls == []
    runpy.run_path(str(entry), run_name="__main__")
    assert calls == [1]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _healthy(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as r:
            return r.read() == b"ok"
    except OSError:
        return False


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_killing_the_launcher_stops_the_server(signum):
    """A lecturer's Ctrl-C (or a service manager's SIGTERM) must not leave a server behind."""
    port = _free_port()
    launcher = subprocess.Popen(
        [sys.executable, "-m", "lab", "--server.port", str(port),
         "--server.address", "127.0.0.1"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True,  # so the test can clean up whatever the launcher started
    )
    try:
        deadline = time.monotonic() + 60
        while not _healthy(port):
            assert launcher.poll() is None, "the launcher exited before the server answered"
            assert time.monotonic() < deadline, "the app did not start in 60 s"
            time.sleep(0.3)
        launcher.send_signal(signum)
        launcher.wait(timeout=20)
        deadline = time.monotonic() + 10
        while _healthy(port) and time.monotonic() < deadline:
            time.sleep(0.3)
        assert not _healthy(port), "the Streamlit server outlived its launcher"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(launcher.pid, signal.SIGKILL)
        launcher.wait(timeout=10)
