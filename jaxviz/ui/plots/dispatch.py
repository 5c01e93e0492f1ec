"""Dispatch versus completion, call by call, for one variant.

For each measured call: a blue triangle when the call returned (dispatch) and
a vermillion circle when its result was ready (``block_until_ready``
returned), joined by a thin line, on a log time axis by default; dashed lines
mark the two medians.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pyqtgraph as pg

from jaxviz.model.timing import TimingRun, variant_label
from jaxviz.ui.plots.base import SYMBOLS, TimingFigure, log_ms, make_plot
from jaxviz.views.timing.stats import caption_dispatch, fmt_ms, primary_variant, steady


class DispatchFigure(TimingFigure):
    """Dispatch vs completion per call.

    Args:
        variant: the variant shown (default: the run's primary variant).
        log_time: log time axis (default) or linear.
    """

    kind = "dispatch_vs_complete"

    def __init__(self, *args, variant: str | None = None, log_time: bool = True, **kwargs):
        self.variant = variant
        self.log_time = log_time
        #: the y range of the run streaming in (it only grows), and that run
        self._live_y: tuple[float, float] | None = None
        self._live_run: int | None = None
        #: what the scatters and links hold: (the run, the variant, log axis?) and how
        #: many of its calls; a run that grew since gets its new calls appended
        self._plotted: tuple[TimingRun | None, str | None, bool] = (None, None, True)
        self._plotted_n = 0
        super().__init__(*args, **kwargs)

    def _build(self) -> Iterator[None]:
        s, t = self.style, self.style.colours
        self.plot = make_plot(s, left=("time since the call was made (ms)", "ms since the call",
                                       "ms"),
                              bottom="call number (after warm-up)", log_left=self.log_time,
                              integer_bottom=True)
        yield
        self.body.addItem(self.plot)
        self.plots = [self.plot]
        self.links = pg.PlotCurveItem(pen=pg.mkPen(t.connector, width=max(1.0, s.line_px / 2)),
                                      connect="pairs", antialias=True)
        self.plot.addItem(self.links)
        self.medians = {}
        for kind, colour in (("dispatch", t.dispatch), ("ready", t.ready)):
            line = pg.InfiniteLine(angle=0, movable=False, pen=pg.mkPen(
                colour, width=max(1.5, s.line_px * 0.6), style=pg.QtCore.Qt.PenStyle.DashLine))
            line.setVisible(False)
            self.plot.addItem(line)
            self.medians[kind] = line
        self.scatters = {}
        for kind, colour in (("dispatch", t.dispatch), ("ready", t.ready)):
            scatter = pg.ScatterPlotItem(symbol=SYMBOLS[kind][0], size=s.marker_px,
                                         pen=pg.mkPen(t.background, width=1),
                                         brush=pg.mkBrush(colour), antialias=True,
                                         hoverable=True, tip=self._tip)
            self.plot.addItem(scatter)
            self.scatters[kind] = scatter

    @staticmethod
    def _tip(x: float, y: float, data: object) -> str:
        return str(data)

    def set_log_time(self, log_time: bool) -> None:
        """Switch between log and linear time (takes effect at the next update)."""
        if log_time != self.log_time:
            self.log_time = log_time
            self.body.clear()
            self._plotted, self._plotted_n = (None, None, log_time), 0
            self.steps = self._building()
            self.finish_building()

    def _y(self, ms: np.ndarray) -> np.ndarray:
        return log_ms(ms) if self.log_time else ms

    def _growing(self, run: TimingRun, lo: float, hi: float) -> tuple[float, float]:
        """``lo..hi`` widened to whole steps (half a decade on the log axis) and to every
        range shown before during this run: it changes a few times per run, not per call."""
        step = 0.5 if self.log_time else 10.0 ** np.floor(np.log10(max(hi - lo, 1e-9)))
        lo, hi = float(np.floor(lo / step) * step), float(np.ceil(hi / step) * step)
        if self._live_run == id(run) and self._live_y is not None:
            lo, hi = min(lo, self._live_y[0]), max(hi, self._live_y[1])
        self._live_y, self._live_run = (lo, hi), id(run)
        return lo, hi

    def _points(self, run: TimingRun, variant: str | None,
                calls: list) -> tuple[np.ndarray, np.ndarray]:
        """Plot ``calls`` (the variant's steady calls): the ones not plotted yet are appended
        to the scatters and links when the run is the one plotted and has only grown (a run
        streaming in), else every point is set again. Returns the y of every call
        (dispatch, completion) for the ranges."""
        d_ms = np.array([c.dispatch_ns / 1e6 for c in calls])
        c_ms = np.array([c.complete_ns / 1e6 for c in calls])
        yd, yc = self._y(d_ms), self._y(c_ms)
        key = (run, variant, self.log_time)
        n = len(calls)
        same = self._plotted[0] is run and self._plotted[1:] == key[1:]
        start = self._plotted_n if same and self._plotted_n <= n else 0
        if start == n and start:
            return yd, yc  # nothing new
        x = np.arange(start + 1, n + 1, dtype=float)
        tips = {"dispatch": [f"call {i}: returned after {fmt_ms(v)}"
                             for i, v in zip(range(start + 1, n + 1), d_ms[start:])],
                "ready": [f"call {i}: ready after {fmt_ms(v)}"
                          for i, v in zip(range(start + 1, n + 1), c_ms[start:])]}
        for kind, y in (("dispatch", yd), ("ready", yc)):
            if start:  # only the new calls' points are made
                self.scatters[kind].addPoints(x=x, y=y[start:], data=tips[kind])
            else:
                self.scatters[kind].setData(x=x, y=y, data=tips[kind])
        all_x = np.arange(1, n + 1, dtype=float)
        pairs_y = np.empty(2 * n)
        pairs_y[0::2], pairs_y[1::2] = yd, yc
        self.links.setData(np.repeat(all_x, 2), pairs_y)
        self._plotted, self._plotted_n = key, n
        return yd, yc

    def _update(self, run: TimingRun):
        t = self.style.colours
        variant = self.variant or primary_variant(run)
        calls = run.calls_of(variant, "steady") if variant else []
        x = np.arange(1, len(calls) + 1, dtype=float)
        yd, yc = self._points(run, variant, calls)
        summary = steady(run, variant) if variant else None
        for line in self.medians.values():
            line.setVisible(summary is not None)
        if summary is not None:
            for kind, value in (("dispatch", summary.dispatch_median),
                                ("ready", summary.complete_median)):
                self.medians[kind].setValue(float(self._y(np.array([value]))[0]))
        if len(x):
            lo = float(min(yd.min(), yc.min()))
            hi = float(max(yd.max(), yc.max()))
            pad = 0.35 if self.log_time else 0.12 * (hi - lo + 1e-9)
            y_range, right = (lo - pad, hi + pad), len(x) + 0.5
            if self.live:  # axes that stay still while the calls stream in
                y_range = self._growing(run, *y_range)
                right = max(right, run.request.runs + 0.5)  # the calls to come
            else:
                self._live_y = self._live_run = None
            self.set_range(self.plot, x=(0.5, right), y=y_range)
        label = variant_label(variant) if variant else "(no calls yet)"
        info = run.info(variant) if variant else None
        title = f"Dispatch vs completion — {info.call if info else label}"
        med_d = f", median {fmt_ms(summary.dispatch_median)}" if summary else ""
        med_c = f", median {fmt_ms(summary.complete_median)}" if summary else ""
        entries = [(SYMBOLS["dispatch"][1], t.dispatch, f"call returned (dispatch){med_d}"),
                   (SYMBOLS["ready"][1], t.ready, f"result ready (block_until_ready){med_c}"),
                   ("╌╌", t.foreground, "medians")]
        return title, entries, caption_dispatch(run, variant)
