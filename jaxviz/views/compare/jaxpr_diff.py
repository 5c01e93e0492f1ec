"""What changed between two variants' jaxprs: an aligned, jaxpr-aware diff.

A text diff of two jaxprs is useless: variable names shift. This diff pairs
*equations* by where they came from (the user's source line) and what they do
(the primitive), never by variable names, and says how each pair differs:

* ``same``: same primitive, shapes and parameters;
* ``shapes``: an input or output changed type, with how (``gained the batch
  axis 0 (8)``, ``lost axis 0 (8)``, ``axis 0: 8 -> 1`` where one side runs per
  device, ...); its parameter changes are listed too;
* ``params``: same shapes, some parameter changed (named, old -> new);
* ``only_left`` / ``only_right``: an equation with no counterpart (pmap's
  ``squeeze``, the ``shard_map`` wrapper, vmap's added ``broadcast_in_dim`` ...).

Nested jaxprs are aligned recursively in the simplest way that stays true:
both sides are walked in pre-order (an equation, then the equations of its
nested jaxprs) and the two walks are aligned. A wrapper only one side has
(pmap's ``jit[shard_map[...]]``) is then ``only_right``, and its body pairs
with the other side's equations wherever they are; paired wrappers (``jit`` and
``jit``) pair their bodies. Every equation of both sides is in exactly one row.

The pairing is symmetric: ``diff_variants(b, a)`` is the mirror of
``diff_variants(a, b)`` (see :func:`jaxviz.views.compare.jaxpr_align.align`).

Plain data over :class:`~jaxviz.model.records.VariantResult` (no JAX, no Qt);
the records are registered with the model codec, so :func:`~jaxviz.model.to_plain`
gives their JSON form.

Example:
    >>> d = diff_variants(result.variant("plain"), result.variant("vmap"))  # doctest: +SKIP
    >>> d.summary                                                             # doctest: +SKIP
    '10 equations gained the batch axis, 0 added, 0 removed'
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from jaxviz.model.records import Equation, VariantResult, register, walk_paths
from jaxviz.views.compare.gc_pause import paused_gc
from jaxviz.views.compare.jaxpr_align import Pair, align_steps, changed_tokens, token_spans
from jaxviz.views.compare.jaxpr_shapes import (
    CATEGORIES,
    ShapeChange,
    compare_vars,
    describe_param,
    headline_category,
)
from jaxviz.views.incremental import Steps, run_to_end

#: Row kinds, in the order the summary counts them.
KINDS = ("same", "shapes", "params", "only_left", "only_right")

#: Equations whose nested jaxpr runs once per device: the shapes inside are per-device.
PER_DEVICE_WRAPPERS = frozenset({"shard_map", "xla_pmap"})

_NUMPY_SCALAR = re.compile(r"np\.(?:u?int|float|bool_?)\d*\(([^()]*)\)")


@dataclass
class TextRange:
    """Characters ``start:end`` of the 0-based line ``line`` of a variant's ``jaxpr_text``."""

    line: int
    start: int
    end: int


@dataclass
class DiffSide:
    """One side of a row: an equation of one variant, located in its jaxpr text.

    Attributes:
        order: its position in a pre-order walk of the variant's equations (the
            index :class:`jaxviz.views.panes.link_index.EqnRef` and the device view use).
        path: its index at each nesting level, e.g. ``[0, 0, 3]``.
        depth: how deeply it is nested (0 at the top level).
        primitive: the primitive's name.
        line: the user's source line it came from (1-based), or ``None``.
        per_device: it is inside a ``shard_map`` (or ``xla_pmap``) body, so its
            shapes are the shapes one device sees.
        text_lines: the 0-based lines of ``jaxpr_text`` that print the equation
            itself: all its lines, or for a wrapper the lines before its body
            (the body's equations have rows of their own, and its closing lines
            ``in (...) }`` / ``] a b`` are left out). Empty when not printed.
        text: those lines.
        changed: the changed tokens in those lines (empty for ``same`` rows
            and for rows with one side).
    """

    order: int
    path: list[int]
    depth: int
    primitive: str
    line: int | None
    per_device: bool
    text_lines: list[int]
    text: list[str]
    changed: list[TextRange] = field(default_factory=list)


@dataclass
class ParamChange:
    """A parameter (or a literal operand) that differs: its name, old and new text.

    ``left``/``right`` are ``None`` where one side has no such parameter;
    ``note`` explains it in words where jaxviz knows the parameter
    (``dot_general``'s ``dimension_numbers``).
    """

    name: str
    left: str | None
    right: str | None
    note: str = ""


