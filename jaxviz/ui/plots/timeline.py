"""The timeline of pipelined calls: the queue that asynchronous dispatch creates.

K calls were dispatched back to back, then awaited in order. Lanes, top to
bottom: Python (a blue triangle where each call returned), results (a
vermillion circle where each result was ready, numbered), and one lane per
device with a bar per call from when the device could start it (the call was
made and the device's previous result was ready -- devices run their calls
in order) to when its part of the result was seen ready. Grey lines join each
call's return to its result: a fan of long lines is the queue.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pyqtgraph as pg

from jaxviz.model.timing import TimingRun, variant_label
from jaxviz.ui.plots.base import SYMBOLS, CategoryAxis, TimingFigure, font, grid_alpha, make_plot
from jaxviz.views.timing.stats import caption_timeline, fmt_ms

#: Above this many calls the result markers are not numbered.
MAX_NUMBERED = 16
#: The y range beyond the lanes, in lanes: a band above the top one for "all N calls
#: returned by ..." (never over a marker), a margin below the last.
BAND_ABOVE, MARGIN_BELOW = 1.6, 0.6


class TimelineFigure(TimingFigure):
    """Pipelined calls on one time axis, with a lane per device."""

    kind = "timeline"

    def _build(self) -> Iterator[None]:
        s, t = self.style, self.style.colours
        self.plot = make_plot(s, bottom="time since the first call was made (ms)",
                              category_left=True)
        yield
        self.plot.showGrid(x=True, y=False, alpha=grid_alpha(s))
        self.body.addItem(self.plot)
        self.plots = [self.plot]
        self.links = pg.PlotCurveItem(pen=pg.mkPen(t.connector, width=max(1.0, s.line_px / 2)),
                                      connect="pairs", antialias=True)
        self.plot.addItem(self.links)
        self.bars = [pg.BarGraphItem(x0=[], width=[], y=[], height=0.5, brush=colour,
                                     pen=pg.mkPen(t.background, width=1))
                     for colour in (t.device, t.device_alt)]
        for bar in self.bars:
            self.plot.addItem(bar)
        self.done_line = pg.InfiniteLine(angle=90, movable=False, pen=pg.mkPen(
            t.dispatch, width=max(1.5, s.line_px * 0.6), style=pg.QtCore.Qt.PenStyle.DashLine),
            label="", labelOpts={"position": 0.985, "color": t.dispatch,
                                 "anchors": [(0, 0), (0, 0)]})
        self.done_line.label.setFont(font(s.tick_px, bold=True))
        self.done_line.setVisible(False)
        self.plot.addItem(self.done_line)
        self.scatters = {}
        for kind, colour in (("dispatch", t.dispatch), ("ready", t.ready),
                             ("device", t.device)):
            scatter = pg.ScatterPlotItem(symbol=SYMBOLS[kind][0], size=s.marker_px,
                                         pen=pg.mkPen(t.background, width=1),
                                         brush=pg.mkBrush(colour), antialias=True,
                                         hoverable=True, tip=lambda x, y, data: str(data))
            self.plot.addItem(scatter)
            self.scatters[kind] = scatter
        self.numbers: list[pg.TextItem] = []

    def _numbers(self, xs: list[float], y: float, show: bool) -> None:
        s, t = self.style, self.style.colours
        while len(self.numbers) < len(xs):
            item = pg.TextItem("", color=t.ready, anchor=(0.5, 1.15))
            item.setFont(font(s.tick_px, bold=True))
            self.plot.addItem(item)
            self.numbers.append(item)
        for i, item in enumerate(self.numbers):
            visible = show and i < len(xs)
            item.setVisible(visible)
            if visible:
                item.setText(str(i + 1))
                item.setPos(xs[i], y)

    def _update(self, run: TimingRun):
        t = self.style.colours
        calls = sorted(run.calls_of(phase="pipelined"), key=lambda c: c.run)
        info = run.pipeline
        variant = info.variant if info else (calls[0].variant if calls else None)
        devices = sorted({d.device for c in calls for d in c.devices})
        vinfo = run.info(variant) if variant else None
        if not devices and calls:
            devices = (vinfo.devices[:1] if vinfo and vinfo.devices else [0])
        lanes = ["Python: call returned", "result ready"] + [f"device {d}" for d in devices]
        axis = self.plot.getAxis("left")
        assert isinstance(axis, CategoryAxis)
        axis.setTicks([[(-float(i), name) for i, name in enumerate(lanes)], []])
        start = np.array([c.t_start_ns / 1e6 for c in calls])
        disp = np.array([c.t_dispatch_ns / 1e6 for c in calls])
        comp = np.array([c.t_complete_ns / 1e6 for c in calls])
        n = len(calls)
        self.scatters["dispatch"].setData(x=disp, y=np.zeros(n), data=[
            f"call {i + 1}: made at {fmt_ms(a)}, returned at {fmt_ms(b)}"
            for i, (a, b) in enumerate(zip(start, disp))])
        self.scatters["ready"].setData(x=comp, y=np.full(n, -1.0), data=[
            f"call {i + 1}: result ready at {fmt_ms(c)}" for i, c in enumerate(comp)])
        lx, ly = np.repeat(disp, 2), np.zeros(2 * n)
        lx[1::2], ly[1::2] = comp, -1.0
        self.links.setData(lx, ly)
        self._numbers(list(comp), -1.0, n <= MAX_NUMBERED)
        # device lanes: per-device ready times, else the call's completion
        bars: list[list[tuple[float, float, float]]] = [[], []]
        dx, dy, dtip = [], [], []
        last = {d: 0.0 for d in devices}
        for i, c in enumerate(calls):
            ready = {d.device: d.t_ready_ns / 1e6 for d in c.devices} or \
                {devices[0]: c.t_complete_ns / 1e6}
            for lane, dev in enumerate(devices, start=2):
                if dev not in ready:
                    continue
                begin = max(c.t_start_ns / 1e6, last[dev])
                bars[i % 2].append((begin, max(ready[dev] - begin, 0.0), -float(lane)))
                last[dev] = max(last[dev], ready[dev])
                if c.devices:
                    dx.append(ready[dev])
                    dy.append(-float(lane))
                    dtip.append(f"call {i + 1}: device {dev} ready at {fmt_ms(ready[dev])}")
        for bar, items in zip(self.bars, bars):
            x0 = [b[0] for b in items]
            bar.setOpts(x0=x0, width=[b[1] for b in items], y=[b[2] for b in items], height=0.5)
        self.scatters["device"].setData(x=dx, y=dy, data=dtip)
        if n:
            self.done_line.setVisible(True)
            self.done_line.setValue(float(disp.max()))
            self.done_line.label.setFormat(f"all {n} calls returned by {fmt_ms(disp.max())}")
            span = float(comp.max()) or 1.0
            self.set_range(self.plot, x=(-0.02 * span, span * 1.03))
            # the words run away from the nearer edge (a line on the right gets them on its
            # left), so slide-size text never runs off the plot
            right = float(disp.max()) > span * 0.5
            self.done_line.label.anchors = [(1.0, 0), (1.0, 0)] if right else [(0, 0), (0, 0)]
            self.done_line.label.updatePosition()
        else:
            self.done_line.setVisible(False)
        self.set_range(self.plot, y=(-(len(lanes) - 1) - MARGIN_BELOW, BAND_ABOVE))
        how = "chained " if info and info.chained else ""
        title = (f"{n} {how}{variant_label(variant)} calls: dispatched back to back, then "
                 f"awaited in order" if variant else
                 "Pipelined calls: none measured yet (a pipeline depth above 0 measures them)")
        entries = [(SYMBOLS["dispatch"][1], t.dispatch, "call returned"),
                   (SYMBOLS["ready"][1], t.ready, "result ready"),
                   ("■", t.device, "device busy with a call (inferred, in order)")]
        if any(c.devices for c in calls):
            entries.append((SYMBOLS["device"][1], t.device, "device's shard seen ready"))
        return title, entries, caption_timeline(run)
