"""Symmetric sequence alignment for the jaxpr diff: equations and the tokens of a line.

Two pieces of plain sequence logic that :mod:`jaxviz.views.compare.jaxpr_diff` builds on
(no records, no JAX, no Qt):

* :func:`align` pairs the items of two sequences whose keys are equal, keeping
  their order, as many pairs as possible (a longest common subsequence); among
  equally long alignments it prefers pairs with a higher ``affinity`` (e.g. the
  same shapes). It is *symmetric*: ``align(b, a)`` is exactly the mirror of
  ``align(a, b)``, because it always solves the problem in one canonical
  direction and mirrors the answer when asked the other way round (then, in
  each run of unpaired items, puts those of the first sequence first).
* :func:`changed_tokens` says which tokens of two lines differ, after names
  that may shift (variable names) are treated as equal.

Example:
    >>> align(["x", "y", "z"], ["y", "z", "w"], key=str)
    [(0, None), (1, 0), (2, 1), (None, 2)]
    >>> [(t.text, t.line) for t in changed_tokens(["c:f32[3]"], ["d:f32[8,3]"], {"c"}, {"d"})[1]]
    [('8', 0), (',', 0)]
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import NamedTuple, TypeVar

from jaxviz.views.incremental import Steps, run_to_end

T = TypeVar("T")

#: Alignments of up to this many cells (len(a) * len(b)) are solved exactly; larger
#: ones are anchored first (:func:`anchors`) and solved exactly between the anchors.
EXACT_CELLS = 40_000
#: Anchoring: how far (in items skipped on both sides together) to look for the
#: place where two sequences agree again, and over how many items they must agree.
RESYNC_REACH = 96
RESYNC_RUN = 6

#: One pairing of the alignment: an index into each sequence, ``None`` where the
#: item has no counterpart.
Pair = tuple[int | None, int | None]


def align(a: Sequence[T], b: Sequence[T], key: Callable[[T], Hashable],
          affinity: Callable[[T, T], int] | None = None,
          order: Callable[[T], tuple[object, ...]] | None = None) -> list[Pair]:
    """Pair items of ``a`` and ``b`` with equal keys, in order, as many as possible.

    Args:
        a, b: the two sequences.
        key: items pair only when their keys are equal.
        affinity: a small non-negative score of a candidate pair (0..3), used to
            choose among alignments with the same number of pairs; it must not
            depend on the order of its arguments.
        order: a sortable description of an item, used to pick the canonical
            direction (default: ``repr`` of the key).

    Returns:
        Every index of ``a`` and of ``b`` exactly once, in order: ``(i, j)`` for a
        pair, ``(i, None)`` for an item only in ``a``, ``(None, j)`` only in ``b``.
        Within a run of unpaired items, those of ``a`` come first.
    """
    return run_to_end(align_steps(a, b, key, affinity, order))


#: Items (or cells of an exact alignment, :data:`STEP_CELLS`) per step of
#: :func:`align_steps`: about a millisecond each.
STEP_ITEMS = 500
STEP_CELLS = 2_000


def align_steps(a: Sequence[T], b: Sequence[T], key: Callable[[T], Hashable],
                affinity: Callable[[T, T], int] | None = None,
                order: Callable[[T], tuple[object, ...]] | None = None
                ) -> Steps[list[Pair]]:
    """:func:`align` in steps of about a millisecond (a train step's 5,000 equations
    a side took 130 ms at once; see :mod:`jaxviz.views.incremental`)."""
    describe = order or (lambda item: (repr(key(item)),))
    described: list[list[tuple[object, ...]]] = [[], []]
    for side, items in zip(described, (a, b)):
        for n, item in enumerate(items):
            side.append(describe(item))
            if n % STEP_ITEMS == STEP_ITEMS - 1:
                yield
    if (yield from _less(described[1], described[0])):
        return mirror((yield from _align_directed(b, a, key, affinity)))
    return _left_first((yield from _align_directed(a, b, key, affinity)))


def _less(x: list[tuple[object, ...]], y: list[tuple[object, ...]]) -> Steps[bool]:
    """``x < y``, in steps (two variants' descriptions agree for thousands of items)."""
    for n, (p, q) in enumerate(zip(x, y)):
        if p != q:
            return p < q
        if n % STEP_ITEMS == STEP_ITEMS - 1:
            yield
    return len(x) < len(y)


def mirror(pairs: Sequence[Pair]) -> list[Pair]:
    """The alignment of the sequences swapped: ``align(b, a) == mirror(align(a, b))``."""
    return _left_first([(j, i) for i, j in pairs])


def _left_first(pairs: Sequence[Pair]) -> list[Pair]:
    """In every run of unpaired items, those of the first sequence first (order kept)."""
    out: list[Pair] = []
    run: list[Pair] = []
    for pair in list(pairs) + [(-1, -1)]:  # a sentinel pair closes the last run
        if pair[0] is None or pair[1] is None:
            run.append(pair)
            continue
        out += [p for p in run if p[1] is None] + [p for p in run if p[0] is None]
        out.append(pair)
        run = []
    return out[:-1]


def _align_directed(a: Sequence[T], b: Sequence[T], key: Callable[[T], Hashable],
                    affinity: Callable[[T, T], int] | None) -> Steps[list[Pair]]:
    ids: dict[Hashable, int] = {}
    keys: list[list[int]] = [[], []]
    for side, items in zip(keys, (a, b)):
        for n, item in enumerate(items):
            side.append(ids.setdefault(key(item), len(ids)))
            if n % STEP_ITEMS == STEP_ITEMS - 1:
                yield
    ka, kb = keys
    score = affinity or (lambda _x, _y: 0)
    if len(a) * len(b) <= EXACT_CELLS:
        return (yield from _exact(a, b, ka, kb, score, 0, 0, len(a), len(b)))
    pairs: list[Pair] = []
    i = j = 0
    for block in (yield from anchors_steps(ka, kb)):  # the last block is (len(a), len(b), 0)
        if (block.a - i) * (block.b - j) <= EXACT_CELLS:
            pairs += yield from _exact(a, b, ka, kb, score, i, j, block.a, block.b)
        else:
            pairs += [(n, None) for n in range(i, block.a)]
            pairs += [(None, n) for n in range(j, block.b)]
        pairs += [(block.a + n, block.b + n) for n in range(block.size)]
        i, j = block.a + block.size, block.b + block.size
        yield
    return pairs


@dataclass(frozen=True)
class Block:
    """``a[a:a+size] == b[b:b+size]`` (the fields of difflib's matching blocks)."""

    a: int
    b: int
    size: int


def anchors(ka: list[int], kb: list[int]) -> list[Block]:
    """:func:`anchors_steps` at once."""
    return run_to_end(anchors_steps(ka, kb))


def anchors_steps(ka: list[int], kb: list[int]) -> Steps[list[Block]]:
    """Runs of equal keys to align two long sequences on, in order, in about linear time.

    Two variants of one program are the same equations with a few added, removed or
    changed: walk both while they agree; where they stop agreeing, take the nearest
    place (fewest items skipped on both sides) where they agree again for
    ``RESYNC_RUN`` items. ``difflib`` finds longest matches instead, which costs
    time quadratic in the length on a program of a few repeated primitives (a
    5,000-equation chain took 15 s). A stretch where no such place lies within
    ``RESYNC_REACH`` items is left to ``difflib``.
    """
    n, m = len(ka), len(kb)
    blocks: list[Block] = []
    i = j = 0
    while i < n and j < m:
        yield
        if ka[i] == kb[j]:
            si, sj = i, j
            while i < n and j < m and ka[i] == kb[j]:
                i, j = i + 1, j + 1
            blocks.append(Block(si, sj, i - si))
            continue
        step = _resync(ka, kb, i, j)
        if step is None:
            rest = difflib.SequenceMatcher(None, ka[i:], kb[j:], autojunk=False)
            blocks += [Block(i + b.a, j + b.b, b.size) for b in rest.get_matching_blocks()
                       if b.size]
            break
        i, j = i + step[0], j + step[1]
    blocks.append(Block(n, m, 0))
    return blocks


def _resync(ka: list[int], kb: list[int], i: int, j: int) -> tuple[int, int] | None:
    """The fewest items ``(di, dj)`` to skip so that ``ka[i+di:]`` and ``kb[j+dj:]`` agree."""
    n, m = len(ka), len(kb)
    for d in range(1, RESYNC_REACH + 1):
        for k in range(d + 1):
            # alternate sides so that neither is preferred: dj, di, dj-1, di+1 ...
            di = k // 2 if k % 2 else d - k // 2
            di = min(di, d)
            dj = d - di
            x, y = i + di, j + dj
            if x >= n or y >= m or ka[x] != kb[y]:
                continue
            run = min(RESYNC_RUN, n - x, m - y)
            if ka[x:x + run] == kb[y:y + run]:
                return di, dj
    return None


def _exact(a: Sequence[T], b: Sequence[T], ka: list[int], kb: list[int],
           score: Callable[[T, T], int], i0: int, j0: int, i1: int, j1: int
           ) -> Steps[list[Pair]]:
    """The best alignment of ``a[i0:i1]`` and ``b[j0:j1]`` (dynamic programming).

    A pair is worth ``unit`` plus its affinity, and ``unit`` exceeds any sum of
    affinities, so the number of pairs comes first and affinity breaks ties.
    """
    n, m = i1 - i0, j1 - j0
    unit = 4 * min(n, m) + 1
    cache: dict[tuple[int, int], int] = {}

    def gain(i: int, j: int) -> int:
        if (i, j) not in cache:
            cache[(i, j)] = unit + min(3, max(0, score(a[i], b[j])))
        return cache[(i, j)]

    # best[i][j]: the best score of the suffixes a[i0+i:i1] and b[j0+j:j1].
    best = [[0] * (m + 1) for _ in range(n + 1)]
    cells = 0
    for i in range(n - 1, -1, -1):
        cells += m
        if cells >= STEP_CELLS:
            cells = 0
            yield
        row, below, ki = best[i], best[i + 1], ka[i0 + i]
        for j in range(m - 1, -1, -1):
            value = below[j] if below[j] >= row[j + 1] else row[j + 1]
            if kb[j0 + j] == ki:
                paired = below[j + 1] + gain(i0 + i, j0 + j)
                if paired > value:
                    value = paired
            row[j] = value
    pairs: list[Pair] = []
    i = j = 0
    while i < n or j < m:
        if (i < n and j < m and ka[i0 + i] == kb[j0 + j]
                and best[i][j] == best[i + 1][j + 1] + gain(i0 + i, j0 + j)):
            pairs.append((i0 + i, j0 + j))
            i, j = i + 1, j + 1
        elif i < n and (j == m or best[i][j] == best[i + 1][j]):
            pairs.append((i0 + i, None))
            i += 1
        else:
            pairs.append((None, j0 + j))
            j += 1
    return pairs


# --------------------------------------------------------------------------- #
# Tokens of a line
# --------------------------------------------------------------------------- #

_TOKEN = re.compile(r"'[^']*'|\"[^\"]*\"|[A-Za-z_][A-Za-z_0-9]*|\d+(?:\.\d*)?(?:e[+-]?\d+)?|\S")


class Token(NamedTuple):
    """One token of a multi-line text: its text, 0-based line, character span and position.

    (A named tuple: a diff of thousands of equations makes hundreds of thousands.)
    """

    text: str
    line: int
    start: int
    end: int
    position: int


def tokens(lines: Sequence[str]) -> list[Token]:
    """The tokens of some lines: names, numbers, quoted strings and single symbols."""
    found = [(n, m) for n, line in enumerate(lines) for m in _TOKEN.finditer(line)]
    return [Token(m.group(), n, m.start(), m.end(), k) for k, (n, m) in enumerate(found)]


def _texts(lines: Sequence[str], names: set[str]) -> list[str]:
    return [_normal(t, names) for line in lines for t in _TOKEN.findall(line)]


def changed_tokens(left: Sequence[str], right: Sequence[str], left_names: set[str],
                   right_names: set[str]) -> tuple[list[Token], list[Token]]:
    """The tokens that differ between two texts, on each side.

    Tokens in ``left_names`` / ``right_names`` (the variable names of each side,
    which shift between jaxprs without meaning anything) count as equal to each
    other. Symmetric like :func:`align`.

    Returns:
        ``(changed on the left, changed on the right)``; line numbers index the
        given lists.
    """
    ln, rn = _texts(left, left_names), _texts(right, right_names)
    if ln == rn:  # the common case in a long program: nothing but names changed
        return [], []
    lt, rt = _matches(left), _matches(right)
    if rn < ln:
        r_changed, l_changed = _changed(rn, ln, rt, lt)
        return l_changed, r_changed
    return _changed(ln, rn, lt, rt)


def _matches(lines: Sequence[str]) -> list[tuple[int, re.Match[str]]]:
    """Each token's line and match (a :class:`Token` is made only for those that changed)."""
    return [(n, m) for n, line in enumerate(lines) for m in _TOKEN.finditer(line)]


def _made(found: list[tuple[int, re.Match[str]]], start: int, stop: int) -> list[Token]:
    return [Token(m.group(), n, m.start(), m.end(), k)
            for k, (n, m) in enumerate(found[start:stop], start)]


def _normal(text: str, names: set[str]) -> str:
    return "\x00var" if text in names else text


def _changed(an: list[str], bn: list[str], at: list[tuple[int, re.Match[str]]],
             bt: list[tuple[int, re.Match[str]]]) -> tuple[list[Token], list[Token]]:
    out_a: list[Token] = []
    out_b: list[Token] = []
    if an == bn:
        return out_a, out_b
    matcher = difflib.SequenceMatcher(None, an, bn, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            out_a += _made(at, i1, i2)
            out_b += _made(bt, j1, j2)
    return out_a, out_b


def token_spans(changed: Sequence[Token]) -> list[tuple[int, int, int]]:
    """Changed tokens merged into ``(line, start, end)`` spans.

    Tokens that follow each other on one line (no unchanged token between them)
    join into one span.
    """
    spans: list[tuple[int, int, int]] = []
    previous: Token | None = None
    for tok in changed:
        if (previous is not None and tok.line == previous.line
                and tok.position == previous.position + 1):
            line, start, _ = spans[-1]
            spans[-1] = (line, start, tok.end)
        else:
            spans.append((tok.line, tok.start, tok.end))
        previous = tok
    return spans