@dataclass
class DiffRow:
    """One aligned row: a pair of equations, or one equation only one side has.

    ``same`` compares what the records hold: the primitive, the inputs' and
    outputs' dtypes and shapes, the parameters and literal operands. The printed
    lines can still differ in what the records do not hold, such as the
    ``{V:axis}`` annotation of values varying over a ``shard_map`` axis
    (``check_vma=True``); the sides' ``changed`` ranges show every difference of
    the printed lines (variable names aside).
    """

    kind: str  # one of KINDS
    left: DiffSide | None
    right: DiffSide | None
    shapes: list[ShapeChange] = field(default_factory=list)
    params: list[ParamChange] = field(default_factory=list)
    #: What changed, in a few words (empty for ``same``).
    text: str = ""


@dataclass
class JaxprDiff:
    """The diff of two variants' jaxprs.

    Attributes:
        left, right: the variants' names.
        rows: the aligned rows, in pre-order of both sides.
        inputs, outputs: how the function's own inputs and outputs changed.
        batch: the size of the axis the inputs gained (or lost), when it is one
            size: the batch. Equations that gain an axis of this size "gained
            the batch axis".
        counts: how many rows of each kind (``KINDS``), and how many rows fall
            in each summary category (``gained the batch axis`` ...).
        summary: one line computed from the rows.
    """

    left: str
    right: str
    rows: list[DiffRow]
    inputs: list[ShapeChange] = field(default_factory=list)
    outputs: list[ShapeChange] = field(default_factory=list)
    batch: int | None = None
    counts: dict[str, int] = field(default_factory=dict)
    summary: str = ""


for _cls in (TextRange, DiffSide, ParamChange, ShapeChange, DiffRow, JaxprDiff):
    register(_cls)


# --------------------------------------------------------------------------- #
# Walking a variant
# --------------------------------------------------------------------------- #


@dataclass(frozen=True)
class _Item:
    order: int
    path: tuple[int, ...]
    eqn: Equation
    per_device: bool
    #: What the alignment compares, read once (it compares each pair of a key's items).
    key: tuple[str | None, int | None, str] = field(init=False)
    outputs: tuple[str, ...] = field(init=False)
    inputs: tuple[str, ...] = field(init=False)
    ranks: tuple[tuple[str, int], ...] = field(init=False)

    def __post_init__(self) -> None:
        span, eqn = self.eqn.source, self.eqn
        put = object.__setattr__  # frozen
        put(self, "key", (span.file if span else None, span.line if span else None,
                          eqn.primitive))
        put(self, "outputs", tuple(v.type_str for v in eqn.outputs))
        put(self, "inputs", tuple(v.type_str for v in eqn.inputs))
        put(self, "ranks", tuple((v.dtype, len(v.shape)) for v in eqn.outputs))

    def describe(self) -> tuple[object, ...]:
        file, line, primitive = self.key
        return (file or "", line or 0, primitive, list(self.outputs), list(self.inputs))


def _items(vr: VariantResult) -> Steps[list[_Item]]:
    """The variant's equations in pre-order, each knowing whether a per-device body holds it
    (in steps: one per equation)."""
    inside: dict[tuple[int, ...], bool] = {(): False}  # path -> its nested equations run per device
    items = []
    for n, (path, eqn) in enumerate(walk_paths(vr.equations)):
        per_device = inside[path[:-1]]  # the parent was walked first
        inside[path] = per_device or eqn.primitive in PER_DEVICE_WRAPPERS
        items.append(_Item(n, path, eqn, per_device))
        yield
    return items


def _signature_affinity() -> Callable[[_Item, _Item], int]:
    """:func:`_affinity`, remembered per pair of signatures (a loop's equations share a few)."""
    known: dict[tuple[object, ...], int] = {}

    def affinity(a: _Item, b: _Item) -> int:
        pair = (a.outputs, a.inputs, b.outputs, b.inputs)
        found = known.get(pair)
        if found is None:
            found = known[pair] = _affinity(a, b)
        return found

    return affinity


def _affinity(a: _Item, b: _Item) -> int:
    """3: same output and input types; 2: same outputs; 1: outputs related; 0: neither."""
    if a.outputs == b.outputs:
        return 3 if a.inputs == b.inputs else 2
    related = len(a.ranks) == len(b.ranks) and all(
        x[0] == y[0] and abs(x[1] - y[1]) <= 1 for x, y in zip(a.ranks, b.ranks))
    return 1 if related else 0


# --------------------------------------------------------------------------- #
# The diff
# --------------------------------------------------------------------------- #


