"""Pausing Python's cyclic garbage collector while a big diff is built.

A diff of two 5,000-equation variants makes a few hundred thousand short-lived objects
(tokens, rows, lines) that form no reference cycles: reference counting frees them. Each
time enough of them have been made, Python's cyclic collector runs, and every so often it
walks *all* the objects of the process -- in the window, the trace results and Qt's
wrappers, hundreds of thousands. Measured on the 12-layer train step (plain vs sharded,
``benchmarks/bench_compare.py``), those passes were more than half of the diff's time.
So the diff and its layout run with the collector paused; it resumes at the end (a
collection then happens at its usual pace, not at once).

Example:
    >>> with paused_gc():
    ...     rows = [(n, str(n)) for n in range(3)]
    >>> rows[-1]
    (2, '2')
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused_gc() -> Iterator[None]:
    """Run a block with the cyclic collector off; on again after it unless it already was off
    (a nested pause, or one another thread began, is left to whoever began it)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
