"""How a jaxpr diff is laid out for reading: aligned lines, blocks, and what each token means.

The compare layout of the window (:mod:`jaxviz.ui.compare.compare_view`) and the
terminal's ``jaxviz diff`` (:mod:`jaxviz.cli.diff_text`) both show a
:class:`~jaxviz.views.compare.jaxpr_diff.JaxprDiff`; what they show is decided here, once
(no Qt, no JAX):

* :func:`shown_lines`: a side's own jaxpr lines, dedented and indented two
  spaces per nesting level (a pmap body then lines up with the plain equations
  it pairs with), the changed ranges moved along and each given a *meaning*
  (:data:`SPAN_KINDS`): inside a type (``f32[8,3]``) it is the batch axis or
  another shape change, the ``{V:i}`` mark of a value varying over a
  ``shard_map`` axis is only printed differently (the records do not hold it),
  anything else is a parameter;
* :func:`side_by_side`: both sides as lists of the same length, row by row. A
  paired row is a block; a run of rows only one side has is one block (as
  Meld draws a change: the left's rows beside the right's); the shorter side of
  a block is padded with filler lines. Each block has a category
  (:data:`CATEGORIES`) that says what its band in the middle means;
* :func:`row_notes`: what changed in a row, in words;
* :func:`default_pair`: which two variants a "Compare" opens with.

Example:
    >>> layout = side_by_side(diff)                      # doctest: +SKIP
    >>> len(layout.left) == len(layout.right)           # doctest: +SKIP
    True
    >>> layout.blocks[0].category                       # doctest: +SKIP
    'batch'
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from jaxviz.views.compare.gc_pause import paused_gc
from jaxviz.views.compare.jaxpr_diff import DiffRow, DiffSide, JaxprDiff
from jaxviz.views.compare.jaxpr_shapes import headline_category
from jaxviz.views.incremental import Steps, run_to_end

#: What a changed range of a line means: a type gained or lost the batch axis, a
#: type changed otherwise, a parameter (or literal operand) changed, or the line
#: is only printed differently (``{V:i}``, which the diff does not compare).
SPAN_KINDS = ("batch", "shapes", "params", "printed")
#: What a block's band means: unchanged, the batch axis, another shape change,
#: parameters only; rows only the right side has (added), only the left
#: (removed), or both in one run (replaced: the left's rows became the right's).
CATEGORIES = ("same", "batch", "shapes", "params", "added", "removed", "replaced")
#: The mark of a row's first line by its category (:func:`row_category`), wherever a diff
#: is printed as text (``jaxpr diff``, the slides): ``~`` changed, ``-`` only the left
#: side has it, ``+`` only the right.
CATEGORY_MARKS = {"same": " ", "batch": "~", "shapes": "~", "params": "~", "added": "+",
                  "removed": "-"}
#: Placeholder for an equation whose text JAX printed with an earlier use of its jaxpr.
NOT_PRINTED = "{primitive}  (printed with an earlier use of its jaxpr)"

#: A jaxpr type: ``f32[8,3]``, ``i32[]``, ``bool[2]``, then an optional ``{V:i}`` mark.
_TYPE = re.compile(r"\b(?:bool|[a-z]+\d+)\[[^\]\[]*\](\{[^{}]*\})?")


@dataclass(frozen=True)
class Span:
    """Characters ``start:end`` of a shown line, changed, with what the change means."""

    start: int
    end: int
    kind: str  # one of SPAN_KINDS


@dataclass(frozen=True)
class ShownLine:
    """One line of one side of the layout.

    Attributes:
        text: as shown (dedented, indented by nesting depth); ``""`` for filler.
        row: the index of its row in :attr:`JaxprDiff.rows`; -1 for filler.
        jaxpr_line: the 0-based line of the variant's ``jaxpr_text`` it shows;
            -1 for filler and for the placeholder of an unprinted equation.
        spans: the changed ranges of ``text``.
    """

    text: str
    row: int = -1
    jaxpr_line: int = -1
    spans: tuple[Span, ...] = ()

    @property
    def filler(self) -> bool:
        return self.row < 0


@dataclass(frozen=True)
class Block:
    """Rows shown side by side: one paired row, or a run of rows only one side has.

    Attributes:
        rows: the rows' indices in :attr:`JaxprDiff.rows`.
        top: the first line of the block (the same on both sides).
        left, right: how many lines each side's equations take (the rest of
            :attr:`height` is filler).
        category: what the band between the sides means (:data:`CATEGORIES`).
    """

    rows: tuple[int, ...]
    top: int
    left: int
    right: int
    category: str

    @property
    def height(self) -> int:
        return max(self.left, self.right)


@dataclass
class SideBySide:
    """Both sides of a diff as aligned lines (``len(left) == len(right)``) and its blocks.

    ``row_lines[r]`` is ``(left lines, right lines)`` of row ``r``: the ``range``
    of lines it takes on each side (``None`` where the row has no such side).
    """

    diff: JaxprDiff
    left: list[ShownLine] = field(default_factory=list)
    right: list[ShownLine] = field(default_factory=list)
    blocks: list[Block] = field(default_factory=list)
    row_lines: list[tuple[range | None, range | None]] = field(default_factory=list)

    def side(self, which: str) -> list[ShownLine]:
        """``left`` or ``right``."""
        return self.left if which == "left" else self.right

    def lines_of(self, row: int, which: str) -> range | None:
        """The lines row ``row`` takes on side ``which`` (``None``: it has no such side)."""
        left, right = self.row_lines[row]
        return left if which == "left" else right

    def block_of(self, row: int) -> Block:
        """The block holding row ``row``."""
        for block in self.blocks:
            if row in block.rows:
                return block
        raise KeyError(f"no row {row}")


def row_category(row: DiffRow) -> str:
    """What a paired row's band means (``same``, ``batch``, ``shapes``, ``params``) or, for
    a one-sided row, ``added`` / ``removed``."""
    if row.kind == "only_right":
        return "added"
    if row.kind == "only_left":
        return "removed"
    if row.kind == "shapes":
        headline = headline_category(row.shapes[0])
        return "batch" if headline in ("gained the batch axis", "lost the batch axis") else "shapes"
    return row.kind  # same | params


def _span_kind(text: str, start: int, end: int, row: DiffRow | None) -> str:
    """What a changed range means: inside a type's brackets, its ``{V:..}`` mark, or elsewhere."""
    for match in _TYPE.finditer(text):
        mark_start = match.start(1) if match.group(1) else match.end()
        if start < mark_start and end > match.start():
            return "batch" if row is not None and row_category(row) == "batch" else "shapes"
        if match.group(1) and start < match.end() and end > mark_start:
            return "printed"
    return "params" if row is not None and row.params else "printed"


