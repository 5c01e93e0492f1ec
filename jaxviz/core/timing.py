"""Timing runs: dispatch versus completion, first-call stages, pipelines, sweeps.

:func:`measure_timings` answers a :class:`~jaxviz.model.timing.TimingRequest`
with a :class:`~jaxviz.model.timing.TimingRun`, calling ``progress(record)``
for every record as soon as it is measured (header, variant info, first
call, each call, pipeline info, status, non-fatal errors), so a view can plot
while the run goes on. Per variant: the first call in stages, ``warmup``
calls, then ``runs`` measured calls; then ``pipeline`` calls of one variant
dispatched back to back; then the size sweep.

Asynchronous CPU dispatch (``jax_cpu_enable_async_dispatch``) is read by JAX
when the CPU backend starts; changing it later is silently ignored. So when the
request's ``async_dispatch`` differs from this process's setting and the
backend is already running, the run (or, for the ``jit-sync`` variant, just
that variant) is measured in a fresh child process started with the setting.
Starting processes is the engine's job: the caller passes ``in_child``
(:func:`jaxviz.worker.timing_child.run_in_child`, which the engine server does);
without it such a run ends with an error saying so.
"""

from __future__ import annotations

import datetime as _dt
import inspect
import platform
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import jax

import jaxviz
from jaxviz.core import devices, jax_internals, meshes, timing_calls
from jaxviz.core.timing_calls import Measured, clock
from jaxviz.core.timing_variants import Timed, arg_types, build, uses_batched
from jaxviz.core.trace import Loaded, explain, load
from jaxviz.model import ErrorInfo
from jaxviz.model.errors import UserError
from jaxviz.model.notes import VariantNote
from jaxviz.model.timing import (
    FLUSH_NS,
    CallRecord,
    FirstCall,
    PipelineInfo,
    TimingHeader,
    TimingRequest,
    TimingRun,
    TimingStatus,
    VariantInfo,
    normalize_variant,
    parse_sweep,
    sweep_args_for,
    validate,
)

ASYNC_FLAG = "jax_cpu_enable_async_dispatch"
_STATUS_EVERY_NS = 100_000_000

#: Default pipelined variant: multi-device ones first (their timeline has device lanes).
PIPELINE_ORDER = ("pmap", "sharded", "shard_map", "jit", "jit-vmap")
#: Measures a request in a fresh process: ``in_child(request, progress, origin_ns) -> run``.
InChild = Callable[[TimingRequest, Callable[[Any], None], int | None], TimingRun]
#: Why a run that needs another async-dispatch setting was not measured.
NO_CHILD = ("measuring with CPU async dispatch {} needs a fresh JAX process, and this "
            "process cannot start one: measure through the JAX engine (jaxviz time, the "
            "timing view)")

#: Default swept variant.
SWEEP_ORDER = ("jit", "jit-vmap", "sharded", "pmap", "shard_map")


#: Why async dispatch cannot be turned off on these devices.
NOT_ON_CPU = ("async dispatch can be turned off only on CPU devices (JAX's "
              "jax_cpu_enable_async_dispatch); on {platform} devices JAX always dispatches "
              "asynchronously, so there is no 'async dispatch off' to measure")


def device_platform() -> str:
    """The platform of the devices the calls run on (``cpu``, ``gpu``, ``tpu``)."""
    return str(devices.active_devices()[0].platform)


def sync_unavailable() -> ErrorInfo | None:
    """Why this process's devices cannot run with async dispatch off (None: they can)."""
    here = device_platform()
    return None if here == "cpu" else ErrorInfo("option", NOT_ON_CPU.format(platform=here))


def async_dispatch_setting() -> bool:
    """This process's CPU async dispatch setting."""
    return bool(jax.config.read(ASYNC_FLAG))


def ensure_async_dispatch(wanted: bool) -> bool:
    """Make this process dispatch as asked if it still can; False if it cannot."""
    if async_dispatch_setting() == wanted:
        return True
    if jax_internals.backends_started():
        return False
    jax.config.update(ASYNC_FLAG, wanted)
    return True


