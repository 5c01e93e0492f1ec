"""A one-line label that elides its text instead of growing what holds it."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontMetricsF
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
            exact = QFontMetricsF(self.font())  # (whole pixels round a 1.6 px space up to 2)
            narrowest = _narrowest(self.font().key(), exact, text)
            if narrowest > 0:
                cut = text[:int(width / narrowest) + 2]
                if exact.horizontalAdvance(cut) > width:  # Qt elides it as it would all
                    text = cut
        super().setText(metrics.elidedText(text, Qt.TextElideMode.ElideRight, width))


#: The narrowest printable ASCII character's advance, per font (``QFont.key()``) and DPI.
_ASCII_NARROWEST: dict[tuple[str, float], float] = {}
_ASCII = frozenset(chr(c) for c in range(32, 127))


def _narrowest(font: str, metrics: QFontMetricsF, text: str) -> float:
    """An advance no wider than that of ``text``'s narrowest character: the narrowest
    printable ASCII character's (measured once per font), or a narrower one of the text's
    other characters (measuring each of a long call's hundred distinct characters was 2-5
    ms of the header's change, twice: its text, then its width)."""
    key = font, metrics.fontDpi()
    ascii_min = _ASCII_NARROWEST.get(key)
    if ascii_min is None:
        ascii_min = _ASCII_NARROWEST[key] = min(metrics.horizontalAdvance(c) for c in _ASCII)
    others = [metrics.horizontalAdvance(c) for c in set(text) - _ASCII]
    return min([ascii_min, *others])
