"""Every benchmark still imports: a bench is run by hand, so nothing else would notice
that a name it uses has gone from the engine."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"


@pytest.mark.parametrize("path", sorted(BENCH.glob("*.py")), ids=lambda p: p.stem)
def test_the_benchmark_imports(path: Path, monkeypatch) -> None:
    monkeypatch.syspath_prepend(str(BENCH))
    spec = importlib.util.spec_from_file_location(f"bench_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # defines, runs nothing: each has a __main__ guard
    assert module.__doc__
