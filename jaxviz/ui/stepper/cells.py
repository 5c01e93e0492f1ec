"""One value of a step, drawn: numbers, a heat map, or a summary with its histogram.

A :class:`CellWidget` shows one :class:`~jaxviz.views.stepper.panel.Cell`; the
values panel keeps a pool of them and refills them step after step (building
widgets costs more than filling them). Heat maps are painted with the colour map
and levels the whole step shares (:class:`Scale`); small matrices carry their
numbers on top.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QAction, QColor, QFont, QGuiApplication, QImage, QPainter
from PySide6.QtWidgets import QFrame, QVBoxLayout, QWidget

from jaxviz.ui.stepper.colour_maps import ColourMap, colour_map
from jaxviz.ui.text.painted import PaintedText
from jaxviz.ui.theme import style
from jaxviz.views import palette
from jaxviz.views.palette import DARK_LUMINANCE
from jaxviz.views.stepper.panel import Cell
from jaxviz.views.stepper.value_text import format_number

#: Colour maps of the heat maps: values of one sign, and values of both signs (0 is white).
SEQUENTIAL_MAP = "viridis"
DIVERGING_MAP = "CET-D1"
#: The largest side, in pixels, of a heat map: on the host, and in a device's column.
HEATMAP_SIDE, DEVICE_HEATMAP_SIDE = 240, 160
#: The smallest and largest cell side in pixels (a 2 x 2 matrix stays a small square).
MIN_CELL_PX, MAX_CELL_PX = 4, 52
#: A cell is at most this many times as long as it is wide (or wide as long).
MAX_CELL_ASPECT = 4
#: A heat map is at least this many pixels across its short side (a thin array such as
#: f32[1,32] is a readable band, not a strip of a few pixels), within :data:`MAX_CELL_PX`.
MIN_BAND_PX = 32
#: Cells at least this many pixels on each side carry their numbers.
NUMBERS_MIN_PX = 22
_WHITE, _BLACK = QColor(palette.WHITE), QColor(palette.BLACK)
#: The histogram's bars (the panel's muted text colour).
HISTOGRAM_COLOUR = palette.MUTED_INK
#: The histogram's size in pixels.
HISTOGRAM_SIZE = (200, 56)


@dataclass(frozen=True)
class Scale:
    """The colour scale every heat map of a step shares."""

    low: float
    high: float
    diverging: bool

    @property
    def colour_map(self) -> ColourMap:
        return colour_map(DIVERGING_MAP if self.diverging else SEQUENTIAL_MAP)

    @property
    def lookup_table(self) -> np.ndarray:
        return _lookup_table(DIVERGING_MAP if self.diverging else SEQUENTIAL_MAP)

    @property
    def levels(self) -> tuple[float, float]:
        if self.low == self.high:
            return self.low - 0.5, self.high + 0.5
        return self.low, self.high

    def colour(self, value: float) -> QColor:
        """The colour a value gets on this scale (what the image draws)."""
        low, high = self.levels
        return self.colour_map.colour((value - low) / (high - low))

    def dark_under(self, values: np.ndarray) -> np.ndarray:
        """Per value, whether its colour is dark: :func:`~jaxviz.views.palette.text_on`'s
        rule (WCAG luminance, as :func:`~jaxviz.views.palette.luminance`) for a whole array."""
        low, high = self.levels
        rgb = self.colour_map.floats_at(((values - low) / (high - low)).ravel())
        linear = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
        luminance = linear @ np.array([0.2126, 0.7152, 0.0722])
        return (luminance <= DARK_LUMINANCE).reshape(values.shape)


class HeatMap(QWidget):
    """A matrix painted cell by cell in its values' colours on the step's shared
    :class:`Scale` (the colour map's 256-entry lookup table, as the colour bar's), with
    its numbers on top when the cells are large enough; a value that is not finite is
    left unpainted.

    (Painted directly: a pyqtgraph view per value cost about 4 ms to build and 1 ms to
    paint, and a step of eight devices showed sixteen.)
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.matrix = np.zeros((0, 0))
        self.cell_size = (0, 0)
        self._levels = (0.0, 1.0)
        self._image = QImage()
        self._texts: list[list[str]] = []
        self._colours: list[list[QColor]] = []
        self._font = QFont()

    def show_matrix(self, matrix: list[list[float]], scale: Scale, font: QFont,
                    side: int = HEATMAP_SIDE) -> None:
        """Draw ``matrix`` on ``scale`` within ``side`` pixels; numbers on top when they fit."""
        data = np.asarray(matrix, dtype=np.float64)
        rows, cols = data.shape
        self.matrix = data
        width, height = cell_size(rows, cols, side)
        self.cell_size = (width, height)
        self.setFixedSize(cols * width, rows * height)
        self._levels = scale.levels
        self._image = _colour_image(data, scale)
        texts: list[list[str]] = []
        colours: list[list[QColor]] = []
        if min(width, height) >= NUMBERS_MIN_PX:
            fitted = QFont(font)
            fitted.setPixelSize(max(10, min(int(min(width, height) * 0.5), 20)))
            self._font = fitted
            dark = scale.dark_under(data)
            for row, dark_row in zip(data, dark):
                texts.append([format_number(_plain(x), 3) for x in row])
                colours.append([_WHITE if d else _BLACK for d in dark_row])
        self._texts, self._colours = texts, colours
        self.update()

    @property
    def levels(self) -> tuple[float, float]:
        return float(self._levels[0]), float(self._levels[1])

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt's name
        if self._image.isNull():
            return
        painter = QPainter(self)
        painter.drawImage(QRectF(0, 0, self.width(), self.height()), self._image)
        if self._texts:
            width, height = self.cell_size
            painter.setFont(self._font)
            for r, row in enumerate(self._texts):
                for c, text in enumerate(row):
                    painter.setPen(self._colours[r][c])
                    painter.drawText(QRectF(c * width, r * height, width, height),
                                     Qt.AlignmentFlag.AlignCenter, text)
        painter.end()


