"""Which steps of a stepping carry values: a window around the cursor, moved on demand.

A big program (a 12-layer train step: thousands of steps) cannot cross the engine pipe
with every step's values, and need not: the window asks the engine for the values of
:data:`RECORD_WINDOW` steps around the step the cursor is on (a quarter of them before
it, for stepping back), and when the cursor leaves them -- a jump to step 4,000, a run
to a line, a long walk -- for a new window around the new step. Each window costs one
stepped run of the program, not every value before it
(:attr:`jaxviz.model.stepping.StepRequest.record_from`).

Example:
    >>> window_for(0)
    (0, 400)
    >>> window_for(4000)
    (3900, 400)
"""

from __future__ import annotations

#: Steps whose values one stepping records.
RECORD_WINDOW = 400
#: The part of the window before the step asked for (for stepping back).
BEFORE = RECORD_WINDOW // 4


def window_for(index: int, size: int = RECORD_WINDOW) -> tuple[int, int]:
    """``(record_from, record_steps)`` for a window of ``size`` steps around step ``index``."""
    return max(0, index - size // 4), size
