"""How one jaxpr variable's type, or one parameter, differs between two variants.

The words the jaxpr diff (:mod:`jaxviz.views.compare.jaxpr_diff`) uses for shapes:
``gained axis 0 (8)`` (the right side has an extra axis of size 8 at position
0; removing it gives the left shape), ``lost axis 0 (8)`` (the mirror),
``axis 0: 8 -> 1`` (same rank, a dimension changed size), ``reshaped`` and a
dtype change. An axis whose size is the batch's is "the batch axis"; a type
inside a ``shard_map`` body is marked "per device" (it is one device's block).
Every description is read off the two shapes: nothing is guessed.

Example:
    >>> from jaxviz.model.records import VarInfo
    >>> compare_vars([VarInfo("c", [3], "i32")], [VarInfo("d", [8, 3], "i32")],
    ...              "output", False, False, 8)[0].text
    'i32[3] -> i32[8,3]: gained the batch axis 0 (8)'
"""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass, field

from jaxviz.model.records import VarInfo

#: The summary's shape categories, in the order the summary names them.
CATEGORIES = (
    "gained the batch axis", "gained an axis", "shrank to the per-device size",
    "lost the batch axis", "lost an axis", "grew from the per-device size", "changed shape",
    "changed sharding",
)


@dataclass
class ShapeChange:
    """How one input or output of a pair of equations (or of the function) changed.

    Attributes:
        where: ``"input"`` or ``"output"``.
        index: the position among the inputs/outputs (-1: their number changed).
        left, right: the two types as the jaxpr prints them (``f32[8,3]``).
        change: ``gained`` (right has extra axes), ``lost`` (left has extra
            axes), ``resized`` (same rank, some sizes differ), ``reshaped``,
            ``dtype`` (only the dtype differs), ``sharding`` (only the sharding an
            explicit mesh puts in the type, ``f32[8@X]``) or ``count``.
        axes: the gained axes (positions in the right shape), the lost axes
            (positions in the left shape) or the resized axes.
        left_sizes, right_sizes: the sizes of those axes on each side (empty
            where that side lacks them).
        batch: the gained/lost axes all have the batch's size.
        per_device: ``"left"``/``"right"`` when exactly that side's equation runs
            per device (inside ``shard_map``), else ``""``.
        text: the change in words, e.g. ``i32[3] -> i32[8,3]: gained the batch
            axis 0 (8)``.
    """

    where: str
    index: int
    left: str
    right: str
    change: str
    axes: list[int] = field(default_factory=list)
    left_sizes: list[int] = field(default_factory=list)
    right_sizes: list[int] = field(default_factory=list)
    batch: bool = False
    per_device: str = ""
    text: str = ""


def inserted_axes(small: list[int], big: list[int]) -> list[int] | None:
    """Positions of ``big`` that, removed, leave ``small`` (matching from the last axis).

    Matching from the end finds leading axes first (batch axes usually lead):
    ``[8] in [8, 8]`` gives ``[0]``. ``None`` when ``small`` is not ``big`` with
    axes removed.
    """
    extra: list[int] = []
    k = len(small) - 1
    for pos in range(len(big) - 1, -1, -1):
        if k >= 0 and big[pos] == small[k]:
            k -= 1
        else:
            extra.append(pos)
    return sorted(extra) if k < 0 else None


def compare_var(left: VarInfo, right: VarInfo, where: str, index: int, left_per_device: bool,
                right_per_device: bool, batch: int | None) -> ShapeChange | None:
    """How ``left``'s type became ``right``'s, or ``None`` if they are equal."""
    if left.shape == right.shape and left.dtype == right.dtype:
        if left.sharding == right.sharding:
            return None
        label = f"{where} {index}: " if where == "input" else ""
        return ShapeChange(where, index, left.type_str, right.type_str, "sharding",
                           text=f"{label}{left.type_str} -> {right.type_str}: the sharding "
                                f"its type carries changed")
    per = "left" if left_per_device and not right_per_device else \
        "right" if right_per_device and not left_per_device else ""
    c = ShapeChange(where, index, left.type_str, right.type_str, "reshaped", per_device=per)
    ls, rs = left.shape, right.shape
    gained = inserted_axes(ls, rs) if len(rs) > len(ls) else None
    lost = inserted_axes(rs, ls) if len(ls) > len(rs) else None
    if gained is not None:
        c.change, c.axes, c.right_sizes = "gained", gained, [rs[a] for a in gained]
        c.batch = batch is not None and all(s == batch for s in c.right_sizes)
        what = f"gained {_axes_words(c.axes, c.right_sizes, c.batch)}"
    elif lost is not None:
        c.change, c.axes, c.left_sizes = "lost", lost, [ls[a] for a in lost]
        c.batch = batch is not None and all(s == batch for s in c.left_sizes)
        what = f"lost {_axes_words(c.axes, c.left_sizes, c.batch)}"
    elif len(ls) == len(rs) and ls != rs:
        c.change = "resized"
        c.axes = [n for n, (x, y) in enumerate(zip(ls, rs)) if x != y]
        c.left_sizes, c.right_sizes = [ls[a] for a in c.axes], [rs[a] for a in c.axes]
        what = ", ".join(f"axis {a}: {x} -> {y}"
                         for a, x, y in zip(c.axes, c.left_sizes, c.right_sizes))
    elif ls == rs:
        c.change, what = "dtype", ""
    else:
        what = "reshaped"
    if left.dtype != right.dtype:
        what = f"{what}, dtype {left.dtype} -> {right.dtype}" if what else \
            f"dtype {left.dtype} -> {right.dtype}"
    lt = c.left + (" per device" if per == "left" else "")
    rt = c.right + (" per device" if per == "right" else "")
    label = f"{where} {index}: " if where == "input" else ""
    c.text = f"{label}{lt} -> {rt}: {what}"
    return c


