"""The four timing plots in tabs, drawn by :mod:`jaxviz.ui.plots` (the one implementation).

Each tab holds a figure of :data:`jaxviz.ui.plots.FIGURES` in a pyqtgraph
``GraphicsView``, the figure's one-sentence caption (computed from the run by
the figure) in large type underneath, and a hover read-out: the numbers of the
point under the mouse, also large enough for the back row (the figures' own
tooltips are small).

While a run streams, only the tab on screen is redrawn; the others are
redrawn when they are shown.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QLabel, QSizePolicy, QTabWidget, QVBoxLayout, QWidget

from jaxviz.model import Target, TraceRequest
from jaxviz.model.timing import TimingRequest, TimingRun
from jaxviz.ui.plots import FIGURES, Style, TimingFigure
from jaxviz.ui.plots.qt_guard import protect_singletons
from jaxviz.ui.plots.style import theme as plot_theme

#: Tab titles, in tab order.
TITLES = {"dispatch_vs_complete": "Dispatch vs completion", "timeline": "Pipeline timeline",
          "variants": "Variants side by side", "sweep": "Size sweep"}

#: What the hover read-out says when no point is under the mouse.
HOVER_HINT = "Point at a marker to read its numbers."

#: What a tab says before there is anything to draw.
EMPTY = {
    "dispatch_vs_complete": "Press Run: every measured call appears here — when it returned "
                            "(dispatch) and when its result was ready (completion).",
    "timeline": "Press Run with a pipeline depth above 0: calls dispatched back to back, then "
                "awaited in order, on one time axis with a lane per device.",
    "variants": "Press Run with several variants ticked: their steady-state calls side by "
                "side, and each variant's first call (tracing and compiling) apart.",
    "sweep": "Tick Size sweep and press Run: dispatch stays flat while completion grows "
             "with the size.",
}


class PlotPage(QWidget):
    """One tab: the figure's view, its caption and the hover read-out."""

    def __init__(self, kind: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.kind = kind
        self.setObjectName(f"timing_page_{kind}")
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        box.setSpacing(2)
        self.view = pg.GraphicsView()
        self.view.setObjectName(f"timing_plot_{kind}")
        self.view.setAntialiasing(True)
        self.view.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.view.setMinimumHeight(160)
        box.addWidget(self.view, 1)
        self.hover = QLabel("")
        self.hover.setObjectName(f"timing_hover_{kind}")
        self.caption = QLabel("")
        self.caption.setObjectName(f"timing_caption_{kind}")
        for label in (self.hover, self.caption):
            label.setWordWrap(True)
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            label.setContentsMargins(8, 0, 8, 2)
        box.addWidget(self.hover)
        box.addWidget(self.caption)
        self.figure: TimingFigure | None = None
        self.hover_numbers = ""
        self.show_hover("")

    def show_hover(self, text: str) -> None:
        """The hovered points' numbers, or a muted hint when there are none."""
        self.hover_numbers = text
        self.hover.setText(text or HOVER_HINT)
        self.hover.setStyleSheet("" if text else "color: palette(placeholder-text);")
        font = self.hover.font()
        font.setBold(bool(text))
        self.hover.setFont(font)

    def set_figure(self, figure: TimingFigure, background: str) -> None:
        self.view.setBackground(background)
        self.view.setCentralItem(figure.layout)
        self.figure = figure


class PlotsPanel(QTabWidget):
    """The timing plots of one run, live or replayed.

    Signals:
        kindShown(str): the user (or :meth:`show_kind`) brought a plot to the front.
    """

    kindShown = Signal(str)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        protect_singletons()  # PySide6 6.12 on CPython 3.11: see jaxviz.ui.plots.qt_guard
        self.setObjectName("timing_plots")
        self.setDocumentMode(True)
        self.run: TimingRun | None = None
        self.theme_name = "light"
        self.base_px = 16.0
        self.log_time = True
        self.pages: dict[str, PlotPage] = {}
        self._stale: set[str] = set()
        self._hovered: dict[int, list[str]] = {}
        for kind in FIGURES:
            page = PlotPage(kind)
            self.pages[kind] = page
            self.addTab(page, TITLES.get(kind, kind))
        self._build_figures()
        self.currentChanged.connect(self._on_tab)

    # ------------------------------------------------------------ figures
    @property
    def figures(self) -> dict[str, TimingFigure]:
        """The figure on each tab, by kind."""
        return {kind: page.figure for kind, page in self.pages.items()}

    def plot_style(self) -> Style:
        """The plots' theme and type size on screen."""
        return Style(theme=plot_theme(self.theme_name), base_px=self.base_px)

    def _build_figures(self) -> None:
        style = self.plot_style()
        self._hovered.clear()
        for kind, page in self.pages.items():
            options = {"log_time": self.log_time} if kind == "dispatch_vs_complete" else {}
            figure = FIGURES[kind](style, width=max(page.view.width(), 600), show_caption=False,
                                   show_footer=False, **options)
            page.set_figure(figure, style.theme.background)
            page.show_hover("")
            self._connect_hover(page)
        self._fonts()
        self._stale = set(self.pages)
        self.refresh()

    def _fonts(self) -> None:
        caption = QFont(self.font())
        caption.setPixelSize(max(12, round(self.base_px * 1.05)))
        for page in self.pages.values():
            page.caption.setFont(caption)
            page.hover.setFont(caption)
            page.show_hover(page.hover_numbers)

    def set_theme(self, name: str) -> None:
        """``light`` or ``dark`` plots (exports use the same theme)."""
        plot_theme(name)  # raises ValueError for an unknown theme
        if name != self.theme_name:
            self.theme_name = name
            self._build_figures()

    def set_base_px(self, px: float) -> None:
        """The plots' body text size in pixels (follows the window's zoom)."""
        px = max(11.0, float(px))
        if abs(px - self.base_px) > 0.5:
            self.base_px = px
            self._build_figures()

    def set_log_time(self, log_time: bool) -> None:
        """Log (default) or linear time axis of the dispatch-vs-completion plot."""
        if log_time == self.log_time:
            return
        self.log_time = log_time
        page = self.pages["dispatch_vs_complete"]
        page.figure.set_log_time(log_time)
        self._connect_hover(page)
        self._draw(page.kind)

    # ---------------------------------------------------------------- data
    def set_run(self, run: TimingRun | None) -> None:
        """Show ``run`` (live or replayed) on every tab."""
        self.run = run
        for page in self.pages.values():
            page.show_hover("")
        self._stale = set(self.pages)
        self.refresh()

    def refresh(self, everything: bool = False) -> None:
        """Redraw the tab on screen from the run (every tab with ``everything``)."""
        self._stale = set(self.pages)
        kinds = list(self.pages) if everything or self.run is None else [self.current_kind()]
        for kind in kinds:
            self._draw(kind)

    def _draw(self, kind: str) -> None:
        page = self.pages[kind]
        self._stale.discard(kind)
        if self.run is None:
            page.figure.update(_EMPTY_RUN)
            page.caption.setText(EMPTY[kind])
            return
        page.figure.width = max(page.view.width(), 600)
        page.figure.update(self.run)
        if kind == "sweep":
            self._connect_hover(page)  # the sweep adds a series per swept variant
        text = page.figure.caption()
        page.caption.setText(text if text else EMPTY[kind])

    def current_kind(self) -> str:
        page = self.currentWidget()
        return page.kind if isinstance(page, PlotPage) else "dispatch_vs_complete"

    def show_kind(self, kind: str) -> None:
        self.setCurrentWidget(self.pages[kind])

    def _on_tab(self, _index: int) -> None:
        kind = self.current_kind()
        if kind in self._stale:
            self._draw(kind)
        self.kindShown.emit(kind)

    # --------------------------------------------------------------- hover
    def _connect_hover(self, page: PlotPage) -> None:
        """Show the numbers of hovered points in the page's read-out label."""
        for plot in page.figure.plots:
            for item in list(plot.items):
                scatter = item.scatter if isinstance(item, pg.PlotDataItem) else item
                if not isinstance(scatter, pg.ScatterPlotItem) or \
                        not scatter.opts.get("hoverable") or \
                        getattr(scatter, "_jaxviz_hover", False):
                    continue
                scatter._jaxviz_hover = True
                scatter.sigHovered.connect(
                    lambda item, points, _ev, page=page: self._on_hover(page, item, points))

    def _on_hover(self, page: PlotPage, item: pg.ScatterPlotItem, points) -> None:
        tip = item.opts.get("tip")
        texts = [str(tip(x=p.pos().x(), y=p.pos().y(), data=p.data())) if tip else
                 str(p.data()) for p in list(points)[:3]]
        if texts:
            self._hovered[id(item)] = texts
        else:
            self._hovered.pop(id(item), None)
        shown = [t for lines in self._hovered.values() for t in lines
                 if t and t != "None"]
        page.show_hover(" · ".join(dict.fromkeys(shown)))

    def hover_text(self, kind: str | None = None) -> str:
        """The read-out under a plot: the numbers of the points under the mouse ('' if none)."""
        page = self.pages[kind or self.current_kind()]
        return page.hover_numbers


#: What the figures draw before there is a run: empty axes.
_EMPTY_RUN = TimingRun(request=TimingRequest(trace=TraceRequest(target=Target("", "", ""),
                                                                args="")))
