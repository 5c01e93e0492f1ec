"""Stepped values as text: numbers for small values, statistics for summarised ones.

Plain Python (no NumPy, no JAX, no Qt), shared by ``jaxviz step`` and any view
that writes values as text.

Example:
    >>> from jaxviz.model.stepping import Value
    >>> format_value(Value([3], "f32", exact=[0.0, 0.035714287, 28.0]))
    '[0 0.0357143 28]'
    >>> format_value(Value([], "bool", exact=True))
    'true'
"""

from __future__ import annotations

from typing import Any

from jaxviz.model.stepping import Value

#: Significant digits of a float.
DIGITS = 6


def format_number(x: Any, digits: int = DIGITS) -> str:
    """One element: ``28``, ``0.0357143``, ``-1.2e-07``, ``nan``, ``true``."""
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, int):
        return str(x)
    if isinstance(x, list) and len(x) == 2:  # a complex element: [real, imaginary]
        imag = format_number(x[1], digits)
        sign = "-" if imag.startswith("-") else "+"
        return f"{format_number(x[0], digits)}{sign}{imag.lstrip('-')}j"
    if isinstance(x, float):
        return f"{x:.{digits}g}".replace("e+", "e")
    return str(x)


def _nested(items: Any, depth: int, rank: int, digits: int) -> str:
    if depth == rank:
        return format_number(items, digits)
    inner = [_nested(x, depth + 1, rank, digits) for x in items]
    if depth == rank - 1:
        return "[" + " ".join(inner) + "]"
    sep = "\n" * (rank - depth - 1) + " " * (depth + 1)
    return "[" + sep.join(inner) + "]"


def format_value(value: Value, digits: int = DIGITS) -> str:
    """A value as text: its elements when kept, else its statistics (may span lines)."""
    if value.summary is None:
        return _nested(value.exact, 0, len(value.shape), digits)
    s = value.summary
    kind = f"{value.dtype}[{','.join(str(d) for d in value.shape)}]"
    if s.min is None:
        stats = "no finite elements" if value.size else "empty"
    else:
        stats = (f"min {format_number(s.min, 4)}, max {format_number(s.max, 4)}, "
                 f"mean {format_number(s.mean, 4)}")
    if s.nonfinite:
        stats += f", {s.nonfinite} not finite"
    text = f"{kind}: {stats}"
    if s.sample:
        text += "; first " + " ".join(format_number(x, 4) for x in s.sample) + " ..."
    return text
