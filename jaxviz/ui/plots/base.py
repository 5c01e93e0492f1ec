"""The frame every timing figure shares: title, plots, legend, caption, footer.

A :class:`TimingFigure` owns a :class:`pyqtgraph.GraphicsLayout` (put it in a
``GraphicsView``/``GraphicsLayoutWidget`` to show it, or render it with
:mod:`jaxviz.ui.plots.render`). :meth:`TimingFigure.update` redraws it from a
:class:`~jaxviz.model.timing.TimingRun` -- cheap enough to call for every
streamed record -- reusing its plot items, so live views do not flicker.

Sizes and colours: a :class:`Style` (a theme of :mod:`jaxviz.views.palette`
and type sizes for one output size); marker symbols: :data:`SYMBOLS`.

Log time axes are drawn in log10 space by the figures themselves with
:class:`LogMsAxis` labelling the ticks in plain milliseconds ("0.05", "5",
"200"), which reads better on a slide than powers of ten.
"""

from __future__ import annotations

import html
import math
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import pyqtgraph as pg
from PySide6 import QtGui, QtWidgets

from jaxviz.model.timing import TimingRun
from jaxviz.views.palette import THEMES, PlotColours, Theme, theme
from jaxviz.views.timing.stats import header_line

#: Marker symbols of the series (pyqtgraph names) and the glyph the legend shows.
SYMBOLS = {"dispatch": ("t", "▼"), "ready": ("o", "●"), "device": ("d", "◆"),
           "call": ("s", "■")}

#: Symbols distinguishing variants when several share a plot (sweep).
VARIANT_SYMBOLS = [("o", "●"), ("s", "■"), ("d", "◆"), ("t1", "▲"), ("star", "★"),
                   ("p", "⬟")]


#: The plots' colours in the light and dark themes.
LIGHT, DARK = THEMES["light"].plots, THEMES["dark"].plots


#: The smallest text of an exported plot, in points on the slide it fills (the usual
#: floor for text read from the back of a lecture room).
SLIDE_MIN_PT = 18.0
#: The height of a PowerPoint/Keynote/Beamer-169 slide, 16:9 (13.33 x 7.5 in) and 4:3
#: (10 x 7.5 in) alike, and the width of the narrower (4:3) one, in points.
SLIDE_HEIGHT_PT, NARROW_SLIDE_WIDTH_PT = 7.5 * 72, 10 * 72
#: The smallest of the text factors of :class:`Style` (its tick labels).
SMALLEST = 0.85


def slide_px_per_pt(width: int, height: int) -> float:
    """Pixels per point of a ``width`` x ``height`` image filling a slide.

    A slide is 7.5 in tall (16:9 and 4:3 alike), so ``height / 540`` pixels make a
    point; an image narrower than 4:3 fills a 4:3 slide's width instead (10 in:
    ``width / 720``). At 1920x1080: 1920 px over a 13.33 in slide is 144 px/in, and a
    point is 1/72 in, so 2 px per point (18 pt = 36 px).
    """
    return min(height / SLIDE_HEIGHT_PT, width / NARROW_SLIDE_WIDTH_PT)


@dataclass(frozen=True)
class Style:
    """A theme (:mod:`jaxviz.views.palette`) plus the type and line sizes for one output size.

    ``base_px`` is the body text size in pixels; every other size derives
    from it.
    """

    theme: Theme = THEMES["light"]
    base_px: float = 14.0

    @property
    def colours(self) -> PlotColours:
        """The plot colours of the theme."""
        return self.theme.plots

    @classmethod
    def for_size(cls, width: int, height: int, theme_name: str = "light",
                 font_scale: float = 1.0) -> Style:
        """Sizes for a ``width`` x ``height`` image shown as a whole slide.

        The smallest text that carries the plot -- tick labels, legend, caption --
        is :data:`SLIDE_MIN_PT` (18 pt) on the slide, times ``font_scale``: see
        :func:`slide_px_per_pt` (at 1920x1080 a point is 2 px, so 36 px text).
        """
        smallest = SLIDE_MIN_PT * slide_px_per_pt(width, height) * font_scale
        return cls(theme=theme(theme_name), base_px=max(10.0 / 0.85, smallest / SMALLEST))

    @classmethod
    def screen(cls, theme_name: str = "light") -> Style:
        """Sizes for an on-screen view."""
        return cls(theme=theme(theme_name), base_px=14.0)

    def px(self, factor: float) -> int:
        return max(8, round(self.base_px * factor + 1e-6))

    @property
    def title_px(self) -> int:
        return self.px(1.3)

    @property
    def label_px(self) -> int:
        return self.px(1.0)

    @property
    def tick_px(self) -> int:
        return self.px(0.85)

    @property
    def legend_px(self) -> int:
        return self.px(0.9)

    @property
    def caption_px(self) -> int:
        return self.px(0.9)

    @property
    def footer_px(self) -> int:
        return self.px(0.6)

    @property
    def line_px(self) -> float:
        return max(2.0, self.base_px / 7.0)

    @property
    def marker_px(self) -> int:
        return max(8, round(self.base_px * 0.6))

    @property
    def small_marker_px(self) -> int:
        return max(5, round(self.base_px * 0.32))


