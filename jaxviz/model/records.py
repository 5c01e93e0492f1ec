"""Records that cross the process boundary between the ui/cli and the JAX engine.

Every record is a plain dataclass of strings, numbers, lists, dicts and other
records. :func:`to_plain` turns one into JSON-compatible data tagged with its
type name and :data:`SCHEMA_VERSION`; :func:`from_plain` turns it back. A
reader refuses data written under another schema version instead of misreading
it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

# The codec's and the device records' names are re-exported: records is where
# every layer has always found them.
from jaxviz.model.call_code import CallCode
from jaxviz.model.codec import SCHEMA_VERSION as SCHEMA_VERSION
from jaxviz.model.codec import SchemaMismatch as SchemaMismatch
from jaxviz.model.codec import check_annotations
from jaxviz.model.codec import from_plain as from_plain
from jaxviz.model.codec import register as register
from jaxviz.model.codec import to_plain as to_plain
from jaxviz.model.devices import DeviceInfo as DeviceInfo
from jaxviz.model.devices import MeshInfo as MeshInfo
from jaxviz.model.notes import VariantNote
from jaxviz.model.program import ProgramCosts
from jaxviz.model.settings_table import default
from jaxviz.model.storyboard import ArrayTiles, Storyboard, Tile

#: The variants jaxviz knows, in the order the panes show them. ``as_written`` is the
#: function called exactly as its module defines it (its own jit, shardings,
#: shard_map, mesh); the others are built by jaxviz from the settings.
VARIANTS = ("as_written", "plain", "jit", "vmap", "pmap", "sharded", "shard_map")
#: How each variant is named on screen.
VARIANT_LABELS = {"as_written": "as written"}


def variant_label(variant: str) -> str:
    """The on-screen name of a variant (``as written`` for ``as_written``)."""
    return VARIANT_LABELS.get(variant, variant)


# --------------------------------------------------------------------------- #
# Requests
# --------------------------------------------------------------------------- #


@dataclass
class Target:
    """A function in a piece of source text.

    Attributes:
        source: the whole Python source text.
        filename: the name the source is compiled under, so tracebacks and
            equation source lines point into it (a real path, an example's
            path, or ``<editor:NAME.py>`` for unsaved editor text).
        function: the name of the function to trace.
    """

    source: str
    filename: str
    function: str


@dataclass
class TraceSettings:
    """How to call and parallelize the function: what the user types besides the code.

    Declared once: a gallery :class:`~jaxviz.model.gallery.Example`, a
    :class:`TraceRequest` and the window's arguments panel all hold exactly
    these fields. They are kept as the strings the user typed and parsed (and
    validated) by :mod:`jaxviz.model.specs`. What each means, its default, its
    flag and its field are in :data:`jaxviz.model.settings_table.TRACE_SETTINGS`.
    """

    args: str
    batched_args: str | None = default("batched_args")
    batch: int | None = default("batch")
    in_axes: str | None = default("in_axes")
    axis_name: str = default("axis_name")
    mesh: str | None = default("mesh")
    specs: str | None = default("specs")
    out_specs: str | None = default("out_specs")
    check_vma: bool = default("check_vma")
    axis_types: str | None = default("axis_types")
    out_axes: str | None = default("out_axes")
    static: str | None = default("static")
    devices_order: str | None = default("devices_order")

    @staticmethod
    def names() -> tuple[str, ...]:
        """The settings' field names, in declaration order."""
        return tuple(f.name for f in dataclasses.fields(TraceSettings))

    def settings(self) -> dict[str, Any]:
        """Just the trace settings of this record, by name (e.g. to build a request)."""
        return {name: getattr(self, name) for name in TraceSettings.names()}


@dataclass
class TraceRequest(TraceSettings):
    """What to trace: a target, its :class:`TraceSettings`, the variants and parts wanted."""

    target: Target = field(kw_only=True)
    variants: list[str] = field(default_factory=lambda: ["plain"])
    #: Which parts of each variant to produce: "jaxpr", "hlo" (StableHLO,
    #: compiled HLO and cost analysis), "layout", "story" (the storyboard read
    #: from the compiled program), "cost" (the storyboard and what each step and
    #: collective costs every device: jaxviz.model.program) and "value" (run it once).
    want: list[str] = field(default_factory=lambda: ["jaxpr", "hlo", "layout"])


