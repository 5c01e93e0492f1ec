"""What a timing run measures, and what the view says about a run (no Qt, no JAX).

The timing view turns the window's :class:`~jaxviz.model.TraceRequest` plus the
run controls (:class:`RunOptions`) into a :class:`~jaxviz.model.timing.TimingRequest`
-- the same request ``jaxviz time`` sends. An example's ``JAXVIZ = {...}``
settings (read from the source text with :mod:`ast`, never executed) give the
defaults: its timing variants, size sweep and NumPy baseline.

Example:
    >>> declared_settings('JAXVIZ = {"function": "f", "timing": {"variants": ["jit"]}}', "f")
    {'function': 'f', 'timing': {'variants': ['jit']}}
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

from jaxviz.model import TraceRequest, TraceResult
from jaxviz.model.gallery import declared_in
from jaxviz.model.records import ErrorInfo
from jaxviz.model.timing import (
    DEFAULT_VARIANTS,
    TIMING_VARIANTS,
    TimingOptions,
    TimingRequest,
    TimingRun,
    normalize_variant,
)

#: What each timing variant measures, for the variant list's tooltips.
VARIANT_HELP = {
    "numpy": "the example's NumPy function: the host computes before the call returns",
    "op-by-op": "the function without jit: every jnp operation is dispatched on its own",
    "jit": "jax.jit of the function: one compiled program, dispatched asynchronously",
    "jit-sync": "jit with CPU async dispatch off: each call waits for its result "
                "(measured in a second JAX process)",
    "loop": "a Python loop calling the jitted function once per example of the batch",
    "vmap": "jax.vmap of the function, without jit",
    "jit-vmap": "jax.jit(jax.vmap(f)): the whole batch in one compiled program",
    "pmap": "jax.pmap: one slice of the batch per device",
    "sharded": "jit with the batch sharded over the devices (NamedSharding)",
    "shard_map": "shard_map: the per-device program, written out",
}

#: Export sizes offered (the first is the default: a 1080p projector).
SIZES = ("1920x1080", "1280x720", "3840x2160", "1024x768")


@dataclass
class RunOptions(TimingOptions):
    """The run controls' values: the :class:`~jaxviz.model.timing.TimingOptions`, and
    whether the sweep is on.

    ``sweep`` is used only when ``sweep_on`` (the controls keep its text while it
    is off); ``sweep_args`` empty means the function's argument spec.
    """

    sweep_on: bool = False


def declared_settings(source: str, function: str) -> dict[str, Any]:
    """The ``JAXVIZ = {...}`` settings of ``source`` that apply to ``function``.

    An example's settings describe its main function; for another function of
    the same file only the NumPy baseline is kept (as ``jaxviz time`` does).
    Source that does not parse, or has no such literal, gives ``{}``.
    """
    meta = declared_in(source)
    if meta is None:
        return {}
    if meta.get("function") not in (None, function):
        return {"baseline": meta["baseline"]} if meta.get("baseline") else {}
    return meta


def timing_defaults(declared: dict[str, Any]) -> dict[str, Any]:
    """The ``timing`` part of declared settings (``{}`` when absent or malformed)."""
    timing = declared.get("timing")
    return timing if isinstance(timing, dict) else {}


def supported_variants(trace: TraceRequest, declared: dict[str, Any]) -> list[str]:
    """The timing variants that make sense for the function, in plot order.

    jit, op-by-op and jit-sync always; NumPy when there is a baseline; the
    batched ones (loop, vmap, jit-vmap, pmap, sharded, shard_map) when the
    window or the example uses batching, a mesh or that variant.
    """
    timing = timing_defaults(declared)
    names = {"op-by-op", "jit", "jit-sync"}
    names.update(normalize_variant(v) for v in timing.get("variants") or [])
    if declared.get("baseline"):
        names.add("numpy")
    shown = set(trace.variants) | set(declared.get("variants") or [])
    if shown & {"vmap", "pmap", "sharded", "shard_map"} or trace.batched_args or trace.batch:
        names.update(("loop", "vmap", "jit-vmap"))
    if "pmap" in shown:
        names.add("pmap")
    if "sharded" in shown or trace.mesh:
        names.add("sharded")
    if "shard_map" in shown:
        names.add("shard_map")
    return [v for v in TIMING_VARIANTS if v in names]


#: The traced variant (a pane) whose trace says whether a timing variant can run the
#: function: jit runs what the ``plain`` pane traces, jit(vmap) the ``vmap`` pane's ...
TRACED_AS = {"op-by-op": "plain", "jit": "plain", "jit-sync": "plain", "loop": "plain",
             "vmap": "vmap", "jit-vmap": "vmap", "pmap": "pmap", "sharded": "sharded",
             "shard_map": "shard_map", "as_written": "as_written"}
#: The timing variant measuring a declared (traced) variant.
TIMED_AS = {"plain": "jit", "jit": "jit", "vmap": "jit-vmap", "pmap": "pmap",
            "sharded": "sharded", "shard_map": "shard_map", "as_written": "as_written"}


def cannot_run(result: TraceResult | None) -> dict[str, str]:
    """Timing variant -> why it cannot run the function, read from the window's trace of
    it (by JAX): a timing variant whose traced variant failed, e.g. jit of a function
    calling ``psum``, whose ``plain`` trace has no mapped axis to bind it to. Variants
    not traced are not judged (``{}`` without a result)."""
    if result is None:
        return {}
    failed = {vr.variant: vr.error for vr in result.variants if vr.error is not None}
    reasons = {}
    for timing, traced in TRACED_AS.items():
        error = failed.get(traced)
        if error is not None:
            first = error.message.splitlines()[0] if error.message else error.kind
            reasons[timing] = (f"{TIMING_VARIANTS[timing]} cannot run {result.function}: "
                               f"its {traced} trace fails ({first})")
    return reasons


def default_options(declared: dict[str, Any],
                    unable: dict[str, str] | None = None) -> RunOptions:
    """The controls' values for a newly chosen function: its example's timing settings,
    without the variants that cannot run it (``unable``, see :func:`cannot_run`); when
    none is left, the variants the example declares (timed: vmap as jit(vmap)) that can."""
    unable = unable or {}
    timing = timing_defaults(declared)
    wanted = [normalize_variant(v) for v in timing.get("variants") or DEFAULT_VARIANTS]
    variants = [v for v in wanted if v not in unable]
    if not variants:
        shown = [TIMED_AS.get(v, "") for v in declared.get("variants") or []]
        variants = [v for v in dict.fromkeys(shown) if v and v not in unable]
    return RunOptions(variants=variants, sweep=str(timing.get("sweep") or ""),
                      sweep_args=str(timing.get("sweep_args") or ""))


def options_of(request: TimingRequest) -> RunOptions:
    """The controls' values that reproduce a recorded request."""
    return RunOptions(variants=[normalize_variant(v) for v in request.variants],
                      runs=request.runs, warmup=request.warmup, pipeline=request.pipeline,
                      sweep_on=bool(request.sweep), sweep=request.sweep or "",
                      sweep_args=request.sweep_args or "",
                      async_dispatch=request.async_dispatch)


