"""One value of a step, drawn: numbers, a heat map, or a summary with its histogram.

A :class:`CellWidget` shows one :class:`~jaxviz.model.step_panel.Cell`; the
values panel keeps a pool of them and refills them step after step (building
pyqtgraph views costs more than filling them). Heat maps are pyqtgraph
``ImageItem`` s drawn with the colour map and levels the whole step shares
(:class:`Scale`); small matrices carry their numbers on top.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QPainter
from PySide6.QtWidgets import QFrame, QLabel, QSizePolicy, QVBoxLayout, QWidget

from jaxviz.model.palette import text_on
from jaxviz.model.step_panel import Cell
from jaxviz.model.value_text import format_number
from jaxviz.ui.theme import style

#: Colour maps of the heat maps: values of one sign, and values of both signs (0 is white).
SEQUENTIAL_MAP = "viridis"
DIVERGING_MAP = "CET-D1"
#: The largest side, in pixels, of a heat map; and the smallest cell.
HEATMAP_SIDE = 240
MIN_CELL_PX = 6
#: The largest cell, in pixels (a 2 x 2 matrix stays a small square).
MAX_CELL_PX = 52
#: Cells at least this many pixels tall carry their numbers.
NUMBERS_MIN_PX = 22
#: The histogram's size in pixels.
HISTOGRAM_SIZE = (200, 56)


@dataclass(frozen=True)
class Scale:
    """The colour scale every heat map of a step shares."""

    low: float
    high: float
    diverging: bool

    @property
    def colour_map(self) -> pg.ColorMap:
        return _colour_map(DIVERGING_MAP if self.diverging else SEQUENTIAL_MAP)

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
        return self.colour_map.map((value - low) / (high - low), mode="qcolor")


class _Numbers(pg.GraphicsObject):
    """A matrix's numbers, one per heat-map cell, in device pixels (never stretched)."""

    def __init__(self) -> None:
        super().__init__()
        self._texts: list[list[str]] = []
        self._colours: list[list[QColor]] = []
        self.font = QFont()

    def set_numbers(self, texts: list[list[str]], colours: list[list[QColor]]) -> None:
        self.prepareGeometryChange()
        self._texts, self._colours = texts, colours
        self.update()

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt's name
        rows = len(self._texts)
        cols = len(self._texts[0]) if rows else 0
        return QRectF(0, 0, cols, rows)

    def paint(self, painter: QPainter, *_args) -> None:
        if not self._texts:
            return
        transform = painter.transform()
        painter.save()
        painter.resetTransform()
        painter.setFont(self.font)
        for r, row in enumerate(self._texts):
            for c, text in enumerate(row):
                top_left = transform.map(QPointF(c, r))
                bottom_right = transform.map(QPointF(c + 1, r + 1))
                painter.setPen(self._colours[r][c])
                painter.drawText(QRectF(top_left, bottom_right).normalized(),
                                 Qt.AlignmentFlag.AlignCenter, text)
        painter.restore()


