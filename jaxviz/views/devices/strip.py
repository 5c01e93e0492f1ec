"""The strip of a whole program: every phase a mark, to see its shape and jump anywhere (no Qt).

Each phase is one slot of equal width in program order, so a mark's place is
its place in the program. Its colour says what it does
(:data:`jaxviz.views.palette.STRIP_COLOURS`: compute, each collective kind,
the phases about the arrays) and, for a collective, its height how much it
moves: the bytes per device of the larger of what goes in and what comes out
(an all-gather's gathered result, a reduce-scatter's whole operand), computed
from the storyboard's per-device types, on a logarithmic scale from the
smallest to the largest collective of the program. Compute and array phases
are short marks of fixed height. Under the marks, bands name the overview's
groups (:mod:`jaxviz.views.devices.overview`) of the first one or two levels.

Example:
    >>> strip = strip_layout(scene, rows, width=1200)            # doctest: +SKIP
    >>> strip.phase_at(600.0)                                    # doctest: +SKIP
    331
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from functools import lru_cache

from jaxviz.model.storyboard import Step
from jaxviz.views.devices.overview import OverviewRow
from jaxviz.views.devices.scene import Phase, Scene

#: Bytes per element of the dtypes the storyboard's types name.
DTYPE_BYTES = {"pred": 1, "s4": 1, "u4": 1, "s8": 1, "u8": 1, "f8e4m3fn": 1, "f8e5m2": 1,
               "bf16": 2, "f16": 2, "s16": 2, "u16": 2, "f32": 4, "s32": 4, "u32": 4,
               "f64": 8, "s64": 8, "u64": 8, "c64": 8, "c128": 16}
_TYPE = re.compile(r"^([a-z0-9]+)\[([\d,]*)\]$")

#: Heights of the marks, as fractions of the strip's mark area.
COMPUTE_HEIGHT = 0.22
LEAST_COLLECTIVE_HEIGHT = 0.4


@lru_cache(maxsize=4096)
def type_bytes(type_str: str) -> int:
    """``f32[4,16]`` -> 256 (0 for a type it cannot read, such as a token). Remembered: a
    train step's 600 phases name a few dozen types, read again at every width of the strip."""
    m = _TYPE.match(type_str.strip())
    if m is None or m.group(1) not in DTYPE_BYTES:
        return 0
    n = 1
    for d in m.group(2).split(","):
        if d:
            n *= int(d)
    return n * DTYPE_BYTES[m.group(1)]


def moved_bytes(step: Step) -> int:
    """Bytes per device a collective step moves: the larger of its operands and results."""
    if step.collective is None:
        return 0
    return max(sum(map(type_bytes, step.input_shapes)),
               sum(map(type_bytes, step.output_shapes)))


def mark_kind(phase: Phase) -> str:
    """The strip colour key of a phase: ``compute``, the collective's kind, or ``arrays``."""
    if phase.step is not None and phase.step.collective is not None:
        return phase.step.collective.kind
    if phase.step is not None or phase.kind in ("compute", "vectorized", "loop"):
        return "compute"
    return "arrays"


@dataclass
class StripMark:
    """One phase's mark: ``x`` and ``width`` in pixels, ``height`` as a fraction (0..1)."""

    phase: int
    kind: str
    x: float
    width: float
    height: float
    bytes: int


@dataclass
class StripBand:
    """An overview row under the marks: its span in pixels and its title."""

    row: int
    title: str
    x0: float
    x1: float
    level: int


@dataclass
class Strip:
    """Where every mark and band of the strip goes, for a strip ``width`` pixels wide."""

    width: float
    slot: float
    marks: list[StripMark] = field(default_factory=list)
    bands: list[StripBand] = field(default_factory=list)

    def phase_at(self, x: float) -> int | None:
        """The phase whose slot holds ``x`` (clamped to the first and last)."""
        if not self.marks:
            return None
        k = int(x // self.slot) if self.slot > 0 else 0
        return self.marks[min(max(k, 0), len(self.marks) - 1)].phase

    def x_of(self, phase: int) -> float:
        """The centre of a phase's slot."""
        return (phase + 0.5) * self.slot

    def kinds(self) -> list[str]:
        """The mark kinds present, in the palette's order (for a legend)."""
        present = {m.kind for m in self.marks}
        order = ["compute", "all-gather", "all-reduce", "reduce-scatter", "all-to-all",
                 "collective-permute", "collective-broadcast", "ragged-all-to-all", "arrays"]
        return [k for k in order if k in present]


def strip_layout(scene: Scene, rows: list[OverviewRow], width: float,
                 band_levels: int = 2) -> Strip:
    """The strip of ``scene``'s phases across ``width`` pixels, with bands of ``rows``.

    Args:
        scene: the device view's scene.
        rows: its overview (:func:`~jaxviz.views.devices.overview.build_overview`).
        width: the strip's width in pixels.
        band_levels: how many levels of groups get a band (1: the parts only).
    """
    phases = scene.phases
    slot = width / max(len(phases), 1)
    moved = [moved_bytes(p.step) if p.step is not None else 0 for p in phases]
    sizes = [b for b in moved if b > 0]
    low, high = (min(sizes), max(sizes)) if sizes else (1, 1)
    strip = Strip(width, slot)
    span = math.log(high) - math.log(low) if high > low else 0.0
    for k, phase in enumerate(phases):
        kind = mark_kind(phase)
        if moved[k] > 0:
            frac = (math.log(moved[k]) - math.log(low)) / span if span else 1.0
            height = LEAST_COLLECTIVE_HEIGHT + (1 - LEAST_COLLECTIVE_HEIGHT) * frac
        elif kind in STRIP_COLLECTIVES:
            height = LEAST_COLLECTIVE_HEIGHT
        else:
            height = COMPUTE_HEIGHT
        strip.marks.append(StripMark(k, kind, k * slot, slot, height, moved[k]))
    for r, row in enumerate(rows):
        level = row.depth if row.kind != "arrays" else 1
        if 1 <= level <= band_levels:
            strip.bands.append(StripBand(r, row.title, row.first * slot, (row.last + 1) * slot,
                                         level))
    return strip


#: Mark kinds that are collectives.
STRIP_COLLECTIVES = frozenset({"all-gather", "all-reduce", "reduce-scatter", "all-to-all",
                               "collective-permute", "collective-broadcast",
                               "ragged-all-to-all"})
