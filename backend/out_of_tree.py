"""setuptools' build backend, building in a temporary folder instead of the checkout.

``pip install .`` asks setuptools for a wheel, and setuptools copies the packages into
``build/`` beside the sources (and its metadata into ``*.egg-info/``) and leaves them
there: a stale copy a newcomer may then import or commit. Here every hook runs with
``build_base`` and ``egg_base`` in a temporary folder (setuptools reads the extra config
file named by ``DIST_EXTRA_CONFIG``).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from setuptools import build_meta as _setuptools


@contextlib.contextmanager
def _build_elsewhere() -> Iterator[None]:
    with tempfile.TemporaryDirectory(prefix="moldable-lab-build-") as folder:
        config = Path(folder) / "setup.cfg"
        config.write_text(f"[build]\nbuild_base = {Path(folder) / 'build'}\n"
                          f"[egg_info]\negg_base = {folder}\n")
        before = os.environ.get("DIST_EXTRA_CONFIG")
        os.environ["DIST_EXTRA_CONFIG"] = str(config)
        try:
            yield
        finally:
            if before is None:
                del os.environ["DIST_EXTRA_CONFIG"]
            else:
                os.environ["DIST_EXTRA_CONFIG"] = before


def _elsewhere(hook: Callable[..., str]) -> Callable[..., str]:
    def run(*args: Any, **kwargs: Any) -> str:
        with _build_elsewhere():
            return hook(*args, **kwargs)
    run.__name__ = hook.__name__
    return run


# every hook: even asking for the build requirements runs setuptools' egg_info
get_requires_for_build_wheel = _elsewhere(_setuptools.get_requires_for_build_wheel)
get_requires_for_build_editable = _elsewhere(_setuptools.get_requires_for_build_editable)
get_requires_for_build_sdist = _elsewhere(_setuptools.get_requires_for_build_sdist)
prepare_metadata_for_build_wheel = _elsewhere(_setuptools.prepare_metadata_for_build_wheel)
prepare_metadata_for_build_editable = _elsewhere(
    _setuptools.prepare_metadata_for_build_editable)
build_wheel = _elsewhere(_setuptools.build_wheel)
build_editable = _elsewhere(_setuptools.build_editable)
build_sdist = _elsewhere(_setuptools.build_sdist)