class HeatMap(pg.GraphicsView):
    """A matrix as a pyqtgraph ``ImageItem`` on a shared :class:`Scale`."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent, background=None)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.view = pg.ViewBox(enableMouse=False, enableMenu=False, invertY=True,
                               defaultPadding=0.0)
        self.setCentralItem(self.view)
        self.image = pg.ImageItem(axisOrder="row-major")
        self.view.addItem(self.image)
        self.numbers = _Numbers()
        self.view.addItem(self.numbers)
        self.matrix = np.zeros((0, 0))
        self.cell_px = 0

    def show_matrix(self, matrix: list[list[float]], scale: Scale, font: QFont) -> None:
        """Draw ``matrix`` on ``scale``; numbers on top when the cells are large enough."""
        data = np.asarray(matrix, dtype=np.float64)
        rows, cols = data.shape
        self.matrix = data
        px = max(MIN_CELL_PX, min(HEATMAP_SIDE // max(cols, 1), HEATMAP_SIDE // max(rows, 1),
                                  MAX_CELL_PX))
        self.cell_px = px
        self.setFixedSize(cols * px, rows * px)
        self.image.setLookupTable(scale.lookup_table)
        self.image.setLevels(scale.levels)
        self.image.setImage(data, autoLevels=False)
        self.view.setRange(xRange=(0, cols), yRange=(0, rows), padding=0)
        texts: list[list[str]] = []
        colours: list[list[QColor]] = []
        if px >= NUMBERS_MIN_PX:
            fitted = QFont(font)
            fitted.setPixelSize(max(10, min(int(px * 0.5), 20)))
            self.numbers.font = fitted
            for row in data:
                texts.append([format_number(_plain(x), 3) for x in row])
                colours.append([QColor(text_on(scale.colour(float(x)).name())) for x in row])
        self.numbers.set_numbers(texts, colours)

    @property
    def levels(self) -> tuple[float, float]:
        low, high = self.image.getLevels()
        return float(low), float(high)


class Histogram(pg.GraphicsView):
    """A summary's histogram: one bar per bin."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent, background=None)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setFixedSize(*HISTOGRAM_SIZE)
        self.view = pg.ViewBox(enableMouse=False, enableMenu=False, defaultPadding=0.02)
        self.setCentralItem(self.view)
        self.bars = pg.BarGraphItem(x0=[0], x1=[1], height=[0], brush="#55606C", pen=None)
        self.view.addItem(self.bars)

    def show_counts(self, counts: list[int], edges: list[float]) -> None:
        self.bars.setOpts(x0=edges[:-1], x1=edges[1:], height=counts)
        self.view.setRange(xRange=(edges[0], edges[-1]), yRange=(0, max(counts) or 1))


class CellWidget(QFrame):
    """One value: its name and type above numbers, a heat map or a summary."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setProperty("role", "value-cell")
        self.title = QLabel()
        self.title.setTextFormat(Qt.TextFormat.RichText)
        self.text = QLabel()
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.text.setWordWrap(False)
        self.text.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
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

    def set_fonts(self, numbers: QFont, small: QFont) -> None:
        if self._fonts != (numbers, small):
            self._fonts = (numbers, small)
            self.title.setFont(small)

    def show_cell(self, cell: Cell, scale: Scale | None) -> None:
        """Show one value (``scale``: the step's heat-map scale)."""
        self.cell = cell
        self.title.setText(f"<b>{cell.name}</b> <span style='color:#55606C'>{cell.type}</span>")
        self.setToolTip(cell.text if cell.kind != "numbers" else "")
        drawn = cell.kind == "heatmap" and cell.matrix is not None and scale is not None
        if drawn:
            assert cell.matrix is not None and scale is not None
            self._heatmap().show_matrix(cell.matrix, scale, self.text.font())
        else:
            font = self._fonts[1] if self._fonts and cell.kind == "summary" else None
            if font is not None or self._fonts:
                wanted = font or self._fonts[0]  # type: ignore[index]
                if self.text.font() != wanted:
                    self.text.setFont(wanted)
            if self.text.text() != cell.text:
                self.text.setText(cell.text)
        set_visible(self.text, not drawn)
        if self.heatmap is not None:
            set_visible(self.heatmap, drawn)
        histogram = cell.kind == "summary" and bool(cell.histogram)
        if histogram:
            self._histogram().show_counts(cell.histogram, cell.edges)
        if self.histogram is not None:
            set_visible(self.histogram, histogram)

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
def _colour_map(name: str) -> pg.ColorMap:
    return pg.colormap.get(name)


@lru_cache(maxsize=4)
def _lookup_table(name: str) -> np.ndarray:
    return _colour_map(name).getLookupTable(nPts=256)


def numbers_font(zoom: int, per_device: bool) -> QFont:
    """The font of written-out values: large on the host, a little smaller per device."""
    font = style.code_font(zoom + (5 if not per_device else 7))
    font.setBold(True)
    return font


def _plain(x: float) -> float | int:
    """Whole numbers without a decimal point (heat-map labels stay short)."""
    return int(x) if float(x).is_integer() and abs(x) < 1e9 else float(x)
