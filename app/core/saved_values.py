"""Values read back from files the console wrote itself (its settings, saved conversations). Read tolerantly:
a file can be old, hand-edited or damaged, and a value that is not what it should be is unset, never an
error."""

from __future__ import annotations

import math
from typing import Any


def saved_number(value: Any, low: float = -math.inf, high: float = math.inf) -> float | None:
    """A number inside [low, high]; anything else (text, a bool, NaN, infinity, out of range) is None."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return float(value) if low <= value <= high else None