#: Smallest time drawn on a log axis (ms): a measured 0 ns would be -inf.
MIN_MS = 1e-4


def log_ms(values_ms) -> np.ndarray:
    """log10 of milliseconds, clipped at :data:`MIN_MS`."""
    return np.log10(np.maximum(np.asarray(values_ms, dtype=float), MIN_MS))


def font(px: int, bold: bool = False) -> QtGui.QFont:
    f = QtGui.QFont()
    f.setPixelSize(px)
    f.setBold(bold)
    return f


class FittedLabelAxis(pg.AxisItem):
    """An axis whose label is the longest of :attr:`label_choices` that fits along it (a
    short plot in a docked tab gets ``ms`` rather than a label cut at both ends)."""

    label_choices: tuple[str, ...] = ()

    def fitted_label(self) -> str:
        """The label that fits the axis's length now."""
        choices = self.label_choices
        if not choices:
            return str(self.labelText)
        px = str(self.labelStyle.get("font-size", "12px")).removesuffix("px")
        font = QtGui.QFont()
        font.setPixelSize(max(1, round(float(px))))
        metrics = QtGui.QFontMetricsF(font)
        room = (self.size().height() if self.orientation in ("left", "right")
                else self.size().width())
        return next((c for c in choices if metrics.horizontalAdvance(c) + 6 <= room),
                    choices[-1])

    def resizeEvent(self, ev=None):  # noqa: N802 - Qt naming
        if self.label_choices:
            wanted = self.fitted_label()
            if wanted != self.labelText:
                self.labelText = wanted
                self._updateLabel()
        super().resizeEvent(ev)


class LogMsAxis(FittedLabelAxis):
    """An axis over log10(ms) values whose ticks read as plain milliseconds."""

    def tickValues(self, minVal: float, maxVal: float, size: float):  # noqa: N802 - Qt naming
        lo, hi = sorted((minVal, maxVal))
        if not (math.isfinite(lo) and math.isfinite(hi)) or hi - lo > 12:
            return []
        decades = [float(d) for d in range(math.floor(lo), math.ceil(hi) + 1) if lo <= d <= hi]
        span = hi - lo
        minor = []
        steps = (2, 5) if span > 1.2 else (2, 3, 5)
        if span < 3:
            for d in range(math.floor(lo) - 1, math.ceil(hi) + 1):
                minor += [d + math.log10(k) for k in steps if lo <= d + math.log10(k) <= hi]
        if span < 0.6:  # less than a decade in view: linear-looking ticks
            a, b = 10 ** lo, 10 ** hi
            step = 10 ** math.floor(math.log10((b - a) / 3))
            for mult in (1, 2, 5):
                if (b - a) / (step * mult) <= 6:
                    step *= mult
                    break
            vals = np.arange(math.ceil(a / step) * step, b, step)
            return [(1.0, [float(np.log10(v)) for v in vals if v > 0])]
        return [(1.0, decades), (0.3, minor)]

    def tickStrings(self, values, scale, spacing):  # noqa: N802 - Qt naming
        return [tick_text(10 ** v) for v in values]


def tick_text(value: float) -> str:
    """A tick label without exponent or trailing zeros: 0.05, 1, 20, 1000."""
    return np.format_float_positional(float(f"{value:.3g}"), trim="-")


