"""Statistics and one-sentence captions of timing runs (plain Python, no JAX, no Qt).

The CLI prints these, the plots put them under each figure and the GUI shows
them: one implementation, computed from the records, never canned.

Example:
    >>> fmt_ms(0.04321), fmt_ms(4.56), fmt_ms(123.4)
    ('0.043 ms', '4.6 ms', '123 ms')
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from pathlib import PurePath

from jaxviz.model.timing import CallRecord, FirstCall, TimingRun, parse_sweep, variant_label

#: The variant plots single out when none is named: the most "JAX-like" measured.
PRIMARY_ORDER = ("jit", "jit-vmap", "sharded", "pmap", "shard_map", "vmap", "op-by-op",
                 "loop", "jit-sync", "numpy")

#: Dispatch slower than this fraction of completion counts as synchronous.
SYNC_RATIO = 0.5

#: A call that returned after this fraction of its completion time waited for it.
SYNC_WAIT = 0.9

#: Medians within this factor of the fastest count as a tie (machines are noisy).
TIE = 1.1


def fmt_num(value: float) -> str:
    """Two significant digits, without an exponent (``1234`` stays ``1234``)."""
    if value == 0 or not math.isfinite(value):
        return f"{value:g}"
    if abs(value) >= 100:
        return f"{value:.0f}"
    rounded = float(f"{value:.2g}")
    digits = max(0, 1 - int(math.floor(math.log10(abs(rounded)))))
    return f"{rounded:.{digits}f}"


def fmt_ms(value_ms: float) -> str:
    """A duration in milliseconds, for captions and labels."""
    if value_ms >= 10_000:
        return f"{fmt_num(value_ms / 1000)} s"
    return f"{fmt_num(value_ms)} ms"


def quantile(values: list[float], q: float) -> float:
    """Linear-interpolation quantile (``q`` in [0, 1]) of a non-empty list."""
    data = sorted(values)
    pos = (len(data) - 1) * q
    lo = math.floor(pos)
    hi = min(lo + 1, len(data) - 1)
    return data[lo] + (data[hi] - data[lo]) * (pos - lo)


@dataclass
class Summary:
    """Dispatch and completion statistics of some calls, in milliseconds."""

    n: int
    dispatch_median: float
    complete_median: float
    dispatch_p10: float
    dispatch_p90: float
    complete_p10: float
    complete_p90: float

    @property
    def asynchronous(self) -> bool:
        """True when calls return well before their results are ready."""
        return self.dispatch_median < SYNC_RATIO * self.complete_median

    @property
    def waits(self) -> bool:
        """True when calls return only when their results are (about) ready."""
        return waited(self.dispatch_median, self.complete_median)


def waited(dispatch: float, complete: float) -> bool:
    """Whether a call that returned after ``dispatch`` waited for its result, ready after
    ``complete`` (the same unit): it returned after :data:`SYNC_WAIT` of that time."""
    return dispatch >= SYNC_WAIT * complete


def summarize(calls: list[CallRecord]) -> Summary | None:
    """Medians and 10th/90th percentiles of dispatch and completion (None if no calls)."""
    if not calls:
        return None
    d = [c.dispatch_ns / 1e6 for c in calls]
    c_ = [c.complete_ns / 1e6 for c in calls]
    return Summary(n=len(calls), dispatch_median=statistics.median(d),
                   complete_median=statistics.median(c_),
                   dispatch_p10=quantile(d, 0.1), dispatch_p90=quantile(d, 0.9),
                   complete_p10=quantile(c_, 0.1), complete_p90=quantile(c_, 0.9))


def steady(run: TimingRun, variant: str) -> Summary | None:
    """The steady-state summary of one variant (the calls after warm-up)."""
    return summarize(run.calls_of(variant, "steady"))


def primary_variant(run: TimingRun) -> str | None:
    """The variant a single-variant plot shows by default."""
    names = [v for v in run.variant_names() if run.calls_of(v, "steady")]
    for name in PRIMARY_ORDER:
        if name in names:
            return name
    return names[0] if names else None


def sweep_points(run: TimingRun, variant: str) -> list[tuple[int, Summary]]:
    """``(size, summary)`` for each measured size of a sweep variant, by size."""
    sizes = sorted({c.size for c in run.calls_of(variant, "sweep") if c.size is not None})
    out = []
    for size in sizes:
        s = summarize([c for c in run.calls_of(variant, "sweep") if c.size == size])
        if s is not None:
            out.append((size, s))
    return out


def sweep_variants(run: TimingRun) -> list[str]:
    """Variants with sweep records, in request order."""
    return [v for v in run.variant_names() if run.calls_of(v, "sweep")]


def sweep_name(run: TimingRun) -> str:
    """The swept argument name (``n``), or ``size``."""
    try:
        return parse_sweep(run.request.sweep or "")[0]
    except ValueError:
        return "size"


# --------------------------------------------------------------------------- #
# Captions
# --------------------------------------------------------------------------- #


def caption_dispatch(run: TimingRun, variant: str | None = None) -> str:
    """E.g. "jit: calls return after 0.04 ms; results are ready after 4.6 ms — ..."."""
    variant = variant or primary_variant(run)
    s = steady(run, variant) if variant else None
    if variant is None or s is None:
        return "no calls measured yet"
    label = variant_label(variant)
    d, c = fmt_ms(s.dispatch_median), fmt_ms(s.complete_median)
    if s.asynchronous:
        factor = s.complete_median / max(s.dispatch_median, 1e-9)
        return (f"{label}: calls return after {d}; results are ready after {c} "
                f"(median of {s.n}) — dispatch is asynchronous, the call returns "
                f"{fmt_num(factor)}× sooner than its result")
    if variant != "numpy" and not s.waits:  # a short computation on an accelerator
        later = fmt_ms(s.complete_median - s.dispatch_median)
        return (f"{label}: calls return after {d}; results are ready {later} later ({c}, "
                f"median of {s.n}) — the call returns before its result, but dispatching "
                f"it takes most of the time")
    why = " — NumPy computes before returning" if variant == "numpy" else \
        " — dispatch is synchronous here: the call waits for its result"
    return f"{label}: calls return after {d}, when results are ready ({c}, median of {s.n}){why}"


def caption_timeline(run: TimingRun) -> str:
    """E.g. "8 chained jit calls were dispatched within 0.3 ms; ... one after another"."""
    info = run.pipeline
    calls = sorted(run.calls_of(phase="pipelined"), key=lambda c: c.run)
    if info is None or not calls:
        return "no pipelined calls measured"
    label = variant_label(info.variant)
    kind = "chained " if info.chained else "independent "
    last_dispatch = max(c.t_dispatch_ns for c in calls) / 1e6
    first_ready = min(c.t_complete_ns for c in calls) / 1e6
    last_ready = max(c.t_complete_ns for c in calls) / 1e6
    text = (f"{len(calls)} {kind}{label} calls were all dispatched within "
            f"{fmt_ms(last_dispatch)}; their results became ready one after another from "
            f"{fmt_ms(first_ready)} to {fmt_ms(last_ready)}")
    waits = [c for c in calls if waited(c.t_dispatch_ns, c.t_complete_ns)]
    if not waits:
        text += " — the calls queue up behind each other while Python runs ahead"
    elif len(waits) == len(calls):
        text += (" — each call returned only when its result was ready: dispatch is "
                 "synchronous here, nothing queues")
    else:
        text += (f" — {len(waits)} of the {len(calls)} calls returned only when their result "
                 f"was ready, the other {len(calls) - len(waits)} queued up while Python ran "
                 f"ahead")
    spreads = [(max(d.t_ready_ns for d in c.devices) - min(d.t_ready_ns for d in c.devices))
               / 1e6 for c in calls if len(c.devices) > 1]
    if spreads:
        text += (f"; the {len(calls[0].devices)} devices finished each call within "
                 f"{fmt_ms(max(spreads))} of each other")
    return text


def caption_variants(run: TimingRun) -> str:
    """E.g. "jit is fastest at 4.5 ms per call, 12× faster than NumPy; compiling ..."."""
    stats = [(v, s) for v in run.variant_names() if (s := steady(run, v)) is not None]
    if not stats:
        return "no calls measured yet"
    best, sb = min(stats, key=lambda vs: vs[1].complete_median)
    tied = [v for v, s in stats if s.complete_median <= TIE * sb.complete_median]
    if len(tied) > 1:
        both = ", ".join(variant_label(v) for v in tied[:-1]) + f" and {variant_label(tied[-1])}"
        text = f"steady state: {both} are about as fast ({fmt_ms(sb.complete_median)} per call)"
    elif len(stats) == 1:
        text = f"steady state: {variant_label(best)} takes {fmt_ms(sb.complete_median)} per call"
    else:
        text = (f"steady state: {variant_label(best)} is fastest at "
                f"{fmt_ms(sb.complete_median)} per call")
    if len(stats) > len(tied):
        worst, sw = max(stats, key=lambda vs: vs[1].complete_median)
        ratio = sw.complete_median / max(sb.complete_median, 1e-9)
        text += (f", {fmt_num(ratio)}× faster than {variant_label(worst)} "
                 f"({fmt_ms(sw.complete_median)})")
    names = [v for v, _ in stats]
    compiled = [v for v in (*[p for p in PRIMARY_ORDER if p in names], *tied)
                if (run.first_call(v) or FirstCall("", 0, 0, 0, 0)).compile_ns]
    first = run.first_call(compiled[0]) if compiled else None
    if first is not None and first.compile_ns is not None:
        prep = sum(v for n, v in first.phases() if n != "execute") / 1e6
        text += (f"; the first {variant_label(first.variant)} call spends {fmt_ms(prep)} "
                 f"tracing and compiling, once")
    on, off = steady(run, "jit"), steady(run, "jit-sync")
    if on is not None and off is not None:
        text += (f"; with async dispatch off, jit calls return after "
                 f"{fmt_ms(off.dispatch_median)} instead of {fmt_ms(on.dispatch_median)}")
    return text


#: Dispatch that grows by less than this factor across a sweep "stays" in the caption.
FLAT = 2.0


def caption_sweep(run: TimingRun, variant: str | None = None) -> str:
    """E.g. "as n grows from 256 to 2048, completion grows 60× while dispatch stays ...",
    or, when dispatch grows by more than :data:`FLAT`, how much, and how far below
    completion it stays (both from the measured medians)."""
    names = sweep_variants(run)
    variant = variant or (names[0] if names else None)
    points = sweep_points(run, variant) if variant else []
    if variant is None or len(points) < 2:
        return "the size sweep needs at least two measured sizes"
    name = sweep_name(run)
    (s0, a), (s1, b) = points[0], points[-1]
    growth = b.complete_median / max(a.complete_median, 1e-9)
    text = (f"{variant_label(variant)}: as {name} grows from {s0} to {s1}, completion grows "
            f"{fmt_num(growth)}× ({fmt_ms(a.complete_median)} → {fmt_ms(b.complete_median)})")
    # a size whose calls returned before their results (of however much) against one
    # whose calls waited for them: the dispatch caption's rule (Summary.waits)
    asynchronous = [(size, p) for size, p in points if not p.waits]
    inline = [size for size, p in points if p.waits]
    if not asynchronous:
        return text + " — calls return only when their results are ready: dispatch is synchronous"
    d_lo = min(p.dispatch_median for _, p in asynchronous)
    d_hi = max(p.dispatch_median for _, p in asynchronous)
    same = fmt_ms(d_lo) == fmt_ms(d_hi)
    if not inline:
        (_, d0), (_, d1) = asynchronous[0], asynchronous[-1]
        d_growth = d1.dispatch_median / max(d0.dispatch_median, 1e-9)
        below = min(p.complete_median / max(p.dispatch_median, 1e-9) for _, p in asynchronous)
        if d_growth > FLAT:
            return (text + f"; dispatch grows {fmt_num(d_growth)}× too "
                    f"({fmt_ms(d0.dispatch_median)} → {fmt_ms(d1.dispatch_median)}) but a call "
                    f"always returns at least {fmt_num(below)}× sooner than its result is ready")
        spread = f"at {fmt_ms(d_lo)}" if same else f"between {fmt_ms(d_lo)} and {fmt_ms(d_hi)}"
        return text + f" while dispatch stays {spread}"
    spread = fmt_ms(d_lo) if same else f"{fmt_num(d_lo)} to {fmt_ms(d_hi)}"
    if max(inline) < asynchronous[0][0]:
        where = f"up to {name} = {max(inline)}"
        then = f"from {name} = {asynchronous[0][0]} on"
    else:
        where = f"at {name} = {', '.join(map(str, inline))}"
        then = "at the other sizes"
    why = " (small CPU computations run inline)" if run.header is not None \
        and run.header.backend == "cpu" else ""
    return (text + f"; {where} calls return only when their results are ready{why}, {then} "
            f"they return after {spread}")


CAPTIONS = {
    "dispatch_vs_complete": caption_dispatch,
    "timeline": caption_timeline,
    "variants": caption_variants,
    "sweep": caption_sweep,
}


def available_plots(run: TimingRun) -> list[str]:
    """The plot kinds ``run`` has data for (the sweep only when one was measured)."""
    kinds = []
    if run.calls_of(phase="steady"):
        kinds.append("dispatch_vs_complete")
    if run.calls_of(phase="pipelined"):
        kinds.append("timeline")
    if run.calls_of(phase="steady"):
        kinds.append("variants")
    if run.calls_of(phase="sweep"):
        kinds.append("sweep")
    return kinds


def caption(kind: str, run: TimingRun) -> str:
    """The caption of one plot kind (keys of :data:`CAPTIONS`)."""
    return CAPTIONS[kind](run)


def header_line(run: TimingRun) -> str:
    """Where and when: one line for a plot's footer."""
    h = run.header
    if h is None:
        return ""
    kind = f"simulated {h.backend.upper()}" if h.simulated else h.device_kind
    dev = f"{h.device_count} {kind} device{'s' if h.device_count != 1 else ''}"
    if h.simulated and h.device_count > 1:
        dev += " (sharing the host's cores: structure, not speed-ups)"
    asyn = "" if h.async_dispatch else " · async dispatch off"
    where = f"{PurePath(h.filename).name}:{h.function}({h.args})"
    return (f"{where} · jax {h.jax} · {dev}{asyn} · {h.host_cpu} · {h.date[:16].replace('T', ' ')}")


def differing_notes(run: TimingRun) -> list[str]:
    """``pmap differs: ...``: the notes saying a measured variant computes something else."""
    return [f"{variant_label(info.variant)} {note.line()}" for info in run.variants
            for note in info.notes if note.differs]
