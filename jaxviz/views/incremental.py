"""Work done in steps: a generator that yields between pieces of its work and returns a result.

The GUI process cannot compute a big program's diff, lexing or storyboard in a Python
thread without stalling its own event loop: a thread running Python holds the GIL, and
the GUI thread hands the GIL back on nearly every Qt call it makes (PySide6 releases it
around them), then waits up to the interpreter's switch interval (5 ms) to get it back.
Measured here: painting that takes 19 ms alone took 1.6 s beside a busy Python thread.
So such work is written as *steps* -- a generator that yields after each small piece
(an equation, a row, a few hundred tokens) and returns its result -- and the window runs
it on the GUI thread a few milliseconds per event-loop turn
(:class:`jaxviz.ui.sliced.SlicedJob`), while the command line and the tests run it
through at once with :func:`run_to_end`. One code path; no second copy of the algorithm.

Example:
    >>> def count_to(n):
    ...     total = 0
    ...     for k in range(n):
    ...         total += k
    ...         yield
    ...     return total
    >>> run_to_end(count_to(4))
    6
"""

from __future__ import annotations

import enum
from collections.abc import Generator
from typing import Any, TypeVar

T = TypeVar("T")


class Turn(enum.Enum):
    """What a step may yield instead of ``None``: a wish about the event loop's turns."""

    OWN = "a turn of its own"


#: Yielded before a step that changes what is on screen: the window runs that step first
#: in a turn of the event loop, alone, and ends the turn after it, so that Qt paints its
#: change before any more steps run (:class:`jaxviz.ui.sliced.SlicedJob`); a frame then
#: holds one step and its paint, not a full slice of steps and the paint on top. Nothing
#: else notices it (:func:`run_to_end` runs through).
OWN_TURN = Turn.OWN

#: Work in steps: yields ``None`` (or :data:`OWN_TURN`) between pieces, returns the result.
#: (The yields are typed ``Any``: mypy asks a bare ``yield`` for a value unless the type
#: yielded is exactly ``None``.)
Steps = Generator[Any, None, T]


def run_to_end(steps: Steps[T]) -> T:
    """Run ``steps`` to the end and return its result."""
    while True:
        try:
            next(steps)
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]