class PlainAxis(FittedLabelAxis):
    """A linear axis with major ticks only (a quiet grid for slides).

    With ``integer``, ticks fall on whole numbers only (call numbers).
    """

    def __init__(self, orientation: str, integer: bool = False, **kwargs):
        super().__init__(orientation, **kwargs)
        self.integer = integer

    def tickValues(self, minVal: float, maxVal: float, size: float):  # noqa: N802 - Qt naming
        levels = super().tickValues(minVal, maxVal, size)[:1]
        if self.integer and levels and levels[0][0] < 1:
            lo, hi = sorted((minVal, maxVal))
            return [(1.0, [float(v) for v in range(math.ceil(lo), math.floor(hi) + 1)])]
        return levels

    def tickStrings(self, values, scale, spacing):  # noqa: N802 - Qt naming
        if self.integer:
            return [str(int(round(v))) for v in values]
        return super().tickStrings(values, scale, spacing)


class CategoryAxis(pg.AxisItem):
    """An axis whose ticks are labels at integer positions."""

    def __init__(self, orientation: str, **kwargs):
        super().__init__(orientation, **kwargs)
        self.labels: list[str] = []

    def set_labels(self, labels: list[str]) -> None:
        self.labels = list(labels)
        self.setTicks([[(float(i), text) for i, text in enumerate(self.labels)], []])


def style_axis(axis: pg.AxisItem, style: Style, label: str | tuple[str, ...] = "") -> None:
    """Fonts, pens and label of an axis, sized for the style (several labels, longest
    first: the longest that fits the axis, see :class:`FittedLabelAxis`)."""
    if isinstance(label, tuple):
        if isinstance(axis, FittedLabelAxis):
            axis.label_choices = label
        label = label[0]
    t = style.colours
    axis.enableAutoSIPrefix(False)
    axis.setPen(pg.mkPen(t.foreground, width=max(1.0, style.line_px / 2)))
    axis.setTextPen(pg.mkPen(t.foreground))
    axis.setTickFont(font(style.tick_px))
    axis.setStyle(tickTextOffset=max(4, style.px(0.3)), tickLength=-max(5, style.px(0.3)),
                  autoExpandTextSpace=True)
    if axis.orientation in ("bottom", "top"):
        axis.setHeight(None)
    if label:
        axis.setLabel(label, **{"font-size": f"{style.label_px}px", "color": t.foreground})


def grid_alpha(style: Style) -> float:
    """Grid lines quiet enough not to compete with the data."""
    return 0.18 if style.theme.name == "light" else 0.3


def make_plot(style: Style, left: str | tuple[str, ...] = "", bottom: str = "",
              log_left: bool = False,
              category_left: bool = False, log_bottom: bool = False,
              integer_bottom: bool = False, grid: bool = True) -> pg.PlotItem:
    """A themed :class:`pyqtgraph.PlotItem` (no menu); ``log_*`` axes show log10(ms)."""
    axes = {"bottom": LogMsAxis("bottom") if log_bottom
            else PlainAxis("bottom", integer=integer_bottom)}
    if log_left:
        axes["left"] = LogMsAxis("left")
    elif category_left:
        axes["left"] = CategoryAxis("left")
    else:
        axes["left"] = PlainAxis("left")
    # no context menus: built and then dropped they cost ~15 ms and ~1 MB per plot
    plot = pg.PlotItem(axisItems=axes, enableMenu=False)
    plot.setMenuEnabled(False)
    plot.hideButtons()
    style_axis(plot.getAxis("left"), style, left)
    style_axis(plot.getAxis("bottom"), style, bottom)
    if grid:
        plot.showGrid(x=True, y=True, alpha=grid_alpha(style))
    return plot


