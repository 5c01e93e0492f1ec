"""One tab of the timing plots: a figure's view, its caption (and the plot's own
switches) under or beside it, and the hover read-out next to the mouse.

A page keeps its plot readable: below a minimum height (enough for the title,
legend, axis and the data -- a lane per device in the timeline) the page
scrolls instead of squashing the plot; on a wide page too short for plot and
caption, the caption moves beside the plot.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QPoint, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QBoxLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from jaxviz.ui.plots import TimingFigure
from jaxviz.ui.text.plain import plain

#: How short a plot may get before its page scrolls, in lines of its text: the title,
#: legend and x axis, plus the data area (a lane per device, two lines per variant). A
#: lane's label is a line of text: with less than about 1.5 lines a lane, neighbouring
#: labels ("result ready", "device 0") run into each other.
FRAME_LINES, DATA_LINES = 7, 10
LINES_PER_LANE, LINES_PER_ROW = 1.6, 2.0

#: How long after a run's redraw of a plot its repaint comes (ms): a
#: frame later, so the redraw and the repaint never add up in one turn of the event loop
#: (see :meth:`PlotPage.paint_later`).
PAINT_AFTER_MS = 16

#: Pages at least this wide (px) put the caption beside a plot that would not fit above it.
SIDE_CAPTION_WIDTH = 1100


class PlotPage(QWidget):
    """One tab: the figure's view, its caption and the hover read-out.

    Signals:
        resized: the page changed size (the figure re-wraps its title and legend).
    """

    resized = Signal()

    def __init__(self, kind: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.kind = kind
        self.setObjectName(f"timing_page_{kind}")
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        # A short dock scrolls the page rather than squashing the plot to nothing.
        self.scroll_area = QScrollArea()
        self.scroll_area.setObjectName(f"timing_scroll_{kind}")
        self.scroll_area.setWidgetResizable(True)
        self.scroll_area.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        outer.addWidget(self.scroll_area)
        inner = QWidget()
        self.scroll_area.setWidget(inner)
        self.box = box = QBoxLayout(QBoxLayout.Direction.TopToBottom, inner)
        box.setContentsMargins(0, 0, 0, 0)
        box.setSpacing(0)
        self.min_plot_px = round((FRAME_LINES + DATA_LINES) * 16)
        self.view = pg.GraphicsView()
        self.view.setObjectName(f"timing_plot_{kind}")
        self.view.setAntialiasing(True)
        # Ignored: the view takes what is left (its size hint follows the scene, not the page)
        self.view.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Ignored)
        self.view.setMinimumHeight(self.min_plot_px)
        box.addWidget(self.view, 1)
        # the hovered points' numbers, in large type next to the mouse (tooltips are small)
        self.hover = plain(QLabel("", self.view))  # variant names from a recording
        self.hover.setObjectName(f"timing_hover_{kind}")
        self.hover.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents, True)
        self.hover.setStyleSheet("QLabel { background: rgba(255, 255, 240, 235); color: #111; "
                                 "border: 1px solid #888; border-radius: 4px; padding: 4px 8px; }")
        self.hover.hide()
        self.caption = plain(QLabel(""))  # the plot's sentence names variants and hosts
        self.caption.setObjectName(f"timing_caption_{kind}")
        self.caption.setWordWrap(True)
        self.caption.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.caption.setContentsMargins(12, 2, 12, 6)
        # the caption, and at its right the plot's own switches (the dispatch plot's log axis)
        self.footer = QWidget()
        self.footer.setObjectName(f"timing_footer_{kind}")
        self.footer.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.footer_row = QHBoxLayout(self.footer)
        self.footer_row.setContentsMargins(0, 0, 8, 0)
        self.footer_row.addWidget(self.caption, 1)
        box.addWidget(self.footer)
        self.figure: TimingFigure | None = None
        self.hover_numbers = ""
        #: A run streams in: the caption's room only grows (see :meth:`arrange`).
        self.live = False
        #: what the last :meth:`arrange` arranged the page for
        self._arranged: tuple | None = None
        #: the plot's repaint is held until a later turn (see :meth:`paint_later`)
        self.holding = False

    def paint_later(self, ms: int) -> None:
        """Repaint the plot ``ms`` from now, not in this turn of the event loop: its figure
        was redrawn this turn (2-10 ms), and its repaint (5-15 ms:
        the plot area, its axes laid out again where their range or size changed, then
        the copy to the screen) would come in the same turn, right after -- together over
        a 60 Hz frame. Half-way, in a turn of its own, the figure makes its axes' pictures
        (:meth:`~jaxviz.ui.plots.base.TimingFigure.prepare_paint`), so the paint's turn
        only plays them. The window handles input and other events in between."""
        if self.holding:
            return
        self.holding = True
        self.view.setUpdatesEnabled(False)
        QTimer.singleShot(ms // 2, self, lambda: self._prepare_paint(ms - ms // 2, 3))

    def _prepare_paint(self, then_ms: int, rounds: int) -> None:
        made = self.figure is not None and self.figure.prepare_paint()
        if (rounds < 3 and not made) or rounds == 0:
            self._paint_now()
            return
        # timed from now: on a busy machine two timers due together run in one turn. The
        # next turn looks again: the page may have laid out again meanwhile (the caption
        # took another line, the plot got shorter), and its axes dropped their pictures
        QTimer.singleShot(then_ms, self, lambda: self._prepare_paint(then_ms, rounds - 1))

    def _paint_now(self) -> None:
        self.holding = False
        self.view.setUpdatesEnabled(True)  # (repaints the view)

    def show_hover(self, text: str, at: QPoint | None = None) -> None:
        """Show the hovered points' numbers next to ``at`` (view pixels); hide them if empty."""
        self.hover_numbers = text
        if not text:
            self.hover.hide()
            return
        self.hover.setText(text)
        self.hover.adjustSize()
        if at is not None:
            size, area = self.hover.size(), self.view.size()
            x = at.x() + 18 if at.x() + 18 + size.width() < area.width() \
                else at.x() - 18 - size.width()
            y = at.y() + 18 if at.y() + 18 + size.height() < area.height() \
                else at.y() - 18 - size.height()
            self.hover.move(max(0, x), max(0, y))
        self.hover.show()
        self.hover.raise_()

    @property
    def caption_beside(self) -> bool:
        """Whether the caption sits beside the plot instead of under it."""
        return self.box.direction() == QBoxLayout.Direction.LeftToRight

    def set_min_plot_px(self, px: int, arrange: bool = True) -> None:
        """How short the plot may get (its lanes stay readable); a shorter page scrolls.
        (``arrange`` False: the caller arranges the page next.)"""
        self.min_plot_px = px
        self.view.setMinimumHeight(px)
        if arrange:
            self.arrange()

    def arrange(self) -> None:
        """Caption under the plot; beside it on a wide page too short for both, so the
        plot keeps its height (a docked tab on a 1080p screen). Nothing is measured again
        when the caption, the page's size and the plot's minimum are the ones arranged
        last (a live update that leaves the caption as it was)."""
        width = self.width()
        key = (self.caption.text(), self.caption.font().key(), width, self.height(),
               self.min_plot_px, self.live, self.footer_row.count())
        if key == self._arranged:
            return
        self._arranged = key
        extra = 0
        for i in range(1, self.footer_row.count()):
            item = self.footer_row.itemAt(i)
            widget = item.widget() if item is not None else None
            extra += widget.sizeHint().width() if widget is not None else 0
        kept = self.caption.minimumHeight()
        self.caption.setMinimumHeight(0)  # (a label's height for a width honours its minimum)
        needed = self.caption.heightForWidth(max(100, width - extra - 8))
        if self.live:
            # While a run streams in, its caption changes at every update and its lines
            # with it: a line more or less resized the plot and redrew all of it (30-40 ms
            # a time). The caption keeps the room it had: it grows, never shrinks, until the
            # run has ended (when it gets what its last text needs).
            needed = max(needed, kept)
        under = self.min_plot_px + needed + 4
        beside = self.height() < under and width >= SIDE_CAPTION_WIDTH
        # under the plot, the wrapped caption keeps all its lines (the page scrolls instead)
        self.caption.setMinimumHeight(0 if beside else max(needed, 0))
        if beside == self.caption_beside:
            return
        self.box.setDirection(QBoxLayout.Direction.LeftToRight if beside
                              else QBoxLayout.Direction.TopToBottom)
        self.box.setStretch(0, 7 if beside else 1)
        self.box.setStretch(1, 3 if beside else 0)
        self.caption.setAlignment(Qt.AlignmentFlag.AlignLeft | (
            Qt.AlignmentFlag.AlignVCenter if beside else Qt.AlignmentFlag.AlignTop))

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        self.arrange()
        self.resized.emit()

    def set_figure(self, figure: TimingFigure, background: str) -> None:
        self.view.setBackground(background)
        self.view.setCentralItem(figure.layout)
        self.figure = figure
