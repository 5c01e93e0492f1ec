"""The terminal form of a jaxpr diff: two aligned columns, or a unified listing.

Each row of :class:`~jaxviz.views.compare.jaxpr_diff.JaxprDiff` prints the equation's
own jaxpr lines (as JAX printed them, indented by nesting depth) with a mark:
``~`` changed, ``-`` only in the left variant, ``+`` only in the right one, and
under a changed row what changed in words. With colour, in the compare layout's colour
code (:func:`jaxviz.views.palette.diff_colour`), the changed tokens are highlighted by what
their change means and one-sided rows are coloured as added or removed.

Example:
    >>> print(render(diff, width=160, layout="columns", color=False))  # doctest: +SKIP
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass

from jaxviz.views import palette
from jaxviz.views.compare.diff_layout import (
    CATEGORY_MARKS,
    SPAN_KINDS,
    row_category,
    row_notes,
    shown_lines,
)
from jaxviz.views.compare.jaxpr_diff import DiffRow, DiffSide, JaxprDiff

#: Below this width, ``layout="auto"`` prints the unified form.
MIN_COLUMNS_WIDTH = 100

_RESET = "\x1b[0m"


def _ansi_text(colour: str) -> str:
    """ANSI (24-bit) text in ``colour``."""
    r, g, b = palette.rgb(colour)
    return f"\x1b[38;2;{r};{g};{b}m"


def _ansi_token(colour: str) -> str:
    """ANSI (24-bit) bold text on ``colour``, black or white, whichever reads."""
    (fr, fg, fb), (r, g, b) = palette.rgb(palette.text_on(colour)), palette.rgb(colour)
    return f"\x1b[1;38;2;{fr};{fg};{fb};48;2;{r};{g};{b}m"


#: The styles, in the compare layout's colour code (:func:`jaxviz.views.palette.diff_colour`):
#: one-sided rows in the colour of ``added`` / ``removed``, a changed token on the colour
#: of what its change means (:data:`~jaxviz.views.compare.diff_layout.SPAN_KINDS`).
_STYLE = {
    "removed": _ansi_text(palette.diff_colour("removed")),
    "added": _ansi_text(palette.diff_colour("added")),
    **{f"token_{kind}": _ansi_token(palette.diff_colour(kind)) for kind in SPAN_KINDS},
    "note": "\x1b[36m", "head": "\x1b[1m", "dim": "\x1b[2m",
}


@dataclass
class _Painter:
    color: bool

    def __call__(self, text: str, style: str) -> str:
        return f"{_STYLE[style]}{text}{_RESET}" if self.color and text else text


def _cell(side: DiffSide | None, width: int, tint: str | None, tokens: bool,
          paint: _Painter, row: DiffRow) -> list[tuple[str, int]]:
    """A side's lines (:func:`shown_lines`) cut to ``width``: (text, visible length)."""
    if side is None:
        return []
    out = []
    for shown in shown_lines(side, row):
        body, room = shown.text, max(1, width)
        clipped = len(body) > room
        if clipped:
            body = body[:room - 1]
        spans = [(s.start, s.end, f"token_{s.kind}") for s in shown.spans] if tokens else []
        text = _highlight(body, spans, tint, paint)
        ellipsis = "…" if clipped else ""
        out.append((text + ellipsis, len(body) + len(ellipsis)))
    return out


def _highlight(body: str, spans: list[tuple[int, int, str]], tint: str | None,
               paint: _Painter) -> str:
    """``body`` in the ``tint`` style, with each span in its style."""

    def plain(text: str) -> str:
        return paint(text, tint) if tint else text

    pieces, at = [], 0
    for start, end, style in sorted(spans):
        start, end = max(start, at), min(end, len(body))
        if start >= end:
            continue
        pieces += [plain(body[at:start]), paint(body[start:end], style)]
        at = end
    pieces.append(plain(body[at:]))
    return "".join(pieces)


def _styles(row: DiffRow) -> tuple[str | None, str | None, bool]:
    """(left tint, right tint, whether changed tokens are highlighted) of a row."""
    category = row_category(row)
    if category in ("removed", "added"):
        return ("removed", None, False) if category == "removed" else (None, "added", False)
    return None, None, True


def _line_number(row: DiffRow) -> str:
    side = row.left or row.right
    return "" if side is None or side.line is None else str(side.line)


def wants_color(choice: str, isatty: bool, environ: Mapping[str, str]) -> bool:
    """``--color``: ``always``, ``never``, or ``auto`` (a terminal, and ``NO_COLOR`` unset)."""
    if choice == "auto":
        return isatty and not environ.get("NO_COLOR")
    return choice == "always"