def measure_timings(req: TimingRequest, progress=None, origin_ns: int | None = None,
                    in_child: InChild | None = None) -> TimingRun:
    """Measure a timing request; see the module docstring.

    Args:
        req: what to measure.
        progress: called with every record as it is measured.
        origin_ns: clock reading all record times are relative to (default: now).
        in_child: measures in a fresh process started with the request's
            async-dispatch setting, when this process cannot switch it.

    Returns:
        The run, ``complete`` unless a fatal ``error`` stopped it.
    """
    progress = progress or (lambda _record: None)
    errors = validate(req)
    if errors:
        run = TimingRun(request=req, error=errors[0], errors=errors[1:])
        return run
    # Off is refused on accelerators: asked once JAX runs (a fresh process first sets it)
    if not req.async_dispatch and jax_internals.backends_started() and \
            (refused := sync_unavailable()) is not None:
        return TimingRun(request=req, error=refused)
    if not ensure_async_dispatch(req.async_dispatch):
        if in_child is None:
            state = "on" if req.async_dispatch else "off"
            return TimingRun(request=req, error=ErrorInfo("engine", NO_CHILD.format(state)))
        return in_child(req, progress, origin_ns)
    if not req.async_dispatch and (refused := sync_unavailable()) is not None:
        return TimingRun(request=req, error=refused)
    session = _Session(req, progress, clock() if origin_ns is None else origin_ns, in_child)
    session.go()
    return session.run


