"""Timing records: what to measure, and every measured call (no JAX, no Qt).

A :class:`TimingRequest` says which function to time (a
:class:`~jaxviz.model.TraceRequest`), which timing variants, how many runs, the
pipeline depth, a size sweep and whether CPU dispatch is asynchronous. The
engine answers with a stream of records -- :class:`TimingHeader` first, then
per variant a :class:`VariantInfo`, a :class:`FirstCall` and many
:class:`CallRecord`, plus :class:`PipelineInfo`, :class:`TimingStatus` and
non-fatal :class:`~jaxviz.model.ErrorInfo` -- and finally the complete
:class:`TimingRun`. :meth:`TimingRun.add` folds a streamed record into a run,
so a view can fill its plots while records arrive.

Times are integer nanoseconds of a monotonic clock (``time.perf_counter_ns``).
A call's ``t_start_ns``/``t_dispatch_ns``/``t_complete_ns`` are relative to its
run's origin ``t0_ns``, itself relative to the start of the session (the
header), so records can be placed on one timeline.

Example:
    >>> name, sizes = parse_sweep("n=256,512")
    >>> name, sizes
    ('n', [256, 512])
    >>> sweep_args_for("f32[n,n], f32[n,n]", "n", 256)
    'f32[256,256], f32[256,256]'
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from jaxviz.model.call_code import CallCode
from jaxviz.model.limits import SWEEP_SIZE
from jaxviz.model.notes import VariantNote
from jaxviz.model.records import DeviceInfo, ErrorInfo, TraceRequest, register
from jaxviz.model.specs import SpecError

#: Timing variants, in the order plots show them, with their plot labels.
TIMING_VARIANTS: dict[str, str] = {
    "numpy": "NumPy",
    "op-by-op": "op-by-op (no jit)",
    "jit": "jit",
    "jit-sync": "jit (async dispatch off)",
    "loop": "Python loop of jit",
    "vmap": "vmap (no jit)",
    "jit-vmap": "jit(vmap)",
    "pmap": "pmap",
    "sharded": "jit + NamedSharding",
    "shard_map": "shard_map",
    "as_written": "as written",
}

#: Names users may type for a timing variant (the trace variants' names).
VARIANT_ALIASES = {"plain": "op-by-op", "op_by_op": "op-by-op", "jit_vmap": "jit-vmap",
                   "jit(vmap)": "jit-vmap", "numpy-baseline": "numpy", "jit_sync": "jit-sync",
                   "as written": "as_written", "as-written": "as_written"}

#: Call phases of :class:`CallRecord`.
PHASES = ("warmup", "steady", "pipelined", "sweep")

DEFAULT_VARIANTS = ["jit"]
#: Measured calls are streamed at least this often (and after every slower call), so a
#: view plots them as they come.
FLUSH_NS = 50_000_000


def variant_label(variant: str) -> str:
    """The label plots and captions use for a timing variant."""
    return TIMING_VARIANTS.get(variant, variant)


def normalize_variant(name: str) -> str:
    """A timing variant's canonical name (``plain`` -> ``op-by-op``)."""
    name = name.strip()
    return VARIANT_ALIASES.get(name, name)


# --------------------------------------------------------------------------- #
# Request
# --------------------------------------------------------------------------- #


@dataclass
class TimingOptions:
    """How to time a function: the one record of timing options and their defaults.

    A :class:`TimingRequest` holds them, the timing view's controls hold them
    (:class:`~jaxviz.views.timing.options.RunOptions`) and ``jaxviz time`` takes its
    flags' defaults from :data:`TIMING_DEFAULTS`.

    Attributes:
        variants: timing variants (keys of :data:`TIMING_VARIANTS`).
        runs: measured calls per variant, after ``warmup`` unrecorded-in-stats calls.
        pipeline: calls dispatched back to back without blocking (0: none).
        pipeline_variant: the variant pipelined (default: the first JAX one).
        sweep: ``"n=256,512,1024"``: a name and the sizes it takes.
        sweep_args: the argument spec with the sweep name in it (default ``args``).
        sweep_variants: variants measured at each size (default: the pipelined one).
        async_dispatch: CPU asynchronous dispatch (``jax_cpu_enable_async_dispatch``).
            JAX reads it when the CPU backend starts: when the engine already
            runs with the other setting the core measures in a child process.
        baseline: the NumPy baseline function's name in the source (``numpy``).
        per_device: poll when each device's shard of multi-device outputs is ready.
    """

    variants: list[str] = field(default_factory=lambda: list(DEFAULT_VARIANTS))
    runs: int = 20
    warmup: int = 3
    pipeline: int = 8
    pipeline_variant: str | None = None
    sweep: str | None = None
    sweep_args: str | None = None
    sweep_variants: list[str] = field(default_factory=list)
    async_dispatch: bool = True
    baseline: str | None = None
    per_device: bool = True


#: The timing options' defaults.
TIMING_DEFAULTS = TimingOptions()


