"""JSON any parser reads: NaN and infinities (no interval from one run, say) become null.

Python's ``json`` writes them as bare ``NaN``/``Infinity``, which strict parsers (and
most other languages) reject; every JSON the engine writes goes through :func:`dumps`.
"""

from __future__ import annotations

import json
import math
from typing import Any


def finite(value: Any) -> Any:
    """``value`` with every non-finite float, however nested, replaced by ``None``."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [finite(v) for v in value]
    return value


def dumps(value: Any, indent: int | None = None) -> str:
    """Strict JSON of ``value`` (non-finite floats as null; other objects as ``str``)."""
    return json.dumps(finite(value), indent=indent, default=str, allow_nan=False)
