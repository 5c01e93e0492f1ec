"""Which jaxpr lines came from which source line: the data behind the linking.

Pure Python over :class:`~jaxviz.model.TraceResult` records (no Qt), so it is
cheap to test. For every variant, :class:`LinkIndex` knows the equation that
owns each line of ``jaxpr_text`` (the innermost equation whose
``text_start..text_end`` covers it) and the user's source line that equation
came from; and, the other way, every jaxpr line of every variant that a source
line produced.

Example:
    >>> index = LinkIndex(result)                     # doctest: +SKIP
    >>> index.owner("plain", 2).primitive             # doctest: +SKIP
    'dot_general'
    >>> index.text_lines_for(21)["vmap"]              # doctest: +SKIP
    [1, 2, 3, 4, 5, ...]
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from jaxviz.model import Equation, TraceResult, VariantResult
from jaxviz.model.records import walk_paths
from jaxviz.views.incremental import Steps, run_to_end

#: Equations indexed per step of :meth:`LinkIndex.in_steps` (about a millisecond).
STEP_EQUATIONS = 250

#: A compiled program's source location, as ``hlo_program.readable`` leaves it.
_LOCATION = re.compile(r'source_file="([^"]*)" source_line=(\d+)')


@dataclass(frozen=True)
class EqnRef:
    """One equation of one variant, located in the variant's ``jaxpr_text``.

    Attributes:
        variant: the variant's name.
        order: its position in a pre-order walk of the equations (nested ones
            included), the index the device view uses to name equations.
        path: its index at each nesting level, e.g. ``(0, 0, 3)``.
        primitive: the primitive's name.
        line: the user's source line it came from (1-based), or ``None``.
        start, end: its first and last 0-based line in ``jaxpr_text``.
        depth: how deeply it is nested (0 for the top level).
        equation: the record itself.
    """

    variant: str
    order: int
    path: tuple[int, ...]
    primitive: str
    line: int | None
    start: int
    end: int
    depth: int
    equation: Equation


#: Every equation with its index path, in pre-order (one walk: :func:`walk_paths`).
walk = walk_paths


class LinkIndex:
    """Source line <-> jaxpr line maps of every variant of one result.

    Args:
        result: the traced result.
        filename: equations whose source span is in this file are linked
            (default: the result's own filename, i.e. the traced source).
    """

    def __init__(self, result: TraceResult, filename: str | None = None):
        run_to_end(self._build(result, filename))

    @classmethod
    def in_steps(cls, result: TraceResult, filename: str | None = None) -> Steps[LinkIndex]:
        """The index built in steps of :data:`STEP_EQUATIONS` equations (the window builds
        a train step's, ~5,000 equations, over several event-loop turns)."""
        index = cls.__new__(cls)
        yield from index._build(result, filename)
        return index

    def _build(self, result: TraceResult, filename: str | None) -> Steps[None]:
        self.filename = filename or result.filename
        self._refs: dict[str, list[EqnRef]] = {}
        self._owners: dict[str, list[EqnRef | None]] = {}
        self._by_source: dict[int, dict[str, list[int]]] = {}
        for vr in result.variants:
            yield from self._add_variant(vr)
        self.source_lines: list[int] = sorted(self._by_source)
        self._colour = {line: n for n, line in enumerate(self.source_lines)}

    def _add_variant(self, vr: VariantResult) -> Steps[None]:
        nlines = vr.jaxpr_text.count("\n") + 1 if vr.jaxpr_text else 0
        owners: list[EqnRef | None] = [None] * nlines
        refs = []
        for order, (path, eqn) in enumerate(walk(vr.equations)):
            if order % STEP_EQUATIONS == STEP_EQUATIONS - 1:
                yield
            span = eqn.source
            line = span.line if span is not None and span.file == self.filename else None
            if eqn.text_start is None:
                continue
            end = eqn.text_end if eqn.text_end is not None else eqn.text_start
            ref = EqnRef(vr.variant, order, path, eqn.primitive, line, eqn.text_start, end,
                         len(path) - 1, eqn)
            refs.append(ref)
            # pre-order: nested equations come later and overwrite their parent's lines
            first, stop = max(0, ref.start), min(nlines, end + 1)
            if stop > first:
                owners[first:stop] = [ref] * (stop - first)
        self._refs[vr.variant] = refs
        self._owners[vr.variant] = owners
        yield
        by_source = self._by_source
        for n, owner in enumerate(owners):
            if owner is not None and owner.line is not None:
                by_source.setdefault(owner.line, {}).setdefault(vr.variant, []).append(n)
            if n % (4 * STEP_EQUATIONS) == 4 * STEP_EQUATIONS - 1:
                yield

    @property
    def variants(self) -> list[str]:
        return list(self._refs)

    def refs(self, variant: str) -> list[EqnRef]:
        """The located equations of a variant, in pre-order."""
        return self._refs.get(variant, [])

    def owner(self, variant: str, text_line: int) -> EqnRef | None:
        """The innermost equation printed on a 0-based line of the variant's jaxpr."""
        owners = self._owners.get(variant, [])
        return owners[text_line] if 0 <= text_line < len(owners) else None

    def owners(self, variant: str) -> list[EqnRef | None]:
        """The owning equation of every line of the variant's jaxpr text."""
        return self._owners.get(variant, [])

    def text_lines_for(self, source_line: int) -> dict[str, list[int]]:
        """Per variant, the jaxpr lines whose equation came from ``source_line``."""
        return self._by_source.get(source_line, {})

    def colour_index(self, source_line: int | None) -> int | None:
        """The palette slot of a source line (consecutive lines get different colours)."""
        return None if source_line is None else self._colour.get(source_line)

    def by_order(self, variant: str, order: int) -> EqnRef | None:
        """The equation at a pre-order position (as the device view names equations)."""
        for ref in self._refs.get(variant, []):
            if ref.order == order:
                return ref
        return None


def program_source_lines(text: str, filename: str) -> dict[int, int]:
    """The lines of a compiled program (HLO, StableHLO) that point into the user's file.

    Instructions keep their source location as ``source_file="NAME.py" source_line=N``
    (see ``jaxviz.core.hlo_program.readable``, which names the file by its last
    path part).

    Args:
        text: the program's text.
        filename: the file the user's code was traced under.

    Returns:
        0-based text line -> 1-based source line, for the lines in ``filename``.
    """
    name = filename.replace("\\", "/").rsplit("/", 1)[-1]
    lines: dict[int, int] = {}
    for n, line in enumerate(text.split("\n")):
        match = _LOCATION.search(line)
        if match is not None and match.group(1) in (name, filename):
            lines[n] = int(match.group(2))
    return lines
