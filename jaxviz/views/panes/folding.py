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

import re
from typing import TYPE_CHECKING

from jaxviz.views.incremental import Steps, run_to_end

if TYPE_CHECKING:
    from jaxviz.model import VariantResult

#: From this many lines on, a pane opens with its nested jaxprs folded.
BIG_JAXPR_LINES = 300
#: Equations looked at per step of :func:`pane_folds_steps` (about a millisecond).
STEP_EQUATIONS = 400

_PREAMBLE_END = re.compile(r"\s*in .*\} in$")  # matched at each line's start


def fold_regions(text: str, equations_ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Foldable regions of a jaxpr: nested-jaxpr equations and shared ``let NAME = {...} in``.

    Args:
        text: the jaxpr text.
        equations_ranges: ``(text_start, text_end)`` of each equation holding a nested
            jaxpr (0-based lines, inclusive).
    """
    regions = [(a, b) for a, b in equations_ranges if b > a + 1]
    if text.startswith("let "):
        start = 0
        while start < len(text):
            end = text.find("\n", start)
            end = len(text) if end < 0 else end
            if _PREAMBLE_END.match(text, start, end):
                regions.append((0, text.count("\n", 0, start)))
                break
            start = end + 1
    return sorted(set(regions))


def pane_folds_steps(vr: VariantResult) -> Steps[tuple[list[tuple[int, int]], list[int]]]:
    """A variant's foldable regions and the first lines of those its pane opens folded
    (:func:`fold_regions`, :func:`initial_folds`), read from its equations in steps of
    :data:`STEP_EQUATIONS`."""
    from jaxviz.model.records import walk_paths

    ranges = []
    for n, (_path, eq) in enumerate(walk_paths(vr.equations)):
        if eq.subjaxprs and eq.text_start is not None and eq.text_end is not None:
            ranges.append((eq.text_start, eq.text_end))
        if n % STEP_EQUATIONS == STEP_EQUATIONS - 1:
            yield
    regions = fold_regions(vr.jaxpr_text, ranges)
    return regions, initial_folds(regions, vr.jaxpr_text.count("\n") + 1)


def pane_folds(vr: VariantResult) -> tuple[list[tuple[int, int]], list[int]]:
    """:func:`pane_folds_steps` at once."""
    return run_to_end(pane_folds_steps(vr))


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
