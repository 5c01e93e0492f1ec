"""Records that cross the process boundary between the ui/cli and the JAX engine.

Every record is a plain dataclass of strings, numbers, lists, dicts and other
records. :func:`to_plain` turns one into JSON-compatible data tagged with its
type name and :data:`SCHEMA_VERSION`; :func:`from_plain` turns it back. A
reader refuses data written under another schema version instead of misreading
it.
"""

from __future__ import annotations

import dataclasses
import typing
from dataclasses import dataclass, field
from typing import Any

#: Bumped whenever a record gains, loses or changes a field.
SCHEMA_VERSION = 1

#: The variants jaxviz knows, in the order the panes show them.
VARIANTS = ("plain", "jit", "vmap", "pmap", "sharded", "shard_map")


class SchemaMismatch(ValueError):
    """Data was written by a jaxviz with another record schema."""


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
class TraceRequest:
    """What to trace: a target, its argument specs and the parallel settings.

    The parallel settings are kept as the strings the user typed; they are
    parsed (and validated) by :mod:`jaxviz.model.specs`.
    """

    target: Target
    args: str
    #: The already-batched arguments for vmap/pmap/sharded/shard_map (e.g.
    #: ``jnp.arange(8.)``); by default they are built from ``args`` by adding a
    #: batch axis of size ``batch`` per ``in_axes``.
    batched_args: str | None = None
    variants: list[str] = field(default_factory=lambda: ["plain"])
    batch: int | None = None
    in_axes: str | None = None
    axis_name: str = "i"
    mesh: str | None = None
    specs: str | None = None
    out_specs: str | None = None
    #: Which parts of each variant to produce: "jaxpr", "hlo" (StableHLO,
    #: compiled HLO and cost analysis), "layout" and "value" (run it once).
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
    """A jaxpr variable (or literal) with its abstract type."""

    name: str
    shape: list[int]
    dtype: str
    literal: bool = False

    @property
    def type_str(self) -> str:
        return f"{self.dtype}[{','.join(str(d) for d in self.shape)}]"


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


@dataclass
class ShardInfo:
    """The part of an array one device holds: per axis ``[start, stop)``."""

    device: int
    index: list[list[int]]


@dataclass
class ArrayLayout:
    """Where the pieces of one input or output array live."""

    name: str
    role: str  # "input" | "output"
    shape: list[int]
    dtype: str
    sharding: str
    spec: str | None
    replicated: bool
    shard_shape: list[int]
    shards: list[ShardInfo]


@dataclass
class MeshInfo:
    """A device mesh: axis names and sizes, device ids in mesh (row-major) order."""

    axis_names: list[str]
    axis_sizes: list[int]
    device_ids: list[int]


@dataclass
class DeviceInfo:
    id: int
    platform: str
    kind: str
    process_index: int


@dataclass
class VariantResult:
    """Everything about one traced variant; ``error`` set if it failed."""

    variant: str
    call: str = ""
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


# --------------------------------------------------------------------------- #
# Plain-data codec
# --------------------------------------------------------------------------- #

_REGISTRY: dict[str, type] = {}


def register(cls: type) -> type:
    """Make a dataclass known to :func:`from_plain` (usable as a decorator)."""
    _REGISTRY[cls.__name__] = cls
    return cls


for _cls in (Target, TraceRequest, ErrorInfo, VarInfo, SourceSpan, Equation, SubJaxpr,
             ShardInfo, ArrayLayout, MeshInfo, DeviceInfo, VariantResult, TraceResult):
    register(_cls)


def _encode(obj: Any) -> Any:
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        out = {"__type__": type(obj).__name__}
        for f in dataclasses.fields(obj):
            out[f.name] = _encode(getattr(obj, f.name))
        return out
    if isinstance(obj, (list, tuple)):
        return [_encode(x) for x in obj]
    if isinstance(obj, dict):
        return {str(k): _encode(v) for k, v in obj.items()}
    if obj is None or isinstance(obj, (str, int, float, bool)):
        return obj
    raise TypeError(f"cannot encode {type(obj).__name__} as plain data")


def _decode(data: Any) -> Any:
    if isinstance(data, dict):
        name = data.get("__type__")
        if name is None:
            return {k: _decode(v) for k, v in data.items()}
        cls = _REGISTRY.get(name)
        if cls is None:
            raise SchemaMismatch(f"unknown record type {name!r}")
        names = {f.name for f in dataclasses.fields(cls)}
        kwargs = {k: _decode(v) for k, v in data.items() if k in names}
        return cls(**kwargs)
    if isinstance(data, list):
        return [_decode(x) for x in data]
    return data


def to_plain(record: Any) -> dict:
    """Encode a record as JSON-compatible data, tagged with the schema version."""
    return {"schema": SCHEMA_VERSION, "record": _encode(record)}


def from_plain(data: dict) -> Any:
    """Decode data made by :func:`to_plain`.

    Raises:
        SchemaMismatch: the data was written under another schema version.
    """
    version = data.get("schema") if isinstance(data, dict) else None
    if version != SCHEMA_VERSION:
        raise SchemaMismatch(
            f"record schema {version!r} does not match this jaxviz's schema "
            f"{SCHEMA_VERSION}: it was written by another jaxviz version")
    return _decode(data["record"])


# Resolve the string annotations once so typos in field types fail at import.
for _cls in list(_REGISTRY.values()):
    typing.get_type_hints(_cls)