@register
@dataclass
class TimingRequest(TimingOptions):
    """What to time: the function (``trace``: its argument specs and parallel settings; its
    ``variants`` and ``want`` are not used) and the :class:`TimingOptions`."""

    trace: TraceRequest = field(kw_only=True)


def parse_sweep(text: str) -> tuple[str, list[int]]:
    """Parse ``"n=256,512,1024"`` into ``("n", [256, 512, 1024])``.

    Raises:
        SpecError: with the position of the fault.
    """
    name, eq, rest = text.partition("=")
    if not eq:
        raise SpecError("a sweep is NAME=SIZE,SIZE,... e.g. n=256,512,1024", text, len(text))
    if not name.strip().isidentifier():
        raise SpecError(f"the sweep name {name.strip()!r} is not an identifier", text, 0)
    sizes, pos = [], len(name) + 1
    for part in rest.split(","):
        stripped = part.strip()
        where = pos + len(part) - len(part.lstrip())
        if not re.fullmatch(r"\d+", stripped):
            raise SpecError(f"sweep size {stripped!r} is not a whole number", text, where)
        if not SWEEP_SIZE.contains(int(stripped)):
            raise SpecError(f"sweep size {stripped} is out of range: {SWEEP_SIZE.what} is "
                            f"{SWEEP_SIZE.describe()}", text, where)
        sizes.append(int(stripped))
        pos += len(part) + 1
    return name.strip(), sizes


def sweep_args_for(spec: str, name: str, size: int) -> str:
    """The argument spec with every whole-word ``name`` replaced by ``size``."""
    return re.sub(rf"(?<![\w.]){re.escape(name)}(?!\w)", str(size), spec)


def validate(req: TimingRequest) -> list[ErrorInfo]:
    """Problems with a request's timing settings (empty when it is fine)."""
    errors = []

    def bad(field_name: str, message: str, position: int | None = None) -> None:
        errors.append(ErrorInfo(kind="option", field=field_name, message=message,
                                position=position))

    if req.runs < 1:
        bad("runs", f"the number of runs must be at least 1, not {req.runs} "
                    f"(e.g. --runs 20)")
    if req.warmup < 0:
        bad("warmup", f"the number of warm-up calls cannot be negative ({req.warmup})")
    if req.pipeline < 0:
        bad("pipeline", f"the pipeline depth cannot be negative ({req.pipeline})")
    if not req.variants:
        bad("variants", "say which variants to time, e.g. --variants jit,vmap")
    for name in [*req.variants, *req.sweep_variants,
                 *([req.pipeline_variant] if req.pipeline_variant else [])]:
        if normalize_variant(name) not in TIMING_VARIANTS:
            bad("variants", f"unknown timing variant {name!r}; choose from "
                            f"{', '.join(TIMING_VARIANTS)}")
    if req.sweep is not None and not req.sweep.strip():
        bad("sweep", "say which sizes to sweep, e.g. n=256,512,1024 (or turn the sweep off)")
    elif req.sweep:
        try:
            sweep_name, _ = parse_sweep(req.sweep)
        except SpecError as exc:
            bad("sweep", f"bad sweep: {exc.pretty()}", exc.position)
        else:
            spec = req.sweep_args or req.trace.args
            if sweep_args_for(spec, sweep_name, 0) == spec:
                bad("sweep_args", f"the sweep name {sweep_name!r} does not appear in the "
                                  f"argument spec {spec!r}: give the spec with it, e.g. "
                                  f"--sweep-args \"f32[{sweep_name},{sweep_name}]\"")
    return errors


# --------------------------------------------------------------------------- #
# Streamed records
# --------------------------------------------------------------------------- #


@register
@dataclass
class TimingHeader:
    """Where, when and what was measured, so a file can be read years later."""

    jaxviz: str
    jax: str
    jaxlib: str
    backend: str
    device_kind: str
    device_count: int
    simulated: bool
    host_cpu: str
    python: str
    os: str
    date: str
    clock: str
    function: str
    filename: str
    source: str
    function_source: str
    args: str
    batched_args: str | None = None
    settings: dict[str, str] = field(default_factory=dict)
    devices: list[DeviceInfo] = field(default_factory=list)
    async_dispatch: bool = True
    poll_interval_us: float = 0.0
    notes: list[str] = field(default_factory=list)


@register
@dataclass
class VariantInfo:
    """How one timing variant is called.

    Attributes:
        call: the Python text of the call.
        args: the argument types, e.g. ``f32[1000,1000], f32[1000,1000]``.
        devices: ids of the devices the output lives on.
        notes: how it is measured, and the trace variant's notes (where it
            computes something else than the other variants).
        code: the call with its imports, arguments and mesh ("Copy as code").
    """

    variant: str
    call: str
    args: str
    devices: list[int] = field(default_factory=list)
    notes: list[VariantNote] = field(default_factory=list)
    code: CallCode | None = None

    @property
    def label(self) -> str:
        return variant_label(self.variant)


@register
@dataclass
class DeviceReady:
    """When one device's shard of a call's output was first seen ready (polled)."""

    device: int
    t_ready_ns: int


