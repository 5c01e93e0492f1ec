"""A one-line label whose text changes do not lay out the window around it again.

Every ``QLabel.setText`` asks the layouts above the label to lay out again, up to the
window, whether or not its size changed (Qt's ``QLayout::activate`` always passes the
request on), and a tab widget on the way repaints its tab bar and frame. The Values
tab's step counter did that at every step: a relayout of the dock and the window and a
repaint of the tool tabs, about 3 ms of each step. :class:`SteadyLabel` holds its
``QLabel`` without a layout, so the request stops at it; it is as wide as the widest
text it has shown (or was told to expect), and grows -- one relayout -- only when a
text is wider still.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QSize
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

from jaxviz.ui.text.plain import plain


class SteadyLabel(QWidget):
    """A plain-text, one-line label (see the module's docstring).

    Args:
        widest: a text as wide as the widest it will show (its width is reserved).
    """

    def __init__(self, widest: str = "", parent: QWidget | None = None):
        super().__init__(parent)
        self.label = plain(QLabel(self))  # no layout: its geometry requests stop here
        self._widest = widest
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Preferred)

    def setText(self, text: str) -> None:  # noqa: N802 - Qt's name
        self.label.setText(text)
        if self._width(text) > self._width(self._widest):
            self._widest = text
            self.updateGeometry()  # wider than any before: the one relayout

    def text(self) -> str:
        return self.label.text()

    def _width(self, text: str) -> int:
        return self.label.fontMetrics().horizontalAdvance(text)

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        margins = self.label.contentsMargins()
        height = self.label.sizeHint().height()
        return QSize(self._width(self._widest) + margins.left() + margins.right() + 2, height)

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        return self.sizeHint()

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        self.label.setGeometry(self.rect())

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt's name
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            self.updateGeometry()