# --------------------------------------------------------------------------- #
# Results
# --------------------------------------------------------------------------- #


@dataclass
class ErrorInfo:
    """A structured error: what went wrong and where.

    Attributes:
        kind: ``syntax``, ``load``, ``lookup``, ``spec``, ``option``,
            ``trace`` (a JAX or user exception while tracing), ``collective``,
            ``batch``, ``mesh``, ``timeout``, ``crash``, ``cancelled``, ``export``,
            ``size`` (too much to record: the stepper).
        message: one clear sentence (or a few lines) for the user.
        file, line, column, source_line: the user's source location, if any.
        field: the request field at fault (``args``, ``in_axes``, ``mesh``,
            ``specs``, ``batch`` ...), for bad input typed into a field.
        position: 0-based character offset into that field's text.
        details: the full traceback or JAX message, for ``--debug``.
    """

    kind: str
    message: str
    file: str | None = None
    line: int | None = None
    column: int | None = None
    source_line: str | None = None
    field: str | None = None
    position: int | None = None
    details: str | None = None
    variant: str | None = None


@dataclass
class VarInfo:
    """A jaxpr variable (or literal) with its abstract type.

    ``sharding`` is the sharding its type carries under an explicit mesh, per
    dimension as JAX prints it after the ``@`` (``X``, ``(X,Y)``; ``""`` for an
    unsharded dimension); empty when the type carries none.
    """

    name: str
    shape: list[int]
    dtype: str
    literal: bool = False
    sharding: list[str] = field(default_factory=list)

    @property
    def type_str(self) -> str:
        """``f32[4@X,8]``: the type as the jaxpr prints it."""
        dims = [str(d) if not self.sharding or not self.sharding[i] else
                f"{d}@{self.sharding[i]}" for i, d in enumerate(self.shape)]
        return f"{self.dtype}[{','.join(dims)}]"

    @property
    def sharded_axes(self) -> list[str]:
        """The dimensions' shardings that name mesh axes (``['X', '']`` -> ``['X']``)."""
        return [s for s in self.sharding if s]


@dataclass
class SourceSpan:
    """The user's source range an equation came from (1-based lines and columns)."""

    file: str
    line: int
    column: int
    end_line: int
    end_column: int
    function: str = ""


@dataclass
class Equation:
    """One jaxpr equation.

    ``text_start``/``text_end`` are the 0-based first and last lines of this
    equation in the variant's ``jaxpr_text`` (nested equations included), or
    ``None`` for equations of a shared sub-jaxpr printed elsewhere.
    """

    primitive: str
    params: dict[str, str]
    inputs: list[VarInfo]
    outputs: list[VarInfo]
    source: SourceSpan | None = None
    text_start: int | None = None
    text_end: int | None = None
    subjaxprs: list[SubJaxpr] = field(default_factory=list)


@dataclass
class SubJaxpr:
    """A jaxpr nested in an equation's parameters (``jaxpr=``, ``branches=`` ...)."""

    param: str
    invars: list[VarInfo]
    outvars: list[VarInfo]
    equations: list[Equation]


def walk_paths(equations: list[Equation], path: tuple[int, ...] = ()
               ) -> Iterator[tuple[tuple[int, ...], Equation]]:
    """Every equation with its index path, parents before their nested equations (pre-order).

    The one walk of nested equations: an equation's position in it is the index
    that names it elsewhere (:class:`jaxviz.views.panes.link_index.EqnRef`, the device
    view, :attr:`jaxviz.model.storyboard.Step.equations`, the jaxpr diff), and
    its path is its index at each nesting level, e.g. ``(0, 0, 3)``.
    """
    for i, eq in enumerate(equations):
        here = path + (i,)
        yield here, eq
        for sub in eq.subjaxprs:
            yield from walk_paths(sub.equations, here)


def walk_equations(equations: list[Equation]) -> Iterator[Equation]:
    """Every equation, parents before their nested equations (:func:`walk_paths`' order)."""
    for _path, eq in walk_paths(equations):
        yield eq


@dataclass
class ShardInfo:
    """The part of an array one device holds: per axis ``[start, stop)``."""

    device: int
    index: list[list[int]]