def build_request(trace: TraceRequest, options: RunOptions,
                  declared: dict[str, Any]) -> TimingRequest:
    """The timing request for the function and the controls (check it with ``validate``)."""
    sweep = (options.sweep or "").strip() if options.sweep_on else None  # "" ticked, empty
    return TimingRequest(
        trace=trace, variants=list(options.variants), runs=options.runs,
        warmup=options.warmup, pipeline=options.pipeline, sweep=sweep,
        sweep_args=((options.sweep_args or "").strip() or None) if sweep else None,
        async_dispatch=options.async_dispatch, baseline=declared.get("baseline"))


def describe_target(trace: TraceRequest | None) -> str:
    """``matmul(x, y) in async_dispatch.py``: what Run measures."""
    if trace is None:
        return "nothing to measure yet: open an example or a file in the window"
    name = PurePath(trace.target.filename.strip("<>")).name
    return f"{trace.target.function}({trace.args}) in {name}"


def error_banner_text(info: ErrorInfo) -> str:
    """One line for the banner: the message, the variant and the user's line if known."""
    where = []
    if info.variant:
        where.append(info.variant)
    if info.line:
        where.append(f"line {info.line}")
    prefix = f"{', '.join(where)}: " if where else ""
    lines = info.message.strip().splitlines()
    return prefix + (lines[0] if lines else info.kind)


def where_and_when(run: TimingRun, recording: str | None = None) -> tuple[str, str]:
    """Where and when ``run`` was measured: one line for the view and a tooltip.

    Args:
        recording: the file it was read from (a replay), or None for a live run.
    """
    h = run.header
    if h is None:
        if recording:
            return f"Recording {PurePath(recording).name}: it does not say where it was " \
                   f"measured (no header)", recording
        return "", ""
    date = h.date[:16].replace("T", " ")
    if h.simulated:
        devices = f"{h.device_count} simulated {h.backend.upper()} device" \
                  f"{'s' if h.device_count != 1 else ''}"
        if h.device_count > 1:
            devices += " sharing the host's cores"
    else:
        devices = f"{h.device_count} × {h.device_kind}"
    facts = (f"{h.host_cpu} · {devices} · jax {h.jax} / jaxlib {h.jaxlib} · "
             f"Python {h.python}" + ("" if h.async_dispatch else " · async dispatch off"))
    what = f"{h.function}({h.args}) in {PurePath(h.filename.strip('<>')).name}"
    line = f"Measured {date} on {facts} · {what}"
    if recording:
        line = f"Recording {PurePath(recording).name}, shown as recorded (not rerun): " \
               f"measured {date} on {facts} · {what}"
    tip = "\n".join([
        f"file: {recording}" if recording else "measured in this session",
        f"function: {h.filename}:{h.function}({h.args})",
        f"date: {h.date}", f"host CPU: {h.host_cpu}", f"OS: {h.os}",
        f"devices: {h.device_count} × {h.device_kind} ({h.backend}"
        f"{', simulated' if h.simulated else ''})",
        f"versions: jaxviz {h.jaxviz}, jax {h.jax}, jaxlib {h.jaxlib}, Python {h.python}",
        f"async dispatch: {'on' if h.async_dispatch else 'off'}", f"clock: {h.clock}",
        *h.notes])
    return line, tip
