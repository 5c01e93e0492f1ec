"""Variants side by side: steady state per call, and the first call apart.

Left: one row per variant on a log time axis -- every measured call as a
small faint dot, the median completion as a vermillion circle and the median
dispatch as a blue triangle, with 10th-90th percentile whiskers. Right, on
the same rows: the first call, stacked by stage (trace, lower, compile,
execute) on a linear axis -- one grey bar for variants JAX does not compile as a
whole (op-by-op, vmap, the loop), whose first call compiles each op as it runs --
with a black tick where a plain first call (all stages in one, after clearing the
caches) ended.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pyqtgraph as pg

from jaxviz.model.timing import TimingRun, variant_label
from jaxviz.ui.plots.base import (
    SYMBOLS,
    CategoryAxis,
    TimingFigure,
    grid_alpha,
    log_ms,
    make_plot,
)
from jaxviz.views.timing.stats import caption_variants, fmt_ms, steady

PHASES = ("trace", "lower", "compile", "execute", "first call")
#: Within a variant's row, dispatch sits a little above completion so that
#: synchronous variants (dispatch = completion) still show both markers.
DISPATCH_OFFSET, READY_OFFSET = 0.2, -0.06
PHASE_LABELS = {"trace": "trace", "lower": "lower", "compile": "compile",
                "execute": "first execution",
                "first call": "first call, compiling each op as it runs"}


class VariantsFigure(TimingFigure):
    """Steady-state calls and first calls of every variant."""

    kind = "variants"

    def _build(self) -> Iterator[None]:
        s, t = self.style, self.style.colours
        self.steady_plot = make_plot(s, bottom="time per call, steady state (ms, log scale)",
                                     category_left=True, log_bottom=True)
        yield
        self.steady_plot.showGrid(x=True, y=False, alpha=grid_alpha(s))
        self.first_plot = make_plot(s, bottom="first call, by stage (ms)", category_left=True)
        yield
        self.first_plot.showGrid(x=True, y=False, alpha=grid_alpha(s))
        self.first_plot.getAxis("left").setStyle(showValues=False)
        self.first_plot.getAxis("left").setWidth(s.px(0.4))
        self.first_plot.setYLink(self.steady_plot)
        self.body.addItem(self.steady_plot, row=0, col=0)
        self.body.addItem(self.first_plot, row=0, col=1)
        self.body.layout.setColumnStretchFactor(0, 3)
        self.body.layout.setColumnStretchFactor(1, 2)
        self.plots = [self.steady_plot, self.first_plot]
        width = max(1.5, s.line_px * 0.7)
        self.whiskers = {k: pg.PlotCurveItem(pen=pg.mkPen(c, width=width), connect="pairs",
                                             antialias=True)
                         for k, c in (("dispatch", t.dispatch), ("ready", t.ready))}
        self.dots = pg.ScatterPlotItem(symbol="o", size=s.small_marker_px, pen=None,
                                       brush=pg.mkBrush(t.ready + "55"), antialias=True)
        self.steady_plot.addItem(self.dots)
        for item in self.whiskers.values():
            self.steady_plot.addItem(item)
        self.markers = {}
        for kind, colour in (("dispatch", t.dispatch), ("ready", t.ready)):
            scatter = pg.ScatterPlotItem(symbol=SYMBOLS[kind][0], size=s.marker_px * 1.3,
                                         pen=pg.mkPen(t.background, width=1),
                                         brush=pg.mkBrush(colour), antialias=True,
                                         hoverable=True, tip=lambda x, y, data: str(data))
            self.steady_plot.addItem(scatter)
            self.markers[kind] = scatter
        self.stage_bars = {}
        for phase in PHASES:
            bar = pg.BarGraphItem(x0=[], width=[], y=[], height=0.5,
                                  brush=t.phases[phase], pen=pg.mkPen(t.foreground, width=1))
            self.first_plot.addItem(bar)
            self.stage_bars[phase] = bar
        self.implicit = pg.PlotCurveItem(pen=pg.mkPen(t.foreground, width=max(2, s.line_px)),
                                         connect="pairs")
        self.first_plot.addItem(self.implicit)
        self.implicit_tips = pg.ScatterPlotItem(size=s.marker_px, pen=None, brush=None,
                                                hoverable=True, tip=lambda x, y, data: str(data))
        self.first_plot.addItem(self.implicit_tips)

    def _update(self, run: TimingRun):
        t = self.style.colours
        names = [v for v in run.variant_names()
                 if run.calls_of(v, "steady") or run.first_call(v)]
        axis = self.steady_plot.getAxis("left")
        assert isinstance(axis, CategoryAxis)
        rows = {v: -float(i) for i, v in enumerate(names)}
        axis.setTicks([[(rows[v], variant_label(v)) for v in names], []])
        self.first_plot.getAxis("left").setTicks([[(rows[v], "") for v in names], []])
        rng = np.random.default_rng(0)
        dot_x, dot_y = [], []
        marks: dict[str, tuple[list[float], list[float], list[str]]] = {
            "dispatch": ([], [], []), "ready": ([], [], [])}
        whisk: dict[str, tuple[list[float], ...]] = {"dispatch": ([], []), "ready": ([], [])}
        all_x = []
        for v in names:
            calls = run.calls_of(v, "steady")
            s = steady(run, v)
            if s is None:
                continue
            y = rows[v]
            c_ms = [c.complete_ns / 1e6 for c in calls]
            dot_x += list(log_ms(c_ms))
            dot_y += list(y + READY_OFFSET + rng.uniform(-0.13, 0.13, len(c_ms)))
            for kind, med, lo, hi, what in (
                    ("dispatch", s.dispatch_median, s.dispatch_p10, s.dispatch_p90, "returned"),
                    ("ready", s.complete_median, s.complete_p10, s.complete_p90, "ready")):
                off = DISPATCH_OFFSET if kind == "dispatch" else READY_OFFSET
                mx, my, mt = marks[kind]
                mx.append(float(log_ms([med])[0]))
                my.append(y + off)
                mt.append(f"{variant_label(v)}: median {what} after {fmt_ms(med)} "
                          f"(10-90%: {fmt_ms(lo)} to {fmt_ms(hi)}, {s.n} calls)")
                wx, wy = whisk[kind]
                wx += list(log_ms([lo, hi]))
                wy += [y + off, y + off]
                all_x += list(log_ms([lo, hi, med]))
        self.dots.setData(x=dot_x, y=dot_y)
        for kind in ("dispatch", "ready"):
            mx, my, mt = marks[kind]
            self.markers[kind].setData(x=mx, y=my, data=mt)
            self.whiskers[kind].setData(*whisk[kind])
        if all_x or dot_x:
            lo, hi = min(all_x + dot_x), max(all_x + dot_x)
            self.set_range(self.steady_plot, x=(lo - 0.25, hi + 0.25))
        self._first_calls(run, names, rows)
        if names:
            self.set_range(self.steady_plot, y=(-len(names) + 0.45, 0.55))
        shown = [p for p in PHASES if p != "first call"
                 or any(f.compiled_in_call for f in run.first_calls)]
        first_entries = [("■", t.phases[p], PHASE_LABELS[p]) for p in shown]
        entries = [(SYMBOLS["dispatch"][1], t.dispatch, "median: call returned"),
                   (SYMBOLS["ready"][1], t.ready, "median: result ready"),
                   *first_entries, ("┃", t.foreground, "a plain first call ended")]
        fn = run.header.function if run.header else ""
        title = f"{fn}: variants compared — steady state (left) and first call (right)"
        return title, entries, caption_variants(run)

    def _first_calls(self, run: TimingRun, names: list[str], rows: dict[str, float]) -> None:
        stacks: dict[str, tuple[list[float], list[float], list[float]]] = {
            p: ([], [], []) for p in PHASES}
        ix, iy, itip = [], [], []
        right = 0.0
        for v in names:
            first = run.first_call(v)
            if first is None:
                continue
            x = 0.0
            for phase, ns in first.phases():
                x0s, widths, ys = stacks[phase]
                x0s.append(x)
                widths.append(ns / 1e6)
                ys.append(rows[v])
                x += ns / 1e6
            right = max(right, x)
            if first.implicit_ns is not None:
                ix.append(first.implicit_ns / 1e6)
                iy.append(rows[v])
                itip.append(f"{variant_label(v)}: plain first call "
                            f"{fmt_ms(first.implicit_ns / 1e6)}"
                            f" vs stages {fmt_ms(first.total_ns / 1e6)}")
                right = max(right, first.implicit_ns / 1e6)
        for phase, (x0s, widths, ys) in stacks.items():
            self.stage_bars[phase].setOpts(x0=x0s, width=widths, y=ys, height=0.5)
        bars = np.array([[y - 0.36, y + 0.36] for y in iy]).ravel()
        self.implicit.setData(np.repeat(ix, 2), bars)
        self.implicit_tips.setData(x=ix, y=iy, data=itip)
        if right:
            self.set_range(self.first_plot, x=(0, right * 1.08))
