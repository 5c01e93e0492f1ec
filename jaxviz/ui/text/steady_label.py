"""A one-line label whose text changes do not lay out the window around it again.

Every ``QLabel.setText`` asks the layouts above the label to lay out again, up to the
window, whether or not its size changed (Qt's ``QLayout::activate`` always passes the
request on). On the way a tab widget repaints its tab bar and frame, and the main window
lays out its docks again (starting an animation object per dock). The Values tab's step
counter and the status line did that at every step. :class:`SteadyLabel` holds its
``QLabel`` without a layout, so the request stops at it. It is either as wide as the
widest text it has shown (or was told to expect), growing -- one relayout -- only when a
text is wider still; or, with ``elide``, as wide as its place, a longer text elided at
the right with the whole of it in the tooltip (a long message never widens the window).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

from jaxviz.ui.text.plain import plain, plain_tooltip


class SteadyLabel(QWidget):
    """A plain-text, one-line label (see the module's docstring).

    Args:
        widest: a text as wide as the widest it will show (its width is reserved).
        elide: take the width the layout gives, eliding longer texts (``widest`` unused).
    """

    def __init__(self, widest: str = "", elide: bool = False,
                 parent: QWidget | None = None):
        super().__init__(parent)
        self.label = plain(QLabel(self))  # no layout: its geometry requests stop here
        self._widest = widest
        self._elide = elide
        self._full = ""
        self._reserved: int | None = None  # the width of _widest in the current font
        horizontal = QSizePolicy.Policy.Ignored if elide else QSizePolicy.Policy.Fixed
        self.setSizePolicy(horizontal, QSizePolicy.Policy.Preferred)

    def setText(self, text: str) -> None:  # noqa: N802 - Qt's name
        self._full = text
        if self._elide:
            self._show_elided()
            return
        self.label.setText(text)
        if self._width(text) > self._widest_px():
            self._widest = text
            self._reserved = None
            self.updateGeometry()  # wider than any before: the one relayout

    def text(self) -> str:
        """The whole text (an elided label shows its start)."""
        return self._full

    def setFont(self, font) -> None:  # noqa: N802 - Qt's name
        """The label's font (set on the label too: the style sheet's label font would
        otherwise win over the one inherited)."""
        super().setFont(font)
        self.label.setFont(font)
        self._reserved = None
        self.updateGeometry()

    def _width(self, text: str) -> int:
        return self.label.fontMetrics().horizontalAdvance(text)

    def _widest_px(self) -> int:
        if self._reserved is None:
            self._reserved = self._width(self._widest)
        return self._reserved

    def _show_elided(self) -> None:
        room = max(10, self.width() - 4)
        shown = self.label.fontMetrics().elidedText(self._full, Qt.TextElideMode.ElideRight,
                                                    room)
        self.label.setText(shown)
        self.setToolTip(plain_tooltip(self._full) if shown != self._full else "")

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        margins = self.label.contentsMargins()
        height = self.label.sizeHint().height()
        width = 0 if self._elide else self._widest_px()
        return QSize(width + margins.left() + margins.right() + 2, height)

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        return self.sizeHint()

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        self.label.setGeometry(self.rect())
        if self._elide:
            self._show_elided()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt's name
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            self._reserved = None
            self.updateGeometry()
            if self._elide:
                self._show_elided()
