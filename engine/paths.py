"""Where the engine finds its files: the shipped weights and workloads, and the shared
reference data (tests and derivations only).

Both can be moved with an environment variable, so an installed package (a wheel, a
container) and a checkout find them the same way:

- ``MOLDABLE_LAB_PRETRAINED``: the folder with ``drl_policy.json`` and its weights
  (default: the ``pretrained/`` folder shipped with the package);
- ``MOLDABLE_LAB_DATA``: the reference data (default: ``../shared/data`` beside the
  checkout, where this project's data lives).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

PRETRAINED_ENV = "MOLDABLE_LAB_PRETRAINED"
DATA_ENV = "MOLDABLE_LAB_DATA"

_CHECKOUT = Path(__file__).resolve().parents[1]


def pretrained_dir() -> Path:
    """The folder of the shipped DRL policy (its card and weights)."""
    override = os.environ.get(PRETRAINED_ENV)
    if override:
        return Path(override)
    return beside_package(Path(__file__).resolve().parent, "pretrained")


def beside_package(package: Path, name: str) -> Path:
    """The folder ``name`` that ``package`` ships: inside it when installed from a wheel,
    beside it in a checkout (pyproject.toml's ``package-dir`` maps one to the other).

    Found by location, not by import: with another checkout installed in editable mode,
    importing ``engine.pretrained`` would find *that* checkout's folder.
    """
    inside = package / name
    return inside if inside.is_dir() else package.parent / name


def shared_data(*parts: str) -> Path:
    """A path under the reference data folder (it may not exist: callers say so)."""
    override = os.environ.get(DATA_ENV)
    root = Path(override) if override else _CHECKOUT.parent / "shared" / "data"
    return root.joinpath(*parts)


def pollux_workloads() -> Path:
    """The Pollux artifact's eight evaluation workloads (``workload-N.csv``), shipped in
    the package with their Apache-2.0 notice: what ``reproduce``, ``fidelity`` and the
    Home page read."""
    return Path(__file__).resolve().parent / "data" / "pollux_workloads"


def code_version() -> str:
    """The checkout's commit (``+dirty`` with uncommitted changes), or ``unknown`` outside
    a git checkout (an installed wheel): what a model card records its weights came from."""
    try:
        run = subprocess.run(["git", "-C", str(_CHECKOUT), "describe", "--always", "--dirty=+dirty",
                              "--abbrev=12"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return run.stdout.strip() if run.returncode == 0 and run.stdout.strip() else "unknown"
