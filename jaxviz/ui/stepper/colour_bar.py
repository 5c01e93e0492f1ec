"""The colour bar beside a step's heat maps: the shared scale, its colours and their values.

Painted directly, as the heat maps are: a pyqtgraph ``ColorBarItem`` (in a graphics view
of its own) cost 15-20 ms of the GUI thread every time a step changed the scale -- its
scene and axis rebuilt -- which dropped a frame or two on every step of a heat map. The
bar is drawn from the same 256-entry lookup table as the heat maps
(:attr:`~jaxviz.ui.stepper.cells.Scale.lookup_table`), high values at the top, with an
axis of round values on its right.
"""

from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import QEvent, QRectF, Qt
from PySide6.QtGui import QColor, QFontMetrics, QImage, QPainter, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from jaxviz.ui.stepper.cells import Scale
from jaxviz.views import palette
from jaxviz.views.stepper.value_text import format_number

#: The bar's width, the tick marks' length and the gap before their labels, in pixels.
BAR_PX, TICK_PX, LABEL_GAP_PX = 18, 5, 4
#: The least room, in pixels, between two ticks' labels.
TICK_ROOM_PX = 34


def ticks(low: float, high: float, length_px: float, room_px: float = TICK_ROOM_PX
          ) -> list[float]:
    """Round values between ``low`` and ``high`` (inclusive), spaced 1, 2 or 5 times a
    power of ten, as many as fit ``length_px`` with ``room_px`` between them.

    Example:
        >>> ticks(1.0, 4.0, 232)
        [1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0]
    """
    span = high - low
    if not (math.isfinite(span) and span > 0):
        return [low] if math.isfinite(low) else []
    most = max(1, int(length_px // room_px))
    raw = span / most
    power = 10.0 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = math.ceil(low / step - 1e-9)
    last = math.floor(high / step + 1e-9)
    return [round(k * step, 12) for k in range(first, last + 1)]


class ColourBar(QWidget):
    """The step's colour scale: the bar (the colour map, high at the top) and its axis."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        self.scale: Scale | None = None
        self._image = QImage()
        self._levels = (0.0, 1.0)

    def set_scale(self, scale: Scale) -> None:
        """Show ``scale`` (nothing is redrawn when it is the one shown)."""
        if scale == self.scale:
            return
        self.scale = scale
        self._levels = scale.levels
        table = np.ascontiguousarray(scale.lookup_table[::-1, :3], dtype=np.uint8)  # high on top
        rows = len(table)
        self._image = QImage(table.tobytes(), 1, rows, 3, QImage.Format.Format_RGB888).copy()
        self.update()

    def levels(self) -> tuple[float, float]:
        """The values at the bottom and the top of the bar."""
        return float(self._levels[0]), float(self._levels[1])

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt's name
        if event.type() == QEvent.Type.FontChange:  # the labels, and the bar's margins
            self.update()
        super().changeEvent(event)

    def bar_rect(self) -> QRectF:
        """Where the bar is drawn, in widget pixels (half a line of text above and below,
        so that the end labels fit)."""
        margin = QFontMetrics(self.font()).height() / 2 + 1
        return QRectF(1, margin, BAR_PX, max(1.0, self.height() - 2 * margin))

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt's name
        if self._image.isNull():
            return
        painter = QPainter(self)
        bar = self.bar_rect()
        painter.drawImage(bar, self._image)
        ink = QColor(palette.INK)
        painter.setPen(QPen(ink, 1))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRect(bar)
        low, high = self._levels
        axis = bar.right() + 1
        painter.drawLine(int(axis), int(bar.top()), int(axis), int(bar.bottom()))
        painter.setFont(self.font())
        height = QFontMetrics(self.font()).height()
        for value in ticks(low, high, bar.height()):
            y = bar.bottom() - (value - low) / (high - low) * bar.height()
            painter.drawLine(int(axis), round(y), int(axis + TICK_PX), round(y))
            label = QRectF(axis + TICK_PX + LABEL_GAP_PX, y - height / 2,
                           self.width() - axis - TICK_PX - LABEL_GAP_PX, height)
            painter.drawText(label, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                             format_number(value, 4))
        painter.end()
