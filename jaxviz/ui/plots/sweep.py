"""The size sweep: how completion and dispatch grow with the work (the caption says by how much).

x: the swept size (log2 scale, a tick per size); y: time per call (ms, log
scale). Per swept variant, the median completion (vermillion, solid) and the
median dispatch (blue, dashed), with 10th-90th percentile whiskers; variants
are told apart by their marker shape.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pyqtgraph as pg

from jaxviz.model.timing import TimingRun, variant_label
from jaxviz.ui.plots.base import SYMBOLS, VARIANT_SYMBOLS, TimingFigure, log_ms, make_plot
from jaxviz.views.timing.stats import (
    caption_sweep,
    fmt_ms,
    sweep_name,
    sweep_points,
    sweep_variants,
)


class SweepFigure(TimingFigure):
    """Median dispatch and completion against the swept size."""

    kind = "sweep"

    def _build(self) -> Iterator[None]:
        self.plot = make_plot(self.style, left=("time per call (ms, log scale)",
                                                   "ms per call (log)", "ms"),
                              bottom="size", log_left=True)
        yield
        self.body.addItem(self.plot)
        self.plots = [self.plot]
        self.series: dict[tuple[str, str], tuple[pg.PlotDataItem, pg.PlotCurveItem]] = {}

    def _series(self, variant: str, kind: str, index: int):
        key = (variant, kind)
        if key not in self.series:
            s, t = self.style, self.style.colours
            colour = t.dispatch if kind == "dispatch" else t.ready
            symbol = self._symbol(kind, index)[0]
            style = pg.QtCore.Qt.PenStyle.DashLine if kind == "dispatch" \
                else pg.QtCore.Qt.PenStyle.SolidLine
            line = pg.PlotDataItem(pen=pg.mkPen(colour, width=s.line_px, style=style),
                                   symbol=symbol, symbolSize=s.marker_px * 1.2,
                                   symbolBrush=pg.mkBrush(colour),
                                   symbolPen=pg.mkPen(t.background, width=1), antialias=True)
            # hovering a point shows its numbers (the tips are set with the data)
            line.scatter.setData(hoverable=True, tip=lambda x, y, data: str(data))
            whisker = pg.PlotCurveItem(pen=pg.mkPen(colour, width=max(1.5, s.line_px * 0.6)),
                                       connect="pairs", antialias=True)
            self.plot.addItem(whisker)
            self.plot.addItem(line)
            self.series[key] = (line, whisker)
        return self.series[key]

    @staticmethod
    def _symbol(kind: str, index: int) -> tuple[str, str]:
        """The first variant uses the kinds' symbols (▼ returned, ● ready), others their own."""
        if index == 0:
            return SYMBOLS["dispatch" if kind == "dispatch" else "ready"]
        return VARIANT_SYMBOLS[index % len(VARIANT_SYMBOLS)]

    def _update(self, run: TimingRun):
        t = self.style.colours
        variants = sweep_variants(run)
        name = sweep_name(run)
        self.plot.getAxis("bottom").setLabel(
            f"{name} (the swept size, log scale)",
            **{"font-size": f"{self.style.label_px}px", "color": t.foreground})
        sizes: set[int] = set()
        ys: list[float] = []
        entries = []
        for key in [k for k in self.series if k[0] not in variants]:  # an earlier run's
            for item in self.series.pop(key):
                self.plot.removeItem(item)
        for index, variant in enumerate(variants):
            points = sweep_points(run, variant)
            sizes.update(size for size, _ in points)
            x = np.log2([size for size, _ in points]) if points else np.array([])
            label = variant_label(variant) + ": " if len(variants) > 1 else ""
            for kind, med, lo, hi in (
                    ("ready", "complete_median", "complete_p10", "complete_p90"),
                    ("dispatch", "dispatch_median", "dispatch_p10", "dispatch_p90")):
                line, whisker = self._series(variant, kind, index)
                y = log_ms([getattr(p, med) for _, p in points])
                what_tip = "returned" if kind == "dispatch" else "ready"
                line.setData(x, y, data=[
                    f"{label}{name} = {size}: median {what_tip} after "
                    f"{fmt_ms(getattr(p, med))} (10-90%: {fmt_ms(getattr(p, lo))} to "
                    f"{fmt_ms(getattr(p, hi))}, {p.n} calls)" for size, p in points])
                wy = np.empty(2 * len(points))
                wy[0::2] = log_ms([getattr(p, lo) for _, p in points])
                wy[1::2] = log_ms([getattr(p, hi) for _, p in points])
                whisker.setData(np.repeat(x, 2), wy)
                ys += list(wy) + list(y)
                colour = t.dispatch if kind == "dispatch" else t.ready
                what = "call returned (median)" if kind == "dispatch" else "result ready (median)"
                dash = "╌╌" if kind == "dispatch" else "━━"
                entries.append((f"{dash}{self._symbol(kind, index)[1]}", colour, f"{label}{what}"))
        if variants:
            entries.append(("│", t.foreground, "10–90% of calls"))
        ordered = sorted(sizes)
        self.plot.getAxis("bottom").setTicks([[(float(np.log2(v)), str(v)) for v in ordered], []])
        if ordered:
            lo, hi = np.log2(ordered[0]), np.log2(ordered[-1])
            pad = max(0.3, 0.06 * (hi - lo))
            self.set_range(self.plot, x=(lo - pad, hi + pad))
        if ys:
            self.set_range(self.plot, y=(min(ys) - 0.3, max(ys) + 0.3))
        title = (f"Size sweep — {', '.join(variant_label(v) for v in variants)} as {name} grows"
                 if variants else "Size sweep: none measured yet (tick Size sweep to measure one)")
        if variants:
            info = run.info(variants[0])
            if info is not None:
                title = f"Size sweep — {info.call} as {name} grows"
        return title, entries, caption_sweep(run)
