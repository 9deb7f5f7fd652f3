"""One unit per scale: the unit follows the largest time shown, and NaN reads as a dash."""

import math

import numpy as np
import pytest

from engine.units import DAY, HOUR, MINUTE, SECOND, unit_for, with_unit


@pytest.mark.parametrize(("scale", "unit"), [
    (0.0, SECOND), (math.nan, SECOND), (119.0, SECOND), (120.0, MINUTE),
    (2 * 3600.0, MINUTE), (3 * 3600.0, HOUR), (60 * 3600.0, HOUR),
    (60422.35 * 3600, DAY),
])
def test_the_unit_follows_the_scale(scale, unit):
    assert unit_for(scale) is unit


def test_a_unit_converts_numbers_and_arrays_and_formats_with_separators():
    assert HOUR.of(np.array([3600.0, 7200.0])).tolist() == [1.0, 2.0]
    assert MINUTE.format(2231.241) == "37.2 min"
    assert SECOND.format(2231.241) == "2,231 s"
    assert DAY.format(60422.35 * 3600) == "2,517.6 days"
    assert HOUR.format(math.nan) == "–"


def test_a_summary_line_gives_seconds_and_the_readable_unit():
    assert with_unit(2231.241) == "2,231 s (37.2 min)"
    assert with_unit(25018.464) == "25,018 s (6.9 h)"
    assert with_unit(42.0) == "42 s"
    assert with_unit(math.nan) == "–"