def _axes_words(axes: list[int], sizes: list[int], batch: bool) -> str:
    if len(axes) == 1:
        return f"the batch axis {axes[0]} ({sizes[0]})" if batch else \
            f"axis {axes[0]} ({sizes[0]})"
    listed = ", ".join(f"{a} ({s})" for a, s in zip(axes, sizes))
    return f"the batch axes {listed}" if batch else f"axes {listed}"


def compare_vars(left: list[VarInfo], right: list[VarInfo], where: str, left_per_device: bool,
                 right_per_device: bool, batch: int | None) -> list[ShapeChange]:
    """The changes between two lists of variables, position by position."""
    out = []
    if len(left) != len(right):
        out.append(ShapeChange(where, -1, str(len(left)), str(len(right)), "count",
                               text=f"{len(left)} {where}s -> {len(right)} {where}s"))
    for n, (x, y) in enumerate(zip(left, right)):
        c = compare_var(x, y, where, n, left_per_device, right_per_device, batch)
        if c is not None:
            out.append(c)
    return out


def headline_category(c: ShapeChange) -> str:
    """The summary category (one of :data:`CATEGORIES`) of a row's first shape change."""
    if c.change == "sharding":
        return "changed sharding"
    if c.change == "gained":
        return "gained the batch axis" if c.batch else "gained an axis"
    if c.change == "lost":
        return "lost the batch axis" if c.batch else "lost an axis"
    if c.change == "resized":
        if c.per_device == "right" and all(x > y for x, y in zip(c.left_sizes, c.right_sizes)):
            return "shrank to the per-device size"
        if c.per_device == "left" and all(x < y for x, y in zip(c.left_sizes, c.right_sizes)):
            return "grew from the per-device size"
    return "changed shape"


# --------------------------------------------------------------------------- #
# Parameters jaxviz can explain
# --------------------------------------------------------------------------- #


def describe_param(primitive: str, name: str, left: str | None, right: str | None) -> str:
    """Words for a changed parameter, where jaxviz knows it (else ``""``)."""
    if primitive == "dot_general" and name == "dimension_numbers" and left and right:
        return _dimension_numbers(left, right)
    return ""


@functools.lru_cache(maxsize=256)
def _dims(value: str) -> tuple[tuple[int, ...], ...] | None:
    """``(((lc), (rc)), ((lb), (rb)))`` -> ``(lc, rc, lb, rb)``; ``None`` if unreadable.

    Remembered: a program's few spellings come back at every comparison of every edit,
    and each ``ast.literal_eval`` leaves a cycle of closures for the collector."""
    try:
        (lc, rc), (lb, rb) = ast.literal_eval(value)
        return tuple(tuple(int(d) for d in dims) for dims in (lc, rc, lb, rb))
    except (ValueError, SyntaxError, TypeError):
        return None


def _pair_words(lhs: tuple[int, ...], rhs: tuple[int, ...]) -> str:
    def one(dims: tuple[int, ...]) -> str:
        return ",".join(str(d) for d in dims) if dims else "none"

    return f"lhs {one(lhs)}, rhs {one(rhs)}"


def _dimension_numbers(left: str, right: str) -> str:
    a, b = _dims(left), _dims(right)
    if a is None or b is None:
        return ""
    words = []
    if a[2:] != b[2:]:
        if not any(a[2:]):
            words.append(f"gained batch dimensions ({_pair_words(*b[2:])})")
        elif not any(b[2:]):
            words.append(f"lost batch dimensions ({_pair_words(*a[2:])})")
        else:
            words.append(f"batch dimensions {_pair_words(*a[2:])} -> {_pair_words(*b[2:])}")
    if a[:2] != b[:2]:
        words.append(f"contracting dimensions {_pair_words(*a[:2])} -> {_pair_words(*b[:2])}")
    return "dot_general " + "; ".join(words) if words else ""
