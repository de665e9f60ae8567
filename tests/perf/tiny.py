"""A bench's sizes: its own, or tiny ones when BENCH_SIZE=tiny.

tests/unit/test_benches.py runs every bench at its tiny sizes in the default test command, to see that each
still runs to its figures and stops what it started (threads, processes, sandboxes). Tiny figures mean
nothing; the goals are read at the bench's own sizes.
"""

from __future__ import annotations

import os
from typing import TypeVar

T = TypeVar("T")

TINY = os.environ.get("BENCH_SIZE") == "tiny"


def size(full: T, tiny: T) -> T:
    """`tiny` when the bench runs at its tiny size, else `full`."""
    return tiny if TINY else full