def legend_html(entries: list[tuple[str, str, str]], style: Style,
                width_px: float | None = None) -> str:
    """Legend entries ``(glyph, colour, text)`` as HTML: one line, or as many lines as
    needed to fit ``width_px`` (entries are never split)."""
    parts = [f"<span style='color:{colour}'>{glyph}</span>&nbsp;{html.escape(text)}"
             for glyph, colour, text in entries]
    gap = "&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;"
    if width_px is None or not parts:
        return gap.join(parts)
    metrics = QtGui.QFontMetricsF(font(style.legend_px))
    space = metrics.horizontalAdvance(" " * 5)
    lines: list[list[str]] = [[]]
    used = 0.0
    for (glyph, _colour, text), part in zip(entries, parts):
        width = metrics.horizontalAdvance(f"{glyph} {text}") + space
        if lines[-1] and used + width > width_px:
            lines.append([])
            used = 0.0
        lines[-1].append(part)
        used += width
    return "<br>".join(gap.join(line) for line in lines)


def wrap(text: str, width_px: float, font_px: float) -> str:
    """Escape and wrap text to fit ``width_px`` (lines joined with ``<br>``)."""
    chars = max(20, int(width_px / (font_px * 0.53)))
    return "<br>".join(html.escape(line) for line in textwrap.wrap(text, chars))