def diff_variants(left: VariantResult, right: VariantResult) -> JaxprDiff:
    """Align and classify the equations of two traced variants.

    Args:
        left, right: two variants of one function (from one ``TraceResult``),
            both traced without error.

    Returns:
        The rows (every equation of both sides exactly once), how the inputs
        and outputs changed, and a summary.

    Raises:
        ValueError: a variant failed to trace (it has no jaxpr).
    """
    _check(left, right)
    with paused_gc():  # its objects are acyclic; the collector's passes cost more than it
        return run_to_end(_diff(left, right))


def diff_steps(left: VariantResult, right: VariantResult) -> Steps[JaxprDiff]:
    """:func:`diff_variants` in steps (one per equation and per row; see
    :mod:`jaxviz.views.incremental`): the window runs them a few milliseconds per
    event-loop turn.

    Raises:
        ValueError: a variant failed to trace (at once, not at the first step).
    """
    _check(left, right)
    return _diff(left, right)


def _check(left: VariantResult, right: VariantResult) -> None:
    for vr in (left, right):
        if vr.error is not None:
            raise ValueError(f"the {vr.variant} variant failed to trace: {vr.error.message}")


def _diff(left: VariantResult, right: VariantResult) -> Steps[JaxprDiff]:
    inputs = compare_vars(left.invars, right.invars, "input", False, False, None)
    yield
    batch = _batch_size(inputs)
    if batch is not None:  # now that the batch is known, say which changes are the batch axis
        inputs = compare_vars(left.invars, right.invars, "input", False, False, batch)
        yield
    outputs = compare_vars(left.outvars, right.outvars, "output", False, False, batch)
    yield
    a = yield from _items(left)
    b = yield from _items(right)
    aligned = yield from align_steps(a, b, key=lambda it: it.key,
                                     affinity=_signature_affinity(), order=_Item.describe)
    yield
    pairs = _openers_first(aligned, a, b)
    yield
    left_lines = left.jaxpr_text.split("\n") if left.jaxpr_text else []
    right_lines = right.jaxpr_text.split("\n") if right.jaxpr_text else []
    rows = []
    for i, j in pairs:
        ls = _side(a[i], left_lines) if i is not None else None
        rs = _side(b[j], right_lines) if j is not None else None
        if i is None:
            rows.append(DiffRow("only_right", None, rs, text=f"only in {right.variant}"))
        elif j is None:
            rows.append(DiffRow("only_left", ls, None, text=f"only in {left.variant}"))
        else:
            assert ls is not None and rs is not None
            rows.append(_pair_row(a[i], b[j], ls, rs, batch))
        yield
    result = JaxprDiff(left.variant, right.variant, rows, inputs, outputs, batch)
    result.counts, result.summary = _summary(rows)
    return result


def _openers_first(pairs: list[Pair], a: list[_Item], b: list[_Item]) -> list[Pair]:
    """In each run of unpaired rows, the wrappers around the next pair first, then the rest.

    The alignment puts a run's left-only rows before its right-only ones; but a
    wrapper (pmap's ``jit``, ``shard_map``) opens what follows it, so the
    wrappers that enclose the next paired equation (on either side) come first.
    """
    out: list[Pair] = []
    run: list[Pair] = []
    for pair in pairs + [(None, None)]:  # a sentinel closes the last run
        i, j = pair
        if (i is None) != (j is None):
            run.append(pair)
            continue
        inner = (a[i].path if i is not None else (), b[j].path if j is not None else ())

        def opens(p: Pair, inner: tuple[tuple[int, ...], tuple[int, ...]] = inner) -> bool:
            x, y = p
            outer = a[x].path if x is not None else b[y].path if y is not None else ()
            within = inner[0] if x is not None else inner[1]
            return len(outer) < len(within) and within[:len(outer)] == outer

        out += [p for p in run if opens(p)] + [p for p in run if not opens(p)]
        if i is not None or j is not None:
            out.append(pair)
        run = []
    return out


def _batch_size(inputs: list[ShapeChange]) -> int | None:
    """The one size every input that gained (or lost) an axis gained it with, if any."""
    sizes = {size for c in inputs if c.change in ("gained", "lost")
             for size in (c.right_sizes if c.change == "gained" else c.left_sizes)}
    return sizes.pop() if len(sizes) == 1 else None


def _display_lines(eqn: Equation, count: int) -> list[int]:
    if eqn.text_start is None:
        return []
    end = eqn.text_end if eqn.text_end is not None else eqn.text_start
    starts = [c.text_start for sub in eqn.subjaxprs for c in sub.equations
              if c.text_start is not None and eqn.text_start < c.text_start <= end]
    if starts:
        end = min(starts) - 1
    return list(range(eqn.text_start, min(end, count - 1) + 1))