@dataclass
class ArrayLayout:
    """Where the pieces of one input or output array live: the one record of an array's
    blocks, per device (:attr:`shards`); the storyboard's
    :class:`~jaxviz.model.storyboard.ArrayTiles` is derived from it (:meth:`as_tiles`)."""

    name: str
    role: str  # "input" | "output"
    shape: list[int]
    dtype: str
    sharding: str
    spec: str | None
    replicated: bool
    shard_shape: list[int]
    shards: list[ShardInfo]

    def tiles(self) -> list[Tile]:
        """The distinct blocks, each with every device holding it, in index order."""
        holders: dict[tuple[tuple[int, ...], ...], list[int]] = {}
        for shard in self.shards:
            holders.setdefault(tuple(tuple(r) for r in shard.index), []).append(shard.device)
        return [Tile(index=[list(r) for r in key], devices=sorted(devices))
                for key, devices in sorted(holders.items())]

    def as_tiles(self, axis_names: list[list[str]], program_devices: list[int]) -> ArrayTiles:
        """This layout as the storyboard draws it: its distinct blocks.

        Args:
            axis_names: per array axis, the mesh axis names its sharding puts on it
                (empty when it names none; an axis that is cut then gets ``["?"]``).
            program_devices: the devices of the program (the array is replicated when
                it is held whole by every one of them).
        """
        tiles = self.tiles()
        devices = sorted(d for t in tiles for d in t.devices)
        cut = [len({t.index[k][0] for t in tiles}) > 1 for k in range(len(self.shape))]
        first = tiles[0].index if tiles else []
        return ArrayTiles(
            name=self.name, role=self.role, shape=list(self.shape), dtype=self.dtype,
            spec=self.spec if self.spec is not None else self.sharding,
            tile_shape=[b - a for a, b in first], tiles=tiles, devices=devices,
            replicated=len(tiles) == 1 and len(devices) > 1
            and devices == sorted(program_devices),
            split_by=[(axis_names[k] or ["?"]) if cut[k] else [] for k in range(len(self.shape))])




@dataclass
class VariantResult:
    """Everything about one traced variant; ``error`` set if it failed.

    ``call`` is the call as one line of Python (the panes show it); ``code``
    holds it with the imports, arguments and mesh it needs to run as written;
    ``notes`` say what the jaxpr and the value do not (see :mod:`jaxviz.model.notes`).
    """

    variant: str
    call: str = ""
    code: CallCode | None = None
    notes: list[VariantNote] = field(default_factory=list)
    error: ErrorInfo | None = None
    jaxpr_text: str = ""
    invars: list[VarInfo] = field(default_factory=list)
    outvars: list[VarInfo] = field(default_factory=list)
    equations: list[Equation] = field(default_factory=list)
    stablehlo: str = ""
    hlo: str = ""
    cost: dict[str, float] = field(default_factory=dict)
    mesh: MeshInfo | None = None
    arrays: list[ArrayLayout] = field(default_factory=list)
    collectives: list[str] = field(default_factory=list)
    #: Collective ops in the compiled HLO (the SPMD partitioner may insert them).
    hlo_collectives: list[str] = field(default_factory=list)
    #: ``repr`` of the output of one real call, when asked for ("value").
    value: str = ""
    #: How that call's arguments were made (the recipe ``jaxviz step`` uses, seed 0).
    value_args: str = ""
    #: What every device holds and runs, read from the compiled program ("story").
    storyboard: Storyboard | None = None
    #: What it costs every device: collectives, FLOPs, bytes, memory ("cost").
    program: ProgramCosts | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


@dataclass
class TraceResult:
    """The answer to a :class:`TraceRequest`."""

    function: str
    filename: str
    devices: list[DeviceInfo] = field(default_factory=list)
    simulated: bool = True
    variants: list[VariantResult] = field(default_factory=list)
    error: ErrorInfo | None = None
    stdout: str = ""
    stderr: str = ""

    def variant(self, name: str) -> VariantResult:
        for v in self.variants:
            if v.variant == name:
                return v
        raise KeyError(name)


_REGISTERED = (Target, TraceRequest, ErrorInfo, VarInfo, SourceSpan, Equation, SubJaxpr,
               ShardInfo, ArrayLayout, VariantResult, TraceResult)
for _record in _REGISTERED:
    register(_record)
check_annotations(*_REGISTERED)