def _header(diff: JaxprDiff, title: str, width: int, paint: _Painter) -> list[str]:
    """What was compared, the summary (wrapped), and how the function's inputs/outputs changed."""
    out = [paint(_clip(f"{title}: {diff.left} -> {diff.right}", width), "head")]
    out += _wrap_parts(diff.summary, width)
    for c in diff.inputs + diff.outputs:
        label = "" if c.where == "input" else "output: "
        out.append(paint(_clip(f"  {label}{c.text}", width), "dim"))
    return out + [""]


def render(diff: JaxprDiff, *, title: str, width: int, layout: str = "auto",
           color: bool = False) -> str:
    """The diff as terminal text.

    Args:
        diff: the diff to print.
        title: what was compared (the target), for the first line.
        width: the terminal's width in characters.
        layout: ``columns`` (side by side), ``unified`` (one column, ``-``/``+``
            lines) or ``auto`` (columns when ``width`` allows).
        color: use ANSI colours.
    """
    paint = _Painter(color)
    columns = layout == "columns" or (layout == "auto" and width >= MIN_COLUMNS_WIDTH)
    lines = _header(diff, title, width, paint)
    lines += _columns(diff, width, paint) if columns else _unified(diff, width, paint)
    return "\n".join(lines)


def _columns(diff: JaxprDiff, width: int, paint: _Painter) -> list[str]:
    gutter = 7  # mark, space, line number (4), space
    col = max(20, (width - gutter - 3) // 2)
    out = [paint(f"{'':1} {'line':>4} {diff.left:<{col}} | {diff.right}", "head")]
    for row in diff.rows:
        lt, rt, tokens = _styles(row)
        left = _cell(row.left, col, lt, tokens, paint, row)
        right = _cell(row.right, col, rt, tokens, paint, row)
        for n in range(max(len(left), len(right))):
            mark = CATEGORY_MARKS[row_category(row)] if n == 0 else " "
            number = _line_number(row) if n == 0 else ""
            ltext, lwidth = left[n] if n < len(left) else ("", 0)
            rtext, _ = right[n] if n < len(right) else ("", 0)
            out.append(f"{mark} {number:>4} {ltext}{' ' * (col - lwidth)} | {rtext}".rstrip())
        for note in row_notes(row):
            out.append(" " * gutter + paint(_clip(f"# {note}", width - gutter), "note"))
    return out


def _unified(diff: JaxprDiff, width: int, paint: _Painter) -> list[str]:
    gutter = 9  # mark, space, line number (4), space, sign, space
    room = max(20, width - gutter)
    out = [paint(f"{'':1} {'line':>4}   --- {diff.left}  +++ {diff.right}", "head")]
    for row in diff.rows:
        _lt, _rt, tokens = _styles(row)
        number = _line_number(row)
        body: list[tuple[str, str]] = []
        if row.kind == "same":
            body += [(" ", text) for text, _ in _cell(row.left, room, None, False, paint, row)]
        else:
            if row.left is not None:
                body += [("-", t) for t, _ in _cell(row.left, room, "removed", tokens, paint,
                                                     row)]
            if row.right is not None:
                body += [("+", t) for t, _ in _cell(row.right, room, "added", tokens, paint,
                                                     row)]
        for n, (sign, text) in enumerate(body):
            mark = CATEGORY_MARKS[row_category(row)] if n == 0 else " "
            shown_sign = paint(sign, "removed" if sign == "-" else "added") \
                if sign != " " else sign
            out.append(f"{mark} {number if n == 0 else '':>4} {shown_sign} {text}".rstrip())
        for note in row_notes(row):
            out.append(" " * gutter + paint(_clip(f"# {note}", room), "note"))
    return out


def _wrap_parts(summary: str, width: int) -> list[str]:
    """The summary in lines of at most ``width``, broken between its comma-separated parts."""
    parts = re.split(r", (?![^()]*\))", summary)
    lines: list[str] = []
    for n, part in enumerate(parts):
        piece = part + ("," if n < len(parts) - 1 else "")
        if lines and len(lines[-1]) + 1 + len(piece) <= width:
            lines[-1] += " " + piece
        else:
            lines += textwrap.wrap(("  " if lines else "") + piece, width,
                                   subsequent_indent="  ", drop_whitespace=False) or [piece]
    return lines


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[:max(1, width - 1)] + "…"