def shown_lines(side: DiffSide, row: DiffRow | None = None) -> list[ShownLine]:
    """A side's lines as shown: dedented, two spaces per nesting level, ranges moved along.

    Args:
        side: one side of a row.
        row: the row, to say what each changed range means; its index is not
            known here, so the lines' ``row`` is -1 (:func:`side_by_side` sets it).
    """
    if not side.text:
        return [ShownLine(NOT_PRINTED.format(primitive=side.primitive))]
    first = side.text[0]
    dedent = len(first) - len(first.lstrip(" "))
    indent = "  " * side.depth
    out = []
    for line, number in zip(side.text, side.text_lines):
        cut = min(dedent, len(line) - len(line.lstrip(" ")))
        body = line[cut:]
        shift = len(indent) - cut
        spans = tuple(Span(r.start + shift, r.end + shift, _span_kind(line, r.start, r.end, row))
                      for r in side.changed if r.line == number and r.end > r.start)
        out.append(ShownLine(indent + body, -1, number, spans))
    return out


def row_notes(row: DiffRow, hidden_by_name: bool = False) -> list[str]:
    """What changed, in at most two lines: the shapes, then the parameters.

    The outputs' changes stand for the row (the inputs' changes are the outputs'
    of earlier rows); the inputs' are named only when no output changed.

    Args:
        row: a row of a diff.
        hidden_by_name: parameters JAX does not print in either line (``sharding``,
            ``out_sharding``, a broadcast's ``shape`` ...) are named only, at the end,
            instead of written out old -> new (a sharding takes a paragraph).
    """
    outputs = [c.text for c in row.shapes if c.where == "output"]
    shapes = outputs or [c.text for c in row.shapes]
    printed = " ".join(t for side in (row.left, row.right) if side for t in side.text)
    shown, hidden = [], []
    for p in row.params:
        if hidden_by_name and not p.name.startswith("operand ") and f"{p.name}=" not in printed:
            hidden.append(p.name)
        else:
            shown.append(p.note or f"{p.name}: {p.left} -> {p.right}")
    if hidden:
        shown.append(f"not printed by JAX: {', '.join(hidden)}")
    return [text for text in ("; ".join(shapes), "; ".join(shown)) if text]


