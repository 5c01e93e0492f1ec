"""The lanes' names kept in view: a strip of column headers over the top of the values.

A step's outputs are kept in view (:meth:`ValuesPanel.keep_outputs_in_view
<jaxviz.ui.stepper.values_panel.ValuesPanel.keep_outputs_in_view>`); in a short
tab (a docked Values tab at 1280x720) that scrolls the columns' coloured headers
-- "device 0" ... "device 7" -- out of the top, and the values below them no
longer say whose they are. :class:`StickyHeaders` then draws each shown column's
header, in its colour and at its place across, over the top of the viewport, as
a table's frozen header row does; it is hidden while the headers themselves are
in view. One widget paints them all (a paint of a few rectangles and words), and
it lets the mouse through to the values under it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtGui import QColor, QPainter
from PySide6.QtWidgets import QWidget

from jaxviz.ui.stepper.columns import ColumnWidget
from jaxviz.views.palette import text_on


class StickyHeaders(QWidget):
    """The headers of ``columns()`` scrolled out of ``viewport``, drawn over its top."""

    def __init__(self, viewport: QWidget, content: QWidget,
                 columns: Callable[[], Sequence[ColumnWidget]]) -> None:
        super().__init__(viewport)
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.setObjectName("sticky_headers")
        self._viewport = viewport
        self._content = content
        self._columns = columns
        #: (title, colour, left, width) of each header drawn, in viewport coordinates.
        self.shown: list[tuple[str, str, int, int]] = []
        self.hide()

    def refresh(self) -> None:
        """Show the headers of the shown columns whose own header is above the viewport's
        top (hidden when none is)."""
        shown = []
        height = 0
        for column in self._columns():
            header, lane = column.header, column.column
            if lane is None or not column.isVisibleTo(self._content):
                continue
            top = header.mapTo(self._viewport, QPoint(0, 0))
            if top.y() >= 0:
                continue  # in view (or below): it speaks for itself
            left = column.mapTo(self._viewport, QPoint(0, 0)).x()
            shown.append((header.text(), lane.colour, left, column.width()))
            height = max(height, header.height())
        if shown != self.shown or (shown and height != self.height()):
            self.shown = shown
            if shown:
                self.setFont(self._columns()[0].header.font())
                self.setGeometry(0, 0, self._viewport.width(), height)
                self.raise_()
                self.update()
        self.setVisible(bool(shown))

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt's name
        painter = QPainter(self)
        painter.setFont(self.font())
        for title, colour, left, width in self.shown:
            rect = QRect(left, 0, width, self.height())
            painter.fillRect(rect, QColor(colour))
            painter.setPen(QColor(text_on(colour)))
            painter.drawText(rect, int(Qt.AlignmentFlag.AlignCenter), title)
        painter.end()