class _Session:
    """One timing run in this process."""

    def __init__(self, req: TimingRequest, progress, origin: int,
                 run_in_child: InChild | None = None):
        self.req = req
        self.run_in_child = run_in_child
        self.progress = progress
        self.origin = origin
        self.run = TimingRun(request=req)
        self.done = 0
        self.total = 0
        self._last_status = 0
        self.variants = list(dict.fromkeys(normalize_variant(v) for v in req.variants))
        self.loaded: Loaded | None = None
        self.failed: set[str] = set()

    # -- streaming ----------------------------------------------------------- #

    def emit(self, record: Any) -> None:
        self.run.add(record)
        self.progress(record)

    def status(self, message: str, force: bool = False) -> None:
        now = clock()
        if force or now - self._last_status > _STATUS_EVERY_NS:
            self._last_status = now
            self.emit(TimingStatus(message=message, done=self.done, total=self.total))

    def fail(self, info: ErrorInfo, variant: str | None = None) -> None:
        if variant and not info.variant:
            info.variant = variant
        if info.variant:
            self.failed.add(info.variant)
        self.emit(info)

    def record(self, variant: str, phase: str, run: int, m: Measured,
               size: int | None = None) -> None:
        self.emit(CallRecord(variant=variant, phase=phase, run=run, t0_ns=m.t0 - self.origin,
                             t_start_ns=m.start, t_dispatch_ns=m.dispatch,
                             t_complete_ns=m.complete, size=size, devices=m.devices))

    # -- the run ------------------------------------------------------------- #

    def go(self) -> None:
        req = self.req
        try:
            self.loaded = load(req.trace)
        except UserError as exc:
            self.run.error = exc.info
            return
        sweep_sizes = parse_sweep(req.sweep)[1] if req.sweep else []
        self.sweep_variants = [normalize_variant(v) for v in req.sweep_variants] or \
            ([self.main_variant(SWEEP_ORDER)] if sweep_sizes else [])
        self.total = (len(self.variants) * (1 + req.warmup + req.runs) + req.pipeline
                      + len(sweep_sizes) * len(self.sweep_variants)
                      * (max(req.warmup, 1) + req.runs))
        self.emit(self.header())
        batched_numpy = uses_batched(self.loaded, self.variants)
        for variant in self.variants:
            if variant == "jit-sync" and (refused := sync_unavailable()) is not None:
                self.fail(refused, variant)
                continue
            if variant == "jit-sync" and async_dispatch_setting():
                self.in_child(variant)
                continue
            timed = self.build(self.loaded, variant, batched_numpy)
            if timed is not None:
                self.measure_variant(timed)
        if req.pipeline:
            self.measure_pipeline(batched_numpy)
        for size in sweep_sizes:
            self.measure_size(size, batched_numpy)
        if self.run.calls or self.run.first_calls:
            self.done = self.total
            self.status("done", force=True)
        else:  # every variant failed: their errors were sent; no "done, 100%" after them
            self.status("nothing was measured", force=True)
        self.run.complete = True

    def main_variant(self, order: tuple[str, ...] = PIPELINE_ORDER) -> str:
        """The pipelined (or swept) variant by default: the first of ``order`` asked for."""
        if self.req.pipeline_variant and order is PIPELINE_ORDER:
            return normalize_variant(self.req.pipeline_variant)
        usable = [v for v in self.variants if v not in self.failed]
        for name in order:
            if name in usable:
                return name
        others = [v for v in usable if v not in ("numpy", "jit-sync")]
        return others[0] if others else "jit"

    def loaded_function(self) -> Loaded:
        """The user's loaded function (:meth:`go` loads it before measuring anything)."""
        assert self.loaded is not None
        return self.loaded

    def header(self) -> TimingHeader:
        req, loaded = self.req, self.loaded_function()
        devs = devices.active_devices()
        versions = devices.versions()
        try:
            function_source = inspect.getsource(loaded.fn)
        except (OSError, TypeError):
            function_source = ""
        t = req.trace
        settings = {k: str(v) for k, v in (
            ("batch", t.batch), ("in_axes", t.in_axes), ("axis_name", t.axis_name),
            ("mesh", t.mesh), ("specs", t.specs), ("out_specs", t.out_specs),
            ("variants", ",".join(self.variants)), ("runs", req.runs),
            ("warmup", req.warmup), ("pipeline", req.pipeline), ("sweep", req.sweep),
            ("sweep_args", req.sweep_args), ("baseline", req.baseline)) if v is not None}
        simulated = devices.simulated()
        notes = ["first calls clear JAX's caches so that they trace and compile afresh"]
        if simulated and len(devs) > 1:
            notes.append(f"the {len(devs)} devices are simulated on this machine's cores: "
                         f"timings show structure (dispatch, queueing), not real speed-ups")
        if "jit-sync" in self.variants and sync_unavailable() is None:
            notes.append("jit-sync is measured in a child process started with "
                         "jax_cpu_enable_async_dispatch=False")
        return TimingHeader(
            jaxviz=jaxviz.__version__, jax=versions["jax"], jaxlib=versions["jaxlib"],
            backend=devs[0].platform, device_kind=devs[0].device_kind, device_count=len(devs),
            simulated=simulated, host_cpu=devices.host_cpu(),
            python=platform.python_version(), os=platform.platform(),
            date=_dt.datetime.now(_dt.UTC).astimezone().isoformat(timespec="seconds"),
            clock=timing_calls.CLOCK_NAME, function=t.target.function,
            filename=t.target.filename, source=t.target.source,
            function_source=function_source, args=t.args, batched_args=t.batched_args,
            settings=settings, devices=devices.inventory(),
            async_dispatch=async_dispatch_setting(),
            poll_interval_us=timing_calls.POLL_INTERVAL_S * 1e6, notes=notes)

    def build(self, loaded: Loaded, variant: str, batched_numpy: bool,
              where: str = "") -> Timed | None:
        try:
            return build(loaded, variant, self.req.baseline, batched_numpy)
        except UserError as exc:
            info = exc.info
        except Exception as exc:  # noqa: BLE001 - JAX and user code may raise anything
            info = explain(exc, self.req.trace.target.filename, variant, loaded)
        if where:
            info.message = f"{where}: {info.message}"
        self.fail(info, variant)
        return None

    def calls(self, timed: Timed, phase: str, count: int, size: int | None = None,
              args: list[Any] | None = None) -> None:
        """Measure ``count`` calls; records are streamed in batches, at least every
        :data:`FLUSH_NS`, so fast calls run back to back in a tight loop (as in a
        plain timing script) and slow calls still show up one by one."""
        per_device = self.req.per_device and timed.multi_device is not False
        args = timed.args if args is None else args
        what = "warm-up" if phase == "warmup" else "call"
        at = f" at {size}" if size is not None else ""
        call_once, fn = timing_calls.call_once, timed.fn
        pending: list[Measured] = []
        flushed = clock()
        for i in range(count):
            m = call_once(fn, args, per_device)
            pending.append(m)
            if m.t0 + m.complete - flushed > FLUSH_NS or i == count - 1:
                first = i + 1 - len(pending)
                for j, done in enumerate(pending, start=first):
                    self.record(timed.variant, phase, j, done, size)
                self.done += len(pending)
                pending.clear()
                self.status(f"{timed.variant}{at}: {what} {i + 1}/{count}")
                flushed = clock()

    def measure_variant(self, timed: Timed) -> None:
        variant = timed.variant
        self.status(f"{variant}: first call", force=True)
        try:
            with meshes.mesh_context(timed.context):
                self._measure_variant(timed)
        except Exception as exc:  # noqa: BLE001 - user code may raise anything
            self.fail(self.explain(exc, variant), variant)

    def _measure_variant(self, timed: Timed) -> None:
        req, variant = self.req, timed.variant
        first, args, out_devices = self.first_call(timed)
        self.done += 1
        self.emit(VariantInfo(variant=variant, call=timed.call,
                              args=timed.arg_text or arg_types(timed.args),
                              devices=out_devices, notes=timed.notes, code=timed.code))
        self.emit(first)
        timed.args = args
        timed.multi_device = len(out_devices) > 1
        self.calls(timed, "warmup", req.warmup)
        self.calls(timed, "steady", req.runs)

    def explain(self, exc: Exception, variant: str) -> ErrorInfo:
        if isinstance(exc, UserError):
            return exc.info
        return explain(exc, self.req.trace.target.filename, variant, self.loaded_function())

    def first_call(self, timed: Timed) -> tuple[FirstCall, list[Any], list[int]]:
        """The first call, in stages where the variant is compiled as a whole."""
        if timed.fresh is None:
            if timed.variant != "numpy":
                jax.clear_caches()
            m = timing_calls.call_once(timed.fn, timed.args, False, want_devices=True)
            first = FirstCall(variant=timed.variant, t0_ns=m.t0 - self.origin,
                              execute_ns=m.complete, dispatch_ns=m.dispatch,
                              total_ns=m.complete, compiled_in_call=timed.variant != "numpy")
            return first, timed.args, m.out_devices
        stages = timing_calls.first_call_stages(timed.fresh, timed.args)
        implicit = timing_calls.implicit_first_call(timed.fresh, timed.args)
        args = timing_calls.place(timed.args, stages.compiled)
        out_devices = stages.out_devices
        total = (stages.trace or 0) + stages.lower + stages.compile + stages.execute
        first = FirstCall(variant=timed.variant, t0_ns=stages.t0 - self.origin,
                          trace_ns=stages.trace, lower_ns=stages.lower,
                          compile_ns=stages.compile, dispatch_ns=stages.dispatch,
                          execute_ns=stages.execute, total_ns=total, implicit_ns=implicit)
        return first, args, out_devices

    def measure_pipeline(self, batched_numpy: bool) -> None:
        variant = self.main_variant(PIPELINE_ORDER)
        if variant == "jit-sync":
            variant = "jit"
        if variant in self.failed:
            return  # its error was reported once; pipelining it would only repeat it
        timed = self.build(self.loaded_function(), variant, batched_numpy, where="pipeline")
        if timed is None:
            return
        k = self.req.pipeline
        self.status(f"{variant}: {k} pipelined calls", force=True)
        try:
            with meshes.mesh_context(timed.context):
                self.prepare_calls(timed)
                out = timed.fn(*timed.args)
                chain = timed.chain_ok and timing_calls.chainable(out, timed.args)
                del out
                result = timing_calls.pipeline(timed.fn, timed.args, k, chain,
                                               self.req.per_device and bool(timed.multi_device))
        except Exception as exc:  # noqa: BLE001
            self.fail(self.explain(exc, variant), variant)
            return
        note = ("each call takes the previous call's output as its first argument" if chain
                else "the calls are independent (the output cannot feed the next call)")
        self.emit(PipelineInfo(variant=variant, calls=k, chained=chain, note=note))
        for i, m in enumerate(result.calls):
            self.done += 1
            self.record(variant, "pipelined", i, m)

    def prepare_calls(self, timed: Timed) -> None:
        """Compile and place the arguments without recording (sweep and pipeline)."""
        if timed.fresh is not None and hasattr(timed.fn, "lower"):
            compiled = timed.fn.lower(*timed.args).compile()
            timed.args = timing_calls.place(timed.args, compiled)
        out = jax.block_until_ready(timed.fn(*timed.args))
        timed.multi_device = len(timing_calls.output_devices(out)) > 1

    def measure_size(self, size: int, batched_numpy: bool) -> None:
        req = self.req
        assert req.sweep is not None  # only a request with a sweep measures sizes
        name = parse_sweep(req.sweep)[0]
        where = f"sweep {name}={size}"
        spec = req.sweep_args or req.trace.args
        batched = req.trace.batched_args
        trace = replace(req.trace, args=sweep_args_for(spec, name, size),
                        batched_args=sweep_args_for(batched, name, size)
                        if batched and sweep_args_for(batched, name, 0) != batched else None)
        try:
            loaded = load(trace)
        except UserError as exc:
            exc.info.message = f"{where}: {exc.info.message}"
            exc.info.field = exc.info.field or "sweep_args"
            self.fail(exc.info)
            return
        for variant in self.sweep_variants:
            timed = self.build(loaded, variant, batched_numpy, where=where)
            if timed is None:
                continue
            self.status(f"{variant}: {where}", force=True)
            try:
                with meshes.mesh_context(timed.context):
                    self.prepare_calls(timed)
                    self.calls(timed, "warmup", max(req.warmup, 1), size)
                    self.calls(timed, "sweep", req.runs, size)
            except Exception as exc:  # noqa: BLE001
                info = explain(exc, trace.target.filename, variant, loaded) \
                    if not isinstance(exc, UserError) else exc.info
                info.message = f"{where}: {info.message}"
                self.fail(info, variant)

    def in_child(self, variant: str) -> None:
        """Measure ``jit`` with async dispatch off in a child process, as ``variant``."""
        if self.run_in_child is None:
            self.fail(ErrorInfo("engine", NO_CHILD.format("off"), variant=variant), variant)
            return
        sub = replace(self.req, variants=["jit"], pipeline=0, sweep=None, sweep_variants=[],
                      async_dispatch=False, pipeline_variant=None)
        self.status(f"{variant}: starting a process with async dispatch off", force=True)

        def relay(record: Any) -> None:
            if isinstance(record, (TimingHeader, TimingStatus)):
                return
            if hasattr(record, "variant") and record.variant == "jit":
                record.variant = variant
            if isinstance(record, CallRecord):
                self.done += 1
                self.status(f"{variant}: {record.phase} call {record.run + 1} (async off)")
            elif isinstance(record, FirstCall):
                self.done += 1
            elif isinstance(record, VariantInfo):
                record.notes.append(VariantNote("timing", "measured in a child process started "
                                                    "with CPU async dispatch off"))
            self.emit(record)

        child = self.run_in_child(sub, relay, self.origin)
        if child.error is not None:
            child.error.variant = variant
            self.fail(child.error, variant)