def _one_sided(row: DiffRow) -> bool:
    return row.left is None or row.right is None


def _block_category(rows: Sequence[DiffRow]) -> str:
    if len(rows) == 1 and not _one_sided(rows[0]):
        return row_category(rows[0])
    kinds = {r.kind for r in rows}
    if kinds == {"only_right"}:
        return "added"
    if kinds == {"only_left"}:
        return "removed"
    return "replaced"


#: Rows of one block laid out per step of :func:`side_by_side_steps` (100 rows of a train
#: step's were a 6-10 ms step).
STEP_ROWS = 25


def side_by_side(diff: JaxprDiff) -> SideBySide:
    """Lay both sides of ``diff`` out in aligned blocks (see the module's description)."""
    with paused_gc():  # thousands of acyclic lines (see jaxviz.views.compare.gc_pause)
        return run_to_end(_side_by_side(diff))


def side_by_side_steps(diff: JaxprDiff) -> Steps[SideBySide]:
    """:func:`side_by_side` in steps (one per block; see :mod:`jaxviz.views.incremental`)."""
    return _side_by_side(diff)


def _side_by_side(diff: JaxprDiff) -> Steps[SideBySide]:
    layout = SideBySide(diff, row_lines=[(None, None)] * len(diff.rows))
    rows = diff.rows
    i = 0
    while i < len(rows):
        j = i + 1
        if _one_sided(rows[i]):
            while j < len(rows) and _one_sided(rows[j]):
                j += 1
        group = range(i, j)
        top = len(layout.left)
        sides: dict[str, list[ShownLine]] = {"left": [], "right": []}
        for r in group:
            spans: list[range | None] = []
            for which in ("left", "right"):
                side = getattr(rows[r], which)
                if side is None:
                    spans.append(None)
                    continue
                shown = sides[which]
                start = top + len(shown)
                shown += [ShownLine(s.text, r, s.jaxpr_line, s.spans)
                          for s in shown_lines(side, rows[r])]
                spans.append(range(start, top + len(shown)))
            layout.row_lines[r] = (spans[0], spans[1])
            if (r - i) % STEP_ROWS == STEP_ROWS - 1:  # a block of hundreds of rows: in steps
                yield
        height = max(len(sides["left"]), len(sides["right"]))
        layout.blocks.append(Block(tuple(group), top, len(sides["left"]), len(sides["right"]),
                                   _block_category([rows[r] for r in group])))
        for which in ("left", "right"):
            shown = sides[which]
            layout.side(which).extend(shown + [ShownLine("")] * (height - len(shown)))
        i = j
        yield
    return layout


def default_pair(variant: str | None, traced: Sequence[str], visible: Sequence[str]
                 ) -> tuple[str, str] | None:
    """The two variants "Compare" opens with: a base, and ``variant`` (or the next visible).

    The base is ``plain`` when it traced, else ``vmap`` (``plain`` cannot bind a
    collective's axis name), else the first variant that traced. Asked from the
    base itself, the other side is the first other visible variant that traced.

    Args:
        variant: the variant asked about (a pane's), or ``None``.
        traced: the variants that traced without error, in pane order.
        visible: the visible panes, in pane order.

    Returns:
        ``(left, right)``, or ``None`` when fewer than two variants traced.

    Example:
        >>> default_pair("pmap", ["plain", "vmap", "pmap"], ["plain", "pmap"])
        ('plain', 'pmap')
        >>> default_pair("plain", ["plain", "vmap", "pmap"], ["plain", "pmap"])
        ('plain', 'pmap')
    """
    if len(traced) < 2:
        return None
    base = next((v for v in ("plain", "vmap") if v in traced), traced[0])
    if variant is not None and variant in traced and variant != base:
        return base, variant
    others = [v for v in visible if v in traced and v != base]
    others += [v for v in traced if v != base and v not in others]
    return base, others[0]
