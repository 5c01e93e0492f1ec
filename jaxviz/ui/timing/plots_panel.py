"""The four timing plots in tabs, drawn by :mod:`jaxviz.ui.plots` (the one implementation).

Each tab (a :class:`~jaxviz.ui.timing.page.PlotPage`) holds a figure of
:data:`jaxviz.ui.plots.FIGURES` in a pyqtgraph ``GraphicsView``, the figure's
one-sentence caption (computed from the run by the figure) in large type, and
a hover read-out: the numbers of the points under the mouse, also large enough
for the back row (the figures' own tooltips are small).

While a run streams, only the tab on screen is redrawn; the others are
redrawn when they are shown. A tab's figure (a few MB of pyqtgraph items) is
built when the tab is first shown or drawn, or when :attr:`PlotsPanel.figures`
is asked for (exports and tests): a user who never leaves the first tab never
pays for the other three.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QCheckBox, QTabWidget, QWidget
from shiboken6 import isValid

from jaxviz.model import Target, TraceRequest
from jaxviz.model.timing import TimingRequest, TimingRun
from jaxviz.ui.plots import FIGURES, DispatchFigure, Style, TimingFigure
from jaxviz.ui.plots.timeline import BAND_ABOVE, MARGIN_BELOW
from jaxviz.ui.theme import style
from jaxviz.ui.timing.page import (
    DATA_LINES,
    FRAME_LINES,
    LINES_PER_LANE,
    LINES_PER_ROW,
    PAINT_AFTER_MS,
    PlotPage,
)
from jaxviz.views.palette import theme

#: A plot page this many text lines tall (or columns wide) gets slide-sized text.
SLIDE_LINES, SLIDE_COLUMNS = 40, 66

#: Tab titles, in tab order.
TITLES = {"dispatch_vs_complete": "Dispatch vs completion", "timeline": "Timeline",
          "variants": "Variants", "sweep": "Size sweep"}

#: What a tab says before there is anything to draw.
EMPTY = {
    "dispatch_vs_complete": "Press Run: every measured call appears here — when it returned "
                            "(dispatch) and when its result was ready (completion).",
    "timeline": "Press Run with a pipeline depth above 0: calls dispatched back to back, then "
                "awaited in order, on one time axis with a lane per device.",
    "variants": "Press Run with several variants ticked: their steady-state calls side by "
                "side, and each variant's first call (tracing and compiling) apart.",
    "sweep": "Tick Size sweep and press Run: how the completion and the dispatch times "
             "grow with the size.",
}


class PlotsPanel(QTabWidget):
    """The timing plots of one run, live or replayed.

    Signals:
        kindShown(str): the user (or :meth:`show_kind`) brought a plot to the front.
    """

    kindShown = Signal(str)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("timing_plots")
        style.style_tabs(self.tabBar())
        self.setDocumentMode(True)
        self.run: TimingRun | None = None
        self.theme_name = "light"
        self.base_px = 16.0
        self.ui_px = 16.0
        self.log_time = True
        self.live = False
        self._at_once = False
        #: figures being built a step per event-loop turn (see :meth:`_on_tab`), by tab,
        #: with the style they are built in
        self._building: dict[str, tuple[TimingFigure, Style]] = {}
        self.pages: dict[str, PlotPage] = {}
        self._stale: set[str] = set()
        self._hovered: dict[int, list[str]] = {}
        self._resize_timer = QTimer(self)
        self._resize_timer.setSingleShot(True)
        self._resize_timer.setInterval(120)
        self._resize_timer.timeout.connect(self._on_resized)
        for kind in FIGURES:
            page = PlotPage(kind)
            page.resized.connect(self._resize_timer.start)
            self.pages[kind] = page
            self.addTab(page, TITLES.get(kind, kind))
        # the dispatch plot's own switch, over its top-left corner
        self.log_time_box = QCheckBox("Log time")
        self.log_time_box.setObjectName("timing_log_time")
        self.log_time_box.setChecked(True)
        self.log_time_box.setToolTip("Time on a log axis (dispatch and completion can differ "
                                     "1000×), or linear")
        self.log_time_box.toggled.connect(self.set_log_time)
        self.pages["dispatch_vs_complete"].footer_row.addWidget(
            self.log_time_box, 0, Qt.AlignmentFlag.AlignTop)
        self._style_pages()
        self._stale = set(self.pages)
        self.refresh()  # builds the figure of the tab on screen only
        self.currentChanged.connect(self._on_tab)

    # ------------------------------------------------------------ figures
    @property
    def figures(self) -> dict[str, TimingFigure]:
        """The figure on each tab, by kind, each drawn from the current run (the figures
        of tabs never shown are built, and stale ones redrawn, on this call)."""
        for kind in self.pages:
            if kind in self._stale or self.pages[kind].figure is None:
                self._draw(kind)
        return {kind: self._figure(kind) for kind in self.pages}

    def built(self) -> list[str]:
        """The tabs whose figure exists (built when first shown or drawn)."""
        return [kind for kind, page in self.pages.items() if page.figure is not None]

    def _figure(self, kind: str) -> TimingFigure:
        """The figure of tab ``kind``, built now if it was not yet (stale: not drawn)."""
        page = self.pages[kind]
        if page.figure is None:
            self._build_figure(kind)
        assert page.figure is not None
        return page.figure

    def _new_figure(self, kind: str, in_steps: bool = False) -> TimingFigure:
        page = self.pages[kind]
        options = {"log_time": self.log_time} if kind == "dispatch_vs_complete" else {}
        return FIGURES[kind](self.plot_style(), width=max(page.view.width(), 320),
                             show_caption=False, show_footer=False, in_steps=in_steps,
                             **options)

    def _build_figure(self, kind: str) -> None:
        """Build the figure of tab ``kind`` (finish the one being built in steps, if any)."""
        pending = self._building.pop(kind, None)
        figure = pending[0] if pending and pending[1] == self.plot_style() else None
        if figure is None:
            figure = self._new_figure(kind)
        figure.finish_building()
        self._attach(kind, figure)

    def _attach(self, kind: str, figure: TimingFigure) -> None:
        page = self.pages[kind]
        page.set_figure(figure, self.plot_style().colours.background)
        page.show_hover("")
        self._connect_hover(page)
        self._stale.add(kind)

    def plot_style(self) -> Style:
        """The plots' theme and type size on screen."""
        return Style(theme=theme(self.theme_name), base_px=self.base_px)

    def _build_figures(self) -> None:
        """Rebuild the figures built so far for a new style (the others are built in
        that style when first needed)."""
        self._hovered.clear()
        self._building.clear()  # (a figure in steps in the old style: started again)
        for kind in self.built():
            self._build_figure(kind)
        self._style_pages()
        self._stale = set(self.pages)
        self.refresh()

    def _style_pages(self) -> None:
        """The captions' fonts and colours (the caption belongs to its plot)."""
        self._fonts()
        t = self.plot_style().colours
        for page in self.pages.values():  # the caption belongs to its plot: same colours
            page.footer.setStyleSheet(
                f"QWidget#{page.footer.objectName()} {{ background: {t.background}; }} "
                f"QLabel, QCheckBox {{ color: {t.foreground}; background: {t.background}; }} "
                f"QCheckBox::indicator {{ width: 0.8em; height: 0.8em; border: 2px solid "
                f"{t.foreground}; border-radius: 2px; background: {t.background}; }} "
                f"QCheckBox::indicator:checked {{ background: {t.dispatch}; }}")

    def _effective_px(self) -> float:
        """The text size the plots use: the window's, or larger on a big page (full screen),
        where the plots become a slide and are sized like an export of that size."""
        page = self.pages[self.current_kind()]
        big = min(page.view.height() / SLIDE_LINES, page.view.width() / SLIDE_COLUMNS)
        return round(max(self.ui_px, big))

    def _on_resized(self) -> None:
        """Re-wrap the titles and legends of the plot on screen for its new width
        (and size the text for a full-screen page)."""
        if not self.isVisible() or not all(isValid(p.view) for p in self.pages.values()):
            return  # closed, or being torn down
        if abs(self._effective_px() - self.base_px) >= 1:
            self.base_px = self._effective_px()
            try:
                self._build_figures()
            except RuntimeError:
                # A view's C++ side went away under a pending resize (the panel is being
                # torn down while the timer fires): nothing left to re-wrap.
                if all(isValid(p.view) for p in self.pages.values()):
                    raise
            return
        page = self.pages[self.current_kind()]
        if page.figure is not None and abs(page.figure.width - max(page.view.width(), 320)) > 8:
            self._stale = set(self.pages)
            self._draw(page.kind)

    def _fonts(self) -> None:
        caption = QFont(self.font())
        caption.setPixelSize(max(12, round(self.base_px * 1.05)))
        hover = QFont(caption)
        hover.setBold(True)
        for page in self.pages.values():
            page.caption.setFont(caption)
            page.hover.setFont(hover)

    def set_theme(self, name: str) -> None:
        """``light`` or ``dark`` plots (exports use the same theme)."""
        theme(name)  # raises ValueError for an unknown theme
        if name != self.theme_name:
            self.theme_name = name
            self._build_figures()

    def set_base_px(self, px: float) -> None:
        """The plots' body text size in pixels (follows the window's zoom); pages large
        enough to be a slide use larger text."""
        self.ui_px = max(11.0, float(px))
        effective = self._effective_px()
        if abs(effective - self.base_px) > 0.5:
            self.base_px = effective
            self._build_figures()

    def set_log_time(self, log_time: bool) -> None:
        """Log (default) or linear time axis of the dispatch-vs-completion plot."""
        if log_time == self.log_time:
            return
        self.log_time = log_time
        self.log_time_box.setChecked(log_time)
        page = self.pages["dispatch_vs_complete"]
        figure = page.figure
        if figure is None:
            return  # built with the new axis when first shown
        assert isinstance(figure, DispatchFigure)
        figure.set_log_time(log_time)
        self._connect_hover(page)
        self._draw(page.kind)

    # ---------------------------------------------------------------- data
    def set_run(self, run: TimingRun | None, live: bool = False) -> None:
        """Show ``run`` on every tab; ``live`` while it streams in (the axes then move in
        steps, see :class:`~jaxviz.ui.plots.base.TimingFigure`), False once it ended."""
        ended = self.live and not live  # the streamed run's last, settled draw
        self.run = run
        self.live = live
        for page in self.pages.values():
            page.show_hover("")
        self._stale = set(self.pages)
        self.refresh(paint_later=ended)

    def refresh(self, everything: bool = False, paint_later: bool = False) -> None:
        """Redraw the tab on screen from the run (every tab with ``everything``); while a
        run streams in (or with ``paint_later``), its repaint comes a frame later."""
        self._stale = set(self.pages)
        kinds = list(self.pages) if everything else [self.current_kind()]
        if self.run is None:  # what each tab says before a run (its figure is built when shown)
            for kind, page in self.pages.items():
                page.caption.setText(EMPTY[kind])
        for kind in kinds:
            self._draw(kind)
            if self.live or paint_later:
                self.pages[kind].paint_later(PAINT_AFTER_MS)

    def undrawn(self) -> list[str]:
        """The built tabs not drawn from the current run yet (drawn when shown, or soon);
        tabs never shown have no figure yet and are built and drawn when shown."""
        return [k for k in self.pages if k in self._stale and self.pages[k].figure is not None]

    def draw_the_rest_soon(self) -> None:
        """Redraw the built tabs not on screen one per turn of the event loop (each is
        ready when shown, and no turn draws them all: a finished run drew every tab in
        one 50 ms call). Tabs never shown stay unbuilt until they are."""
        QTimer.singleShot(0, self, self._draw_one_undrawn)

    def _draw_one_undrawn(self) -> None:
        rest = [k for k in self.undrawn() if k != self.current_kind()]
        if rest:
            self._draw(rest[0])
            QTimer.singleShot(0, self, self._draw_one_undrawn)

    def _draw(self, kind: str) -> None:
        page = self.pages[kind]
        figure = self._figure(kind)
        self._stale.discard(kind)
        if self.run is None:
            figure.update(_EMPTY_RUN)
            page.caption.setText(EMPTY[kind])
            return
        figure.width = max(page.view.width(), 320)
        figure.live = page.live = self.live
        figure.update(self.run)
        page.set_min_plot_px(self._min_plot_px(kind), arrange=False)  # arranged below
        if kind == "sweep":
            self._connect_hover(page)  # the sweep adds a series per swept variant
        text = figure.caption() or EMPTY[kind]
        if page.caption.text() != text:
            page.caption.setText(text)
        page.arrange()

    def _min_plot_px(self, kind: str) -> int:
        """How short the plot may get before its page scrolls: enough for its lanes."""
        run, data = self.run, float(DATA_LINES)
        assert run is not None  # drawn for a run only
        if kind == "timeline":
            piped = run.calls_of(phase="pipelined")
            lanes = 2 + max(1, len({d.device for c in piped for d in c.devices}))
            # the y range spans the lanes, the band above them and the margin below
            data = LINES_PER_LANE * (lanes + BAND_ABOVE + MARGIN_BELOW)
        elif kind == "variants":
            data = max(0.8 * DATA_LINES, LINES_PER_ROW * len(run.variant_names()))
        return round((FRAME_LINES + data) * self.base_px)

    def current_kind(self) -> str:
        page = self.currentWidget()
        return page.kind if isinstance(page, PlotPage) else "dispatch_vs_complete"

    def show_kind(self, kind: str) -> None:
        """Bring tab ``kind`` to the front, drawn from the run on return (a tab the user
        clicks is built and drawn over the next turns of the event loop instead)."""
        self._at_once = True
        try:
            self.setCurrentWidget(self.pages[kind])
        finally:
            self._at_once = False
        if kind in self._stale or self.pages[kind].figure is None:
            self._draw(kind)  # (shown already, and built or drawn in turns from there)

    def _on_tab(self, _index: int) -> None:
        kind = self.current_kind()
        if self.pages[kind].figure is None and not self._at_once:
            # building a figure takes 30-100 ms: the tab comes to the front this turn, its
            # figure is built a plot per turn after and drawn from the run the turn after
            self.pages[kind].caption.setText("Drawing…")
            if kind not in self._building:
                self._building[kind] = (self._new_figure(kind, in_steps=True),
                                        self.plot_style())
            QTimer.singleShot(0, self, self._build_step)
        elif kind in self._stale or self.pages[kind].figure is None:
            self._draw(kind)
        self.kindShown.emit(kind)

    def _build_step(self) -> None:
        """One step of the figure of the tab on screen; then, a turn later, its drawing."""
        kind = self.current_kind()
        pending = self._building.get(kind)
        if pending is None or self.pages[kind].figure is not None:
            return  # built meanwhile (asked for), or the user went on to another tab
        figure, style = pending
        if style != self.plot_style():  # the theme or size changed meanwhile
            self._building[kind] = (self._new_figure(kind, in_steps=True), self.plot_style())
        elif next(figure.steps, StopIteration) is StopIteration:
            # built: put in the scene this turn (every item joins it), drawn the next one
            del self._building[kind]
            self._attach(kind, figure)
            QTimer.singleShot(0, self, self._draw_shown)
            return
        QTimer.singleShot(0, self, self._build_step)

    def _draw_shown(self) -> None:
        kind = self.current_kind()
        if kind in self._stale or self.pages[kind].figure is None:
            self._draw(kind)

    # --------------------------------------------------------------- hover
    def _connect_hover(self, page: PlotPage) -> None:
        """Show the numbers of hovered points in the page's read-out label."""
        if page.figure is None:
            return
        for plot in page.figure.plots:
            for item in list(plot.items):
                scatter = item.scatter if isinstance(item, pg.PlotDataItem) else item
                if not isinstance(scatter, pg.ScatterPlotItem) or \
                        not scatter.opts.get("hoverable") or \
                        getattr(scatter, "_jaxviz_hover", False):
                    continue
                scatter._jaxviz_hover = True
                scatter.sigHovered.connect(
                    lambda item, points, ev, page=page: self._on_hover(page, item, points, ev))

    def _on_hover(self, page: PlotPage, item: pg.ScatterPlotItem, points, event) -> None:
        tip = item.opts.get("tip")
        texts = [str(tip(x=p.pos().x(), y=p.pos().y(), data=p.data())) if tip else
                 str(p.data()) for p in list(points)[:3]]
        if texts:
            self._hovered[id(item)] = texts
        else:
            self._hovered.pop(id(item), None)
        shown = [t for lines in self._hovered.values() for t in lines if t and t != "None"]
        at = None
        if shown and not event.isExit():  # an exit event has no position
            at = page.view.mapFromScene(event.scenePos())
        page.show_hover("\n".join(dict.fromkeys(shown)), at)

    def hover_text(self, kind: str | None = None) -> str:
        """The read-out under a plot: the numbers of the points under the mouse ('' if none)."""
        page = self.pages[kind or self.current_kind()]
        return page.hover_numbers


#: What the figures draw before there is a run: empty axes.
_EMPTY_RUN = TimingRun(request=TimingRequest(trace=TraceRequest(target=Target("", "", ""),
                                                                args="")))