class TimingFigure:
    """Base of the timing figures; subclasses fill :meth:`_build` and :meth:`_update`.

    Args:
        style: theme and sizes (default: on-screen light theme).
        width: the width the figure is laid out for, to wrap the caption.
        show_caption: draw the one-sentence caption under the plots (a view may
            show :meth:`caption` itself instead).
        show_footer: draw where and when the run was recorded.
        in_steps: build the plots later, a plot (10-25 ms of pyqtgraph items) per
            ``next(figure.steps)``; the figure is ready when :attr:`steps` is exhausted
            (a view builds a tab's figure over a few event-loop turns).

    ``live`` is set by a view while a run streams in: a figure may then keep its axes
    still (ranges that only grow, in coarse steps, or that already span the calls to
    come), so that a redraw need not regenerate every tick; the settled figure, drawn
    with ``live`` False, is the same as one drawn from the finished run at once.
    """

    kind = ""

    def __init__(self, style: Style | None = None, width: int = 1280,
                 show_caption: bool = True, show_footer: bool = True, in_steps: bool = False):
        self.style = style or Style.screen()
        self.width = width
        self.show_caption = show_caption
        self.show_footer = show_footer
        self.layout = pg.GraphicsLayout()
        pad = self.style.px(0.5)
        self.layout.setContentsMargins(pad, pad * 0.6, pad * 1.4, pad * 0.6)
        self.layout.setSpacing(self.style.px(0.25))
        fg = self.style.colours.foreground
        self.title = pg.LabelItem("", color=fg, size=f"{self.style.title_px}px", bold=True)
        self.layout.addItem(self.title, row=0, col=0)
        self.body = self.layout.addLayout(row=1, col=0)
        self.body.setSpacing(self.style.px(0.8))
        self.legend = pg.LabelItem("", color=fg, size=f"{self.style.legend_px}px")
        self.layout.addItem(self.legend, row=2, col=0)
        self.caption_label = pg.LabelItem("", color=fg, size=f"{self.style.caption_px}px")
        self.footer = pg.LabelItem("", color=self.style.colours.muted,
                                   size=f"{self.style.footer_px}px")
        if show_caption:
            self.layout.addItem(self.caption_label, row=3, col=0)
        if show_footer:
            self.layout.addItem(self.footer, row=4, col=0)
        self._caption = ""
        #: the legend entries and width the legend's text was made for
        self._legend_key: tuple | None = None
        self.plots: list[pg.PlotItem] = []
        self.live = False
        #: the rest of the build, in steps (empty once built)
        self.steps: Iterator[None] = self._building()
        if not in_steps:
            self.finish_building()

    def _building(self) -> Iterator[None]:
        steps = self._build()
        if steps is not None:
            yield from steps

    def finish_building(self) -> None:
        """Build what :attr:`steps` has not built yet, now."""
        for _ in self.steps:
            pass

    # -- subclass API ------------------------------------------------------- #

    def _build(self) -> Iterator[None] | None:
        """Build the plots; a generator may yield after each plot (see ``in_steps``)."""
        raise NotImplementedError

    def _update(self, run: TimingRun) -> tuple[str, list[tuple[str, str, str]], str]:
        """Redraw the plots; return ``(title, legend entries, caption)``."""
        raise NotImplementedError

    # -- public ------------------------------------------------------------- #

    def update(self, run: TimingRun) -> None:
        """Redraw everything from ``run`` (call again whenever records arrive)."""
        self._cache_still_items(self.live)
        title, entries, caption = self._update(run)
        self._caption = caption
        # During a run this is called for every batch of records: a label whose text is
        # unchanged is left alone (setText relays out the whole figure).
        self._set_label(self.title, wrap(title, self.width * 0.95, self.style.title_px * 1.1))
        legend_key = (tuple(entries), self.width)
        if legend_key != self._legend_key:  # (measured in its font: 0.5-1 ms a time)
            self._legend_key = legend_key
            self._set_label(self.legend, legend_html(entries, self.style, self.width * 0.95))
        if self.show_caption:
            self._set_label(self.caption_label,
                            wrap(caption, self.width * 0.92, self.style.caption_px))
        if self.show_footer:
            self._set_label(self.footer,
                            wrap(header_line(run), self.width * 0.95, self.style.footer_px))

    def still_items(self) -> list[QtWidgets.QGraphicsItem]:
        """What a live update seldom changes and is cheap to keep as a pixmap: the
        dashed median lines (a few pixels high)."""
        return [item for plot in self.plots for item in plot.items
                if isinstance(item, pg.InfiniteLine)]

    def _cache_still_items(self, live: bool) -> None:
        """While a run streams in, the still items are drawn from pixmaps of themselves.

        A dashed line across the plot is slow to stroke, and a live update repaints the
        data area it crosses: cached, a repaint copies it. Once the run has ended they
        are drawn directly again, so the settled figure is painted exactly as one drawn
        at once.

        The axes are not cached: an axis's grid lines cover the data area, so its pixmap
        is as big as the plot (1.3-1.6 MB each at 1920x1080; 4.5 MB more at the peak of
        a run, measured with ``bench_gui --only timing``), and :meth:`prepare_paint`
        already makes their pictures in the redraw's turn, so a repaint only plays them.
        """
        mode = (QtWidgets.QGraphicsItem.CacheMode.DeviceCoordinateCache if live
                else QtWidgets.QGraphicsItem.CacheMode.NoCache)
        for item in self.still_items():
            if item.cacheMode() != mode:
                item.setCacheMode(mode)

    def prepare_paint(self) -> bool:
        """Make now what the next paint of the axes would make first: the picture of each
        axis whose range or size changed (its grid, ticks and tick labels laid out:
        1-2 ms an axis), exactly as :meth:`pyqtgraph.AxisItem.paint` makes it. A view
        that repaints the figure a turn later (:meth:`~jaxviz.ui.timing.page.PlotPage.
        paint_later`) calls this in the redraw's turn, so the paint's turn only plays the
        pictures; a later change of range or size drops them again (pyqtgraph), so what
        is painted is never stale. Returns whether it made any."""
        made = False
        for plot in self.plots:
            for side in ("left", "bottom"):
                axis = plot.getAxis(side)
                if axis.picture is None and axis.isVisible():
                    picture = QtGui.QPicture()
                    painter = QtGui.QPainter(picture)
                    try:
                        if axis.style["tickFont"]:
                            painter.setFont(axis.style["tickFont"])
                        specs = axis.generateDrawSpecs(painter)
                        if specs is not None:
                            axis.drawPicture(painter, *specs)
                    finally:
                        painter.end()
                    axis.picture = picture
                    made = True
        return made

    @staticmethod
    def set_range(plot: pg.PlotItem, x: tuple[float, float] | None = None,
                  y: tuple[float, float] | None = None) -> None:
        """Set the plot's view range (no padding) where it differs from the one shown: the
        same range set again still relays out the axes and recomputes auto-ranges."""
        box = plot.getViewBox()
        shown, auto = box.viewRange(), box.state["autoRange"]
        if x is not None and (auto[0] or not np.allclose(shown[0], x, rtol=0, atol=1e-9)):
            plot.setXRange(*x, padding=0)
        if y is not None and (auto[1] or not np.allclose(shown[1], y, rtol=0, atol=1e-9)):
            plot.setYRange(*y, padding=0)

    @staticmethod
    def _set_label(label: pg.LabelItem, text: str) -> None:
        if label.text != text:
            label.setText(text)

    def caption(self) -> str:
        """The one-sentence caption of the last :meth:`update`."""
        return self._caption
