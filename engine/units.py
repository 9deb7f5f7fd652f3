"""Time units picked by a quantity's scale, so a page, a chart or a command reads in one unit.

The simulator counts seconds; a class reads "37.2 min" or "2.4 days" faster than
"2,231.241". :func:`unit_for` picks the unit once from the scale of what is shown (a
page's largest time, an axis' span), and every number there is then written in it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class TimeUnit:
    """A unit of time: its symbol and its length in seconds."""

    symbol: str
    seconds: float

    def of(self, seconds: T) -> T:
        """``seconds`` (a number, an array or a Series) in this unit."""
        return seconds / self.seconds

    def format(self, seconds: float, digits: int | None = None) -> str:
        """``37.2 min``: ``digits`` decimals (default: 0 for seconds, else 1), thousands
        separated; NaN (no value yet) is a dash."""
        if not math.isfinite(seconds):
            return "–"
        places = (0 if self is SECOND else 1) if digits is None else digits
        return f"{self.of(seconds):,.{places}f} {self.symbol}"


SECOND = TimeUnit("s", 1.0)
MINUTE = TimeUnit("min", 60.0)
HOUR = TimeUnit("h", 3600.0)
DAY = TimeUnit("days", 86400.0)
UNITS: tuple[TimeUnit, ...] = (SECOND, MINUTE, HOUR, DAY)

_BELOW: tuple[tuple[TimeUnit, float], ...] = (
    (SECOND, 2 * 60.0), (MINUTE, 3 * 3600.0), (HOUR, 3 * 86400.0))
"""Each unit serves scales below its bound: 2 min is "120 s", 3 h "180 min", 3 days "72 h"."""


def unit_for(scale_seconds: float) -> TimeUnit:
    """The unit that times up to ``scale_seconds`` read best in (NaN or 0: seconds)."""
    for unit, below in _BELOW:
        if not scale_seconds >= below:
            return unit
    return DAY


def with_unit(seconds: float) -> str:
    """``2,231 s (37.2 min)``: whole seconds, then the value in its own unit when that is
    not seconds. For a line of its own, such as a CLI summary."""
    exact = SECOND.format(seconds)
    unit = unit_for(seconds)
    return exact if unit is SECOND or not math.isfinite(seconds) else \
        f"{exact} ({unit.format(seconds)})"
