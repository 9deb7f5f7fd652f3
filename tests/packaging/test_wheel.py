"""The wheel works outside a checkout: weights found and verified, CLI and app start.

The wheel is built from this checkout and installed into a fresh virtual environment
that borrows the dependencies of the interpreter running the tests (see
:func:`borrow_site_packages`), so the test needs no network; every command runs from an
empty folder, so nothing of the checkout is on ``sys.path``.
"""

from __future__ import annotations

import json
import os
import shutil
import site
import socket
import subprocess
import sys
import tarfile
import time
import urllib.request
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def borrow_site_packages(python: Path) -> None:
    """Put this interpreter's site-packages on ``python``'s path, after its own.

    ``--system-site-packages`` would borrow the *base* interpreter's packages, which in a
    virtual environment are not the ones README's install put there. The folders are
    listed as plain paths, so their ``.pth`` files (an editable install of this checkout
    among them) are not run: ``engine`` and ``lab`` come from the wheel alone.
    """
    ours = [*site.getsitepackages(), *([site.getusersitepackages()] if site.ENABLE_USER_SITE
                                        else [])]
    (target,) = python.parent.parent.glob("lib/python*/site-packages")
    (target / "_borrowed.pth").write_text("".join(f"{folder}\n" for folder in ours))


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, Path]:
    """A clean copy of the checkout (its git files) and the wheel pip built from it."""
    if shutil.which("git") is None:
        pytest.skip("git is needed to copy the checkout")
    work = tmp_path_factory.mktemp("wheel")
    source = work / "src"  # a copy: were the backend to leave build/, the checkout is safe
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT,
                           capture_output=True, text=True, check=True).stdout.split()
    for name in files:
        if (ROOT / name).is_file() or (ROOT / name).is_symlink():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, source / name, follow_symlinks=False)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps",
                    "--no-build-isolation", "-w", str(work / "dist"), str(source)],
                   check=True, capture_output=True)
    (wheel,) = (work / "dist").glob("*.whl")
    return source, wheel


def test_building_leaves_nothing_beside_the_sources(built):
    """``pip install .`` in a checkout must not leave build/ or *.egg-info/ there."""
    source, _ = built
    tracked = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT,
                             capture_output=True, text=True, check=True).stdout.split()
    expected = {name.split("/")[0] for name in tracked if (ROOT / name).is_file()}
    assert {p.name for p in source.iterdir()} == expected


def test_an_sdist_carries_the_build_backend_it_needs(built, tmp_path):
    source, _ = built
    subprocess.run([sys.executable, "-c", f"import out_of_tree; "
                    f"out_of_tree.build_sdist({str(tmp_path)!r})"],
                   cwd=source, env={**os.environ, "PYTHONPATH": str(source / "backend")},
                   check=True, capture_output=True)
    (sdist,) = tmp_path.glob("*.tar.gz")
    with tarfile.open(sdist) as archive:
        assert any(n.endswith("/backend/out_of_tree.py") for n in archive.getnames())


@pytest.fixture(scope="module")
def installed(built, tmp_path_factory) -> Path:
    """The python of a venv with the freshly built wheel installed."""
    _, wheel = built
    work = tmp_path_factory.mktemp("venv")
    venv.EnvBuilder(with_pip=False).create(work / "venv")
    python = work / "venv" / "bin" / "python"
    borrow_site_packages(python)
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q",
                    "--no-deps", str(wheel)], check=True, capture_output=True)
    return python


def run(python: Path, cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("MOLDABLE_LAB_")}
    return subprocess.run([str(python), *args], cwd=cwd, capture_output=True, text=True,
                          env={**clean, **env}, timeout=120)


def test_engine_comes_from_the_wheel_with_its_weights(installed, tmp_path):
    out = run(installed, tmp_path, "-c",
              "import engine, engine.paths as p; print(engine.__file__); print(p.pretrained_dir())")
    engine_file, weights = out.stdout.split()
    venv_root = str(installed.parent.parent)
    assert engine_file.startswith(venv_root) and weights.startswith(venv_root), out
    assert (Path(weights) / "drl_policy.npz").is_file()


def test_the_wheel_uses_the_packages_of_the_python_running_the_tests(installed, tmp_path):
    """In a virtual environment these are the venv's, not its base interpreter's."""
    import pandas

    out = run(installed, tmp_path, "-c", "import pandas; print(pandas.__file__)")
    assert out.stdout.strip() == pandas.__file__, out.stderr


def test_drl_runs_from_another_folder(installed, tmp_path):
    out = run(installed, tmp_path, "-m", "engine", "simulate", "--jobs", "10",
              "--policy", "drl", "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["completed"] == 10


def test_the_console_script_names_itself_in_its_usage_line(installed, tmp_path):
    out = subprocess.run([str(installed.parent / "moldable-lab"), "simulate", "--help"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("usage: moldable-lab simulate"), out.stdout


def test_a_tampered_weights_file_is_one_message_and_exit_2(installed, tmp_path):
    folder = tmp_path / "weights"
    shipped = run(installed, tmp_path, "-c", "import engine.paths as p; print(p.pretrained_dir())")
    shutil.copytree(shipped.stdout.strip(), folder)
    archive = folder / "drl_policy.npz"
    archive.write_bytes(archive.read_bytes()[:-8] + b"tampered")
    out = run(installed, tmp_path, "-m", "engine", "simulate", "--jobs", "5", "--policy", "drl",
              MOLDABLE_LAB_PRETRAINED=str(folder))
    assert out.returncode == 2
    assert "Traceback" not in out.stderr
    assert out.stderr.startswith("error: ") and "drl_policy.npz: sha256" in out.stderr


def test_the_app_starts_from_another_folder(installed, tmp_path):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    clean = {k: v for k, v in os.environ.items() if not k.startswith("MOLDABLE_LAB_")}
    server = subprocess.Popen(
        [str(installed), "-m", "lab", "--server.port", str(port), "--server.address", "127.0.0.1"],
        cwd=tmp_path, env=clean, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health") as reply:
                    assert reply.read() == b"ok"
                    break
            except OSError:
                assert server.poll() is None, server.stdout.read()
                assert time.monotonic() < deadline, "the app did not start in 60 s"
                time.sleep(0.5)
    finally:
        server.terminate()
        server.wait(timeout=20)
