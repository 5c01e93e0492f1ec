"""Plain text painted by the widget itself: a label that costs a step almost nothing.

The Values tab shows about 80 labels (each value's name and type, and its numbers), all
of them new at every step. A ``QLabel`` lays its text out with a ``QTextDocument`` (rich
text) or ``QTextLayout`` at every paint, draws through the application's style sheet, and
asks every layout above it to lay out again on each ``setText``: stepping data_parallel
spent about 4.7 ms a step painting those labels alone, and the worst turn of a step took
25-30 ms of the GUI thread (``benchmarks/bench_gui.py``). A :class:`PaintedText` lays its
lines out once per text (``QStaticText``), in one font or in runs of their own (a bold
name, a muted type), draws them with no style in between, and asks for room again only
when its size changes.

The text is never HTML (there is nothing to guess: it is drawn as written).
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QEvent, QPoint, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QStaticText, QTransform
from PySide6.QtWidgets import QSizePolicy, QWidget

#: One run of text: the words, whether bold, and their colour (None: the widget's own).
Run = tuple[str, bool, str | None]


class PaintedText(QWidget):
    """Lines of plain text, painted: :meth:`setText` for one font, :meth:`set_runs` for a
    line of runs in their own weight and colour. :meth:`text` is what it shows."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._runs: list[Run] = []
        self._lines: list[str] = []
        self._size = QSize(0, 0)
        self._placed: list[tuple[QPoint, QStaticText, QFont, QColor | None]] = []
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)

    def text(self) -> str:
        """What it shows, as plain text."""
        return "".join(r[0] for r in self._runs) if self._runs else "\n".join(self._lines)

    def setText(self, text: str) -> None:  # noqa: N802 - QLabel's name
        """Show ``text`` (lines split at newlines) in the widget's font."""
        if not self._runs and text == "\n".join(self._lines):
            return
        self._runs, self._lines = [], text.split("\n") if text else []
        self._measure()

    def set_runs(self, runs: Sequence[Run]) -> None:
        """Show one line of runs: ``(text, bold, colour or None)`` each."""
        runs = list(runs)
        if runs == self._runs:
            return
        self._runs, self._lines = runs, []
        self._measure()

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        return self._size

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        return self._size

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt's name
        if event.type() == QEvent.Type.FontChange:
            self._measure()
        super().changeEvent(event)

    def _fonts(self) -> tuple[QFont, QFont]:
        bold = QFont(self.font())
        bold.setBold(True)
        return self.font(), bold

    def _measure(self) -> None:
        """Lay the text out once (a ``QStaticText`` per line or run: a paint only draws
        the glyphs), and ask for room again if its size changed."""
        placed: list[tuple[QPoint, QStaticText, QFont, QColor | None]] = []
        if self._runs:
            fonts = self._fonts()
            ascent = max(QFontMetrics(f).ascent() for f in fonts)
            x = 0
            for text, bold, colour in self._runs:
                metrics = QFontMetrics(fonts[bold])
                placed.append((QPoint(x, ascent - metrics.ascent()),
                               _static(text, fonts[bold]), fonts[bold],
                               QColor(colour) if colour else None))
                x += metrics.horizontalAdvance(text)
            width, height = x, max(QFontMetrics(f).height() for f in fonts)
        else:
            metrics = QFontMetrics(self.font())
            width, y = 0, 0
            for line in self._lines:
                placed.append((QPoint(0, y), _static(line, self.font()), self.font(), None))
                width = max(width, metrics.horizontalAdvance(line))
                y += metrics.lineSpacing()
            height = y
        self._placed = placed
        size = QSize(width + 1, height)
        if size != self._size:
            self._size = size
            self.updateGeometry()
        self.update()

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt's name
        painter = QPainter(self)
        ink = self.palette().windowText().color()
        for at, text, font, colour in self._placed:
            painter.setFont(font)
            painter.setPen(colour if colour is not None else ink)
            painter.drawStaticText(at, text)
        painter.end()


def _static(text: str, font: QFont) -> QStaticText:
    static = QStaticText(text)
    static.setTextFormat(Qt.TextFormat.PlainText)
    static.setPerformanceHint(QStaticText.PerformanceHint.AggressiveCaching)
    static.prepare(QTransform(), font)
    return static