@register
@dataclass
class CallRecord:
    """One call: when it was issued, when it returned, when its result was ready."""

    variant: str
    phase: str
    run: int
    t0_ns: int
    t_start_ns: int
    t_dispatch_ns: int
    t_complete_ns: int
    size: int | None = None
    devices: list[DeviceReady] = field(default_factory=list)

    @property
    def dispatch_ns(self) -> int:
        """How long the call took to return."""
        return self.t_dispatch_ns - self.t_start_ns

    @property
    def complete_ns(self) -> int:
        """How long until the result was ready, from issuing the call."""
        return self.t_complete_ns - self.t_start_ns


@register
@dataclass
class FirstCall:
    """The first call of a variant, in phases (JAX's ahead-of-time stages).

    ``trace_ns``/``lower_ns``/``compile_ns`` are ``None`` for variants that are
    not compiled as a whole (NumPy, op-by-op, vmap, the loop); ``trace_ns`` is
    ``None`` for ``pmap``, whose lowering includes tracing. ``execute_ns`` runs
    from the start of the first execution until its result was ready
    (``dispatch_ns`` until it returned). The phases add up to ``total_ns``.
    ``implicit_ns`` is a plain first call ``f(*args)`` after clearing JAX's
    caches: what a user's first call costs, all phases in one.
    ``compiled_in_call``: the variant is JAX but not compiled as a whole
    (op-by-op, vmap, the loop), so its first execution also traces and
    compiles each operation as it runs; the phase is then ``first call``,
    not ``execute`` (the two cannot be told apart from outside).
    """

    variant: str
    t0_ns: int
    execute_ns: int
    dispatch_ns: int
    total_ns: int
    trace_ns: int | None = None
    lower_ns: int | None = None
    compile_ns: int | None = None
    implicit_ns: int | None = None
    compiled_in_call: bool = False

    def phases(self) -> list[tuple[str, int]]:
        """``(name, ns)`` of the phases that were measured, in order."""
        if self.compiled_in_call:
            return [("first call", self.execute_ns)]
        named = [("trace", self.trace_ns), ("lower", self.lower_ns),
                 ("compile", self.compile_ns), ("execute", self.execute_ns)]
        return [(n, v) for n, v in named if v is not None]


@register
@dataclass
class PipelineInfo:
    """K calls of one variant dispatched back to back, then awaited in order.

    ``chained``: each call took the previous call's output as its first argument.
    """

    variant: str
    calls: int
    chained: bool
    note: str = ""


@register
@dataclass
class TimingStatus:
    """Progress: what is running (``"pmap: call 14/50"``) and how far the run is."""

    message: str
    done: int
    total: int


@register
@dataclass
class TimingRun:
    """A complete (or partial) timing run: the request and everything measured.

    ``errors`` are problems that skipped a variant or a sweep size; ``error``
    is a fatal one (nothing could be measured after it). ``complete`` is False
    for a run that was stopped or is still streaming.
    """

    request: TimingRequest
    header: TimingHeader | None = None
    variants: list[VariantInfo] = field(default_factory=list)
    first_calls: list[FirstCall] = field(default_factory=list)
    calls: list[CallRecord] = field(default_factory=list)
    pipeline: PipelineInfo | None = None
    errors: list[ErrorInfo] = field(default_factory=list)
    error: ErrorInfo | None = None
    status: TimingStatus | None = None
    complete: bool = False

    def add(self, record: Any) -> None:
        """Fold one streamed record into the run.

        Raises:
            TypeError: not a timing record.
        """
        if isinstance(record, CallRecord):
            self.calls.append(record)
        elif isinstance(record, FirstCall):
            self.first_calls.append(record)
        elif isinstance(record, VariantInfo):
            self.variants.append(record)
        elif isinstance(record, TimingHeader):
            self.header = record
        elif isinstance(record, PipelineInfo):
            self.pipeline = record
        elif isinstance(record, TimingStatus):
            self.status = record
        elif isinstance(record, ErrorInfo):
            self.errors.append(record)
        else:
            raise TypeError(f"not a timing record: {type(record).__name__}")

    def calls_of(self, variant: str | None = None, phase: str | None = None) -> list[CallRecord]:
        """The calls of one variant and/or phase, in the order they were measured."""
        return [c for c in self.calls
                if (variant is None or c.variant == variant)
                and (phase is None or c.phase == phase)]

    def variant_names(self) -> list[str]:
        """Variants with records, in request order (then any others)."""
        seen = [v.variant for v in self.variants]
        seen += [c.variant for c in self.calls if c.variant not in seen]
        order = {normalize_variant(v): i for i, v in enumerate(self.request.variants)}
        return sorted(dict.fromkeys(seen), key=lambda v: order.get(v, len(order)))

    def info(self, variant: str) -> VariantInfo | None:
        for v in self.variants:
            if v.variant == variant:
                return v
        return None

    def first_call(self, variant: str) -> FirstCall | None:
        for f in self.first_calls:
            if f.variant == variant:
                return f
        return None
