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
:class:`SteadyWrap` holds a word-wrapped label the same way: it asks its layout for room
again only when the label needs another number of lines.
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


class SteadyWrap(QWidget):
    """Holds a ``QLabel`` (word-wrapped or not) without a layout, so that its text changes
    lay out nothing around it unless its height changes.

    ``QLabel.setText`` asks every layout above it, up to the window, to lay out again
    (and, on the way, repaints the tool tabs and their dock), whether or not the label's
    size changed: during a timing run the progress line changes at every call. Here the
    request stops at this holder (it has no layout); the holder asks its own layout for
    room again only when the label needs another number of lines at its width. The label
    fills the holder, so it looks as it would in the layout itself.
    """

    def __init__(self, label: QLabel, parent: QWidget | None = None):
        super().__init__(parent)
        self.label = label
        label.setParent(self)
        self._height = -1  # the label's height at this width the last time we asked for it
        self._held = False
        policy = QSizePolicy(label.sizePolicy())
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)

    def hold(self, held: bool) -> None:
        """While held, the label's room only grows (a line more, never a line less: a run's
        progress line is laid out again when it needs more room, not at every call);
        released, it takes the height its text needs."""
        self._held = held
        if not held:
            self._fit()

    def hasHeightForWidth(self) -> bool:  # noqa: N802 - Qt's name
        return True

    def heightForWidth(self, width: int) -> int:  # noqa: N802 - Qt's name
        needed = self._needed(width)
        return max(needed, self.height()) if self._held else needed

    def _needed(self, width: int) -> int:
        """The label's height at ``width``; a line even when it is empty (its first text
        then lays out nothing)."""
        margins = self.label.contentsMargins()
        line = self.label.fontMetrics().height() + margins.top() + margins.bottom()
        wrapped = self.label.heightForWidth(width)  # -1: a label that does not wrap
        return max(wrapped if wrapped >= 0 else self.label.sizeHint().height(), line)

    def sizeHint(self):  # noqa: N802 - Qt's name
        hint = self.label.sizeHint()
        return QSize(hint.width(), self._needed(self.width() if self.width() > 0
                                                else hint.width()))

    def minimumSizeHint(self):  # noqa: N802 - Qt's name
        return self.label.minimumSizeHint()

    def event(self, event) -> bool:
        if event.type() == QEvent.Type.LayoutRequest:  # the label's text (or font) changed
            self._fit()
            return True
        return super().event(event)

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        self._place()
        self._height = self.heightForWidth(self.width())

    def _place(self) -> None:
        """The label at the top, as tall as its text (the holder may keep more room)."""
        self.label.setGeometry(0, 0, self.width(),
                               max(1, min(self.height(), self._needed(self.width()))))

    def _fit(self) -> None:
        self._place()
        height = self._needed(self.width())
        if self._held:
            height = max(height, self._height)
        if height != self._height:
            self._height = height
            self.updateGeometry()  # another number of lines: the one relayout
