"""The analytic laws against hand-computed values and the shapes their laws promise."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.speedup import Amdahl, Downey, Linear

gpus_counts = st.integers(1, 512)


def test_amdahl_by_hand() -> None:
    law = Amdahl(serial_fraction=0.05)
    assert law.speedup(1, 1) == pytest.approx(1.0)
    assert law.speedup(4, 1) == pytest.approx(1 / (0.05 + 0.95 / 4))  # 3.478...
    assert law.speedup(10**9, 1) == pytest.approx(20.0, rel=1e-6)
    assert law.speedup(8, 2) == pytest.approx(0.97 / (0.05 + 0.95 / 8))


def test_downey_low_variance_by_hand() -> None:
    law = Downey(A=32.0, sigma=1.0)
    assert law.speedup(1, 1) == pytest.approx(1.0)
    assert law.speedup(2, 1) == pytest.approx(64 / 32.5)
    assert law.speedup(32, 1) == pytest.approx(1024 / 47.5)
    assert law.speedup(40, 1) == pytest.approx(1280 / 51.5)
    assert law.speedup(63, 1) == pytest.approx(32.0)
    assert law.speedup(200, 1) == pytest.approx(32.0)


def test_downey_high_variance_by_hand() -> None:
    law = Downey(A=10.0, sigma=2.0)
    assert law.speedup(1, 1) == pytest.approx(1.0)
    assert law.speedup(5, 1) == pytest.approx(150 / 38)
    assert law.speedup(28, 1) == pytest.approx(10.0)
    assert law.speedup(100, 1) == pytest.approx(10.0)


def test_linear_and_node_penalty() -> None:
    assert Linear().speedup(64, 16) == 64
    assert Linear(cross_node_penalty=0.1).speedup(8, 3) == pytest.approx(8 * 0.81)
    assert Downey(A=32.0, sigma=1.0).speedup(2, 2) == pytest.approx(0.97 * 64 / 32.5)


@pytest.mark.parametrize(
    "law",
    [
        Amdahl(),
        Amdahl(serial_fraction=0.3),
        Downey(),
        Downey(A=10, sigma=2),
        Downey(A=64, sigma=0.2),
    ],
    ids=repr,
)
@given(gpus=gpus_counts)
def test_monotone_and_bounded(law: Amdahl | Downey, gpus: int) -> None:
    """More GPUs never hurt on one node, more nodes never help, and nothing is superlinear."""
    assert law.speedup(gpus + 1, 1) >= law.speedup(gpus, 1) - 1e-12
    assert law.speedup(gpus, 1) <= gpus + 1e-12
    if gpus >= 2:
        assert law.speedup(gpus, 2) < law.speedup(gpus, 1)


@given(serial=st.floats(0.0, 1.0), gpus=gpus_counts)
def test_amdahl_capped_by_serial_fraction(serial: float, gpus: int) -> None:
    law = Amdahl(serial_fraction=serial, cross_node_penalty=0.0)
    if serial == 0:
        assert law.speedup(gpus, 1) == pytest.approx(gpus)
    else:
        assert law.speedup(gpus, 1) <= 1 / serial + 1e-9


@given(A=st.floats(1.0, 128.0), sigma=st.floats(0.0, 4.0), gpus=gpus_counts)
def test_downey_continuous_and_capped(A: float, sigma: float, gpus: int) -> None:
    """Downey's pieces join without jumps, and speedup never passes the parallelism A."""
    law = Downey(A=A, sigma=sigma, cross_node_penalty=0.0)
    assert law.speedup(gpus, 1) <= max(A, 1.0) + 1e-9
    assert -1e-9 <= law.speedup(gpus + 1, 1) - law.speedup(gpus, 1) <= 1.0 + 1e-9
