"""Which nested jaxprs a pane folds when it shows a big jaxpr (no Qt).

A train step prints thousands of lines: every ``pjit``, ``custom_jvp_call`` /
``custom_vjp_call``, ``scan`` / ``while`` body, ``remat`` and ``cond`` branch
spelled out inline. From :data:`BIG_JAXPR_LINES` lines on, a pane opens with
those nested jaxprs folded, so the top-level program reads as a list of
equations; one click (or Find, or go-to-line) unfolds what is needed.

Example:
    >>> initial_folds([(0, 900), (3, 40), (10, 20), (50, 90)], 1000)
    [3, 50]
"""

from __future__ import annotations

#: From this many lines on, a pane opens with its nested jaxprs folded.
BIG_JAXPR_LINES = 300


def initial_folds(regions: list[tuple[int, int]], line_count: int) -> list[int]:
    """The first lines of the regions to fold when a jaxpr of ``line_count`` lines opens.

    Small jaxprs fold nothing. In a big one, the outermost nested jaxprs fold --
    except a single region spanning most of the text (the ``pjit`` a ``jit``'s
    jaxpr is wrapped in), whose own outermost children fold instead.

    Args:
        regions: foldable ``(first, last)`` line ranges (0-based, inclusive).
        line_count: the number of lines of the text.
    """
    if line_count < BIG_JAXPR_LINES or not regions:
        return []
    chosen = _outermost(sorted(regions))
    while len(chosen) == 1:
        first, last = chosen[0]
        if last - first + 1 < line_count * 0.6:
            break
        inner = [r for r in regions if first < r[0] and r[1] <= last and r != (first, last)]
        if not inner:
            break
        chosen = _outermost(sorted(inner))
    return [first for first, _ in chosen]


def _outermost(regions: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for first, last in regions:
        if out and first <= out[-1][1]:
            continue
        out.append((first, last))
    return out