def _colour_image(data: np.ndarray, scale: Scale) -> QImage:
    """One pixel per value, in its colour on ``scale`` (the lookup table's entry, as
    pyqtgraph's image items index it); transparent where the value is not finite."""
    table = scale.lookup_table
    low, high = scale.levels
    finite = np.isfinite(data)
    where = np.where(finite, (data - low) * (len(table) / (high - low)), 0.0)
    index = np.clip(np.floor(where), 0, len(table) - 1).astype(np.intp)
    rgba = np.empty(data.shape + (4,), dtype=np.uint8)
    rgba[..., :3] = table[index][..., :3]
    rgba[..., 3] = np.where(finite, 255, 0)
    rows, cols = data.shape
    rgba = np.ascontiguousarray(rgba)
    return QImage(rgba.data, cols, rows, 4 * cols, QImage.Format.Format_RGBA8888).copy()


def cell_size(rows: int, cols: int, side: int) -> tuple[int, int]:
    """``(width, height)`` in pixels of one heat-map cell, the matrix within ``side``."""
    width = max(MIN_CELL_PX, min(side // max(cols, 1), MAX_CELL_PX))
    height = max(MIN_CELL_PX, min(side // max(rows, 1), MAX_CELL_PX))
    width = min(width, MAX_CELL_ASPECT * height)
    height = min(height, MAX_CELL_ASPECT * width)
    if rows * height < MIN_BAND_PX:  # a thin row (or a few): a band, not a strip
        height = min(-(-MIN_BAND_PX // rows), MAX_CELL_PX)
    if cols * width < MIN_BAND_PX:
        width = min(-(-MIN_BAND_PX // cols), MAX_CELL_PX)
    return width, height


class Histogram(QWidget):
    """A summary's histogram: one bar per bin, bin widths to scale, painted directly.

    (Ten bars need no plot: a pyqtgraph plot per value cost a step ~1 ms each.)
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFixedSize(*HISTOGRAM_SIZE)
        self.counts: list[int] = []
        self.edges: list[float] = []

    def show_counts(self, counts: list[int], edges: list[float]) -> None:
        if (counts, edges) != (self.counts, self.edges):
            self.counts, self.edges = list(counts), list(edges)
            self.update()

    def bars(self) -> list[QRectF]:
        """Each bin's bar, in widget pixels (heights relative to the fullest bin)."""
        if not self.counts or len(self.edges) != len(self.counts) + 1:
            return []
        low, high = self.edges[0], self.edges[-1]
        span = (high - low) or 1.0
        top = max(self.counts) or 1
        w, h = self.width(), self.height() - 1
        return [QRectF(w * (a - low) / span, h - h * c / top, w * (b - a) / span, h * c / top)
                for a, b, c in zip(self.edges, self.edges[1:], self.counts)]

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt's name
        painter = QPainter(self)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(HISTOGRAM_COLOUR))
        for bar in self.bars():
            painter.drawRect(bar.adjusted(0.5, 0, -0.5, 0))
        painter.setPen(QColor(HISTOGRAM_COLOUR))
        painter.drawLine(0, self.height() - 1, self.width(), self.height() - 1)
        painter.end()


class CellWidget(QFrame):
    """One value: its name and type above numbers, a heat map or a summary."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setProperty("role", "value-cell")
        # Painted, not QLabels: about 80 of them change at every step (see PaintedText).
        self.title = PaintedText()
        self.text = PaintedText()
        copy = QAction("Copy the value", self)
        copy.triggered.connect(self._copy)
        self.addAction(copy)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
        self.heatmap: HeatMap | None = None
        self.histogram: Histogram | None = None
        self._box = QVBoxLayout(self)
        self._box.setContentsMargins(4, 2, 4, 4)
        self._box.setSpacing(2)
        self._box.addWidget(self.title)
        self._box.addWidget(self.text)
        self._box.addStretch(1)
        self.cell: Cell | None = None
        self._fonts: tuple[QFont, QFont] | None = None
        self._vector_font = QFont()

    def set_fonts(self, numbers: QFont, small: QFont) -> None:
        if self._fonts != (numbers, small):
            self._fonts = (numbers, small)
            self._vector_font = QFont(numbers)
            self._vector_font.setPointSize(max(6, numbers.pointSize() - 4))
            self.title.setFont(small)

    def show_cell(self, cell: Cell, scale: Scale | None, side: int = HEATMAP_SIDE) -> None:
        """Show one value (``scale``: the step's heat-map scale; ``side``: a heat map's)."""
        self.cell = cell
        self.title.set_runs([(cell.name, True, None), (f" {cell.type}", False, palette.MUTED_INK)])
        self.setToolTip(cell.text if cell.kind != "numbers" else "")
        drawn = cell.kind == "heatmap" and cell.matrix is not None and scale is not None
        if drawn:
            assert cell.matrix is not None and scale is not None
            self._heatmap().show_matrix(cell.matrix, scale, self.text.font(), side)
        else:
            if self._fonts is not None:
                numbers, small = self._fonts
                scalar = cell.kind == "numbers" and cell.type.endswith("[]")
                wanted = small if cell.kind == "summary" else numbers if scalar else \
                    self._vector_font
                if self.text.font() != wanted:
                    self.text.setFont(wanted)
            self.text.setText(cell.text)  # (nothing when it shows that already)
        set_visible(self.text, not drawn)
        if self.heatmap is not None:
            set_visible(self.heatmap, drawn)
        histogram = cell.kind == "summary" and bool(cell.histogram)
        if histogram:
            self._histogram().show_counts(cell.histogram, cell.edges)
        if self.histogram is not None:
            set_visible(self.histogram, histogram)

    def _copy(self) -> None:
        """The value as written (its name, type and every number shown) to the clipboard."""
        if self.cell is not None:
            QGuiApplication.clipboard().setText(
                f"{self.cell.name} {self.cell.type}\n{self.cell.text}")

    def prepare(self) -> None:
        """Make the heat map and histogram (hidden) and polish every part now, so that the
        first step that shows this cell only fills it (made on demand, they cost a step
        of eight devices tens of milliseconds)."""
        heatmap, histogram = self._heatmap(), self._histogram()
        heatmap.hide()  # explicitly: shown with the cell only when filled so
        histogram.hide()
        for widget in (self, self.title, self.text, heatmap, histogram):
            widget.ensurePolished()

    def _heatmap(self) -> HeatMap:
        if self.heatmap is None:
            self.heatmap = HeatMap(self)
            self._box.insertWidget(2, self.heatmap, 0, Qt.AlignmentFlag.AlignLeft)
        return self.heatmap

    def _histogram(self) -> Histogram:
        if self.histogram is None:
            self.histogram = Histogram(self)
            self._box.insertWidget(3, self.histogram, 0, Qt.AlignmentFlag.AlignLeft)
        return self.histogram


def set_visible(widget: QWidget, visible: bool) -> None:
    """Show or hide a widget only when that changes (showing a shown widget still costs)."""
    if widget.isHidden() == visible:
        widget.setVisible(visible)


@lru_cache(maxsize=4)
def _lookup_table(name: str) -> np.ndarray:
    return colour_map(name).lookup_table(256)


def numbers_font(zoom: int, per_device: bool) -> QFont:
    """The font of written-out values: large on the host, a little smaller per device."""
    font = style.code_font(zoom + (5 if not per_device else 7))
    font.setBold(True)
    return font


def _plain(x: float) -> float | int:
    """Whole numbers without a decimal point (heat-map labels stay short)."""
    return int(x) if float(x).is_integer() and abs(x) < 1e9 else float(x)
