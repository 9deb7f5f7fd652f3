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
from pathlib import Path

PRETRAINED_ENV = "MOLDABLE_LAB_PRETRAINED"
DATA_ENV = "MOLDABLE_LAB_DATA"

_CHECKOUT = Path(__file__).resolve().parents[1]


def pretrained_dir() -> Path:
    """The folder of the shipped DRL policy (its card and weights)."""
    override = os.environ.get(PRETRAINED_ENV)
    if override:
        return Path(override)
    try:  # installed (wheel or editable): the top-level pretrained/ folder, as package data
        from engine import pretrained
    except ImportError:  # a checkout on sys.path but not installed
        return _CHECKOUT / "pretrained"
    return Path(pretrained.__file__).resolve().parent


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
