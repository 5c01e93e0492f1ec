"""A one-line label that elides its text instead of growing what holds it."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

#: Texts longer than this are cut to what could fit before Qt elides them.
LONG_TEXT = 200


class ElidedLabel(QLabel):
    """A one-line label that elides its text at the right instead of growing the pane."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._full = ""
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.setMinimumWidth(20)

    def setText(self, text: str) -> None:  # noqa: N802 - Qt's name
        if text == self._full:  # (a label set again lays out what holds it again)
            return
        self._full = text
        self.setToolTip(text)
        self._elide()

    def text(self) -> str:  # noqa: D102
        return self._full

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        metrics = self.fontMetrics()
        width = max(10, self.width())
        text = self._full
        if len(text) > LONG_TEXT:  # (Qt measures all of it: a sharded call's 10,000
            # characters were 1-2 ms a label) cut where not even its narrowest characters fit
            narrowest = min(metrics.horizontalAdvance(c) for c in set(text))
            if narrowest > 0:
                text = text[:width // narrowest + 2]
        super().setText(metrics.elidedText(text, Qt.TextElideMode.ElideRight, width))
