"""A bold title of at most a few lines: wrapped between words, the rest cut with "…".

A narrow, zoomed side panel (the gallery's at 1280x720 and zoom +3) wrapped an example's
title over five lines, and the explanation under it out of sight. This label wraps only
between words (a word wider than the label is cut with "…", never broken), keeps at most
:data:`MAX_LINES` lines, ends the last with "…" when the title goes on, and shows the
whole title in its tooltip.

Example:
    >>> title = TitleLabel()                                   # doctest: +SKIP
    >>> title.setText("Data parallelism: pmap with a pmean")   # doctest: +SKIP
    >>> title.lines()                                          # doctest: +SKIP
    ['Data parallelism: pmap', 'with a pmean']
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

#: The most lines a title takes.
MAX_LINES = 2


def wrapped_lines(text: str, metrics: QFontMetrics, width: int,
                  max_lines: int = MAX_LINES) -> list[str]:
    """``text`` broken between words into lines at most ``width`` px wide (by ``metrics``),
    at most ``max_lines`` of them; the last line ends in "…" when the text goes on (a word
    wider than a line is cut there, and its line is the last)."""
    width = max(width, 1)
    lines: list[str] = []
    words = text.split()
    k = 0
    while k < len(words) and len(lines) < max_lines:
        line = words[k]
        k += 1
        while k < len(words) and metrics.horizontalAdvance(f"{line} {words[k]}") <= width:
            line = f"{line} {words[k]}"
            k += 1
        last = len(lines) == max_lines - 1 or metrics.horizontalAdvance(line) > width
        if last and k < len(words):  # the title goes on: this line ends it with "…"
            line = f"{line} {' '.join(words[k:])}"
        lines.append(metrics.elidedText(line, Qt.TextElideMode.ElideRight, width))
        if last:  # (a word wider than a line is cut there, and ends the title)
            break
    return lines


class TitleLabel(QLabel):
    """A title wrapped between words into at most :data:`MAX_LINES` lines (whole in its
    tooltip when cut)."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._full = ""
        self.setWordWrap(False)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.setMinimumWidth(20)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        font = self.font()
        font.setBold(True)
        self.setFont(font)

    def setText(self, text: str) -> None:  # noqa: N802 - Qt's name
        self._full = " ".join(text.split())
        self._fit()

    def text(self) -> str:  # noqa: D102
        return self._full

    def lines(self) -> list[str]:
        """The lines shown."""
        shown = QLabel.text(self)
        return shown.split("\n") if shown else []

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        self._fit()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt's name
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            self._fit()

    def _fit(self) -> None:
        m = self.contentsMargins()
        room = self.width() - m.left() - m.right() - 2 * self.margin()
        lines = wrapped_lines(self._full, self.fontMetrics(), room)
        shown = "\n".join(lines)
        super().setText(shown)
        cut = " ".join(shown.split()) != self._full
        self.setToolTip(self._full if cut else "")
        height = self.fontMetrics().lineSpacing() * max(len(lines), 1)
        self.setFixedHeight(height + m.top() + m.bottom() + 2 * self.margin())