def _side(item: _Item, lines: list[str]) -> DiffSide:
    shown = _display_lines(item.eqn, len(lines))
    span = item.eqn.source
    return DiffSide(order=item.order, path=list(item.path), depth=len(item.path) - 1,
                    primitive=item.eqn.primitive, line=span.line if span else None,
                    per_device=item.per_device, text_lines=shown,
                    text=[lines[n] for n in shown])


def _names(eqn: Equation) -> set[str]:
    """The variable names an equation's text mentions (its own and its nested binders')."""
    vars_ = list(eqn.inputs) + list(eqn.outputs)
    for sub in eqn.subjaxprs:
        vars_ += sub.invars + sub.outvars
    return {v.name for v in vars_ if not v.literal}


def _pair_row(a: _Item, b: _Item, ls: DiffSide, rs: DiffSide, batch: int | None) -> DiffRow:
    la, lb = a.eqn, b.eqn
    shapes = (compare_vars(la.outputs, lb.outputs, "output", a.per_device, b.per_device, batch)
              + compare_vars(la.inputs, lb.inputs, "input", a.per_device, b.per_device, batch))
    params = _param_changes(la, lb)
    if shapes:
        kind, text = "shapes", shapes[0].text
    elif params:
        kind = "params"
        first = params[0]
        text = first.note or f"{first.name}: {first.left} -> {first.right}"
    else:
        kind, text = "same", ""
    left_changed, right_changed = changed_tokens(ls.text, rs.text, _names(la), _names(lb))
    ls.changed = [TextRange(ls.text_lines[n], s, e) for n, s, e in token_spans(left_changed)]
    rs.changed = [TextRange(rs.text_lines[n], s, e) for n, s, e in token_spans(right_changed)]
    return DiffRow(kind, ls, rs, shapes, params, text)


def _param_changes(left: Equation, right: Equation) -> list[ParamChange]:
    """Parameters that differ (nested jaxprs excluded: their equations are aligned), and
    literal operands that differ."""
    nested = {sub.param.split("[")[0] for eqn in (left, right) for sub in eqn.subjaxprs}
    changes = []
    for name in sorted(set(left.params) | set(right.params)):
        if name in nested:
            continue
        lv, rv = left.params.get(name), right.params.get(name)
        if lv == rv:  # the common case, without the two substitutions below
            continue
        if lv is not None and rv is not None and _NUMPY_SCALAR.sub(r"\1", lv) == \
                _NUMPY_SCALAR.sub(r"\1", rv):
            continue
        changes.append(ParamChange(name, lv, rv, describe_param(left.primitive, name, lv, rv)))
    for n, (x, y) in enumerate(zip(left.inputs, right.inputs)):
        if (x.literal or y.literal) and (x.literal, x.name) != (y.literal, y.name):
            lv, rv = (v.name if v.literal else None for v in (x, y))
            words = [f"the literal {v}" if v is not None else "a variable" for v in (lv, rv)]
            changes.append(ParamChange(f"operand {n}", lv, rv,
                                       f"operand {n}: {words[0]} -> {words[1]}"))
    return changes


# --------------------------------------------------------------------------- #
# Summary
# --------------------------------------------------------------------------- #


def _tally(names: list[str]) -> str:
    counted = Counter(names)
    parts = [name if n == 1 else f"{name} x{n}" for name, n in counted.items()]
    if len(parts) > 6:
        parts = parts[:6] + ["..."]
    return f" ({', '.join(parts)})" if parts else ""


def _summary(rows: list[DiffRow]) -> tuple[dict[str, int], str]:
    counts = {kind: 0 for kind in KINDS}
    categories: Counter[str] = Counter()
    for row in rows:
        counts[row.kind] += 1
        if row.kind == "shapes":
            categories[headline_category(row.shapes[0])] += 1
    parts = [f"{categories[c]} {c}" for c in CATEGORIES if categories[c]]
    if counts["params"]:
        parts.append(f"{counts['params']} with changed parameters")
    if counts["same"]:
        parts.append(f"{counts['same']} unchanged")
    if not parts:
        parts.append("0 paired")
    first_n = parts[0].split(" ", 1)
    parts[0] = f"{first_n[0]} equation{'' if first_n[0] == '1' else 's'} {first_n[1]}"
    added = [r.right.primitive for r in rows if r.kind == "only_right" and r.right]
    removed = [r.left.primitive for r in rows if r.kind == "only_left" and r.left]
    parts.append(f"{len(added)} added{_tally(added)}")
    parts.append(f"{len(removed)} removed{_tally(removed)}")
    for category, n in categories.items():
        counts[category] = n
    return counts, ", ".join(parts)
