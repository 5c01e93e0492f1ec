"""The two aligned sides of a jaxpr diff and the bands between them (Meld / Compiler Explorer).

:class:`DiffColumns` shows a :class:`~jaxviz.views.compare.diff_layout.SideBySide`: the
left variant's equations in one :class:`DiffSideView`, the right's in another,
line for line (filler lines, hatched, keep a block's sides level), and in the
:class:`BandGutter` between them a band from each block's left rows to its right
rows, in the colour of what changed. Both sides scroll together, vertically and
horizontally. Every colour comes from :mod:`jaxviz.views.palette`
(``DIFF_COLOURS``): a changed row is tinted, its changed tokens highlighted.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QPoint, QPointF, QRect, Qt, Signal
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetricsF,
    QLinearGradient,
    QPainter,
    QPainterPath,
    QPen,
    QPixmap,
    QTextCharFormat,
    QTextCursor,
    QTextFormat,
)
from PySide6.QtWidgets import QHBoxLayout, QTextEdit, QToolTip, QWidget

from jaxviz.ui.text.code_view import CodeView
from jaxviz.ui.text.highlighters import jaxpr_highlighter
from jaxviz.ui.theme import style
from jaxviz.views import palette
from jaxviz.views.incremental import Steps, run_to_end

if TYPE_CHECKING:  # the diff's modules load with the first comparison, not with the window
    from jaxviz.views.compare.diff_layout import ShownLine, SideBySide

#: Lines of a side whose formats are made per step (see :meth:`DiffSideView.lines_steps`).
STEP_LINES = 250

#: Width of the band gutter, in multiples of the code font's line height.
GUTTER_LINES = 2.4


def diff_colour(category: str, mix: float = 0.0) -> QColor:
    """A category's colour (``DIFF_COLOURS``), mixed ``mix`` of the way toward white."""
    return style.qcolor(palette.diff_colour(category, mix))


class DiffSideView(CodeView):
    """One side of the diff: read-only jaxpr lines, highlighted, with source line chips.

    The gutter shows, on each equation's first line, the user's source line it
    came from, on that line's link colour (the editor's colour for it).
    """

    LAYERS = ("tint", "filler", "active", "tokens")
    #: Only the bottom layer painted by the view: the active lines stay Qt's ranges, over
    #: the fillers' (a painted layer is under every range).
    PAINTED_LAYERS = frozenset({"tint"})

    def __init__(self, which: str, parent: QWidget | None = None):
        super().__init__(jaxpr_highlighter, marks_column=False, parent=parent)
        self.which = which
        self.setObjectName(f"diff_{which}")
        self.setCursorWidth(0)  # selectable, but no caret blinking on a projector
        self.lines: list[ShownLine] = []
        #: display line -> the 1-based source line its chip shows (first lines of equations).
        self.chips: dict[int, int] = {}
        self.chip_colours: dict[int, QColor] = {}
        #: The source line lit now (its chips take its strong colour), and that colour.
        self.active: tuple[int, QColor] | None = None

    def set_lines(self, lines: list[ShownLine], tints: dict[int, QColor]) -> None:
        """Show ``lines``; tint whole lines, hatch the fillers, highlight changed spans."""
        run_to_end(self.lines_steps(lines, tints))

    def lines_steps(self, lines: list[ShownLine], tints: dict[int, QColor]) -> Steps[None]:
        """:meth:`set_lines` in steps: the text, then its formats :data:`STEP_LINES` lines
        at a time (a big diff's thousands of formatted ranges are made over several turns
        of the event loop; the window paints between them)."""
        self.lines = list(lines)
        bar = self.horizontalScrollBar().value(), self.verticalScrollBar().value()
        text = "\n".join(line.text for line in lines)
        yield
        for layer in self.LAYERS:  # the old text's ranges: Qt would move each through the edit
            self.set_selections(layer, [])
        self.flush_selections()
        # a long diff: put in a few hundred lines a step, then lexed in steps, coloured in
        # chunks (at once, a train step's 5,000 lines were 15-18 ms of one turn)
        yield from self.fill_steps(text, [], [])
        self.horizontalScrollBar().setValue(bar[0])
        self.verticalScrollBar().setValue(bar[1])
        yield
        self.set_line_backgrounds("tint", tints)
        filler = QBrush(style.qcolor(palette.DIFF_FILLER), Qt.BrushStyle.BDiagPattern)
        fillers, tokens = [], []
        filler_lines, token_lines = [], []  # (each range's lines: none to look up later)
        for n, line in enumerate(lines):
            if line.row < 0:
                fillers.append(self._whole_line(n, filler))
                filler_lines.append((n, n))
            for span in line.spans:
                fmt = QTextCharFormat()
                fmt.setBackground(diff_colour(span.kind, palette.DIFF_TOKEN_MIX))
                fmt.setFontWeight(QFont.Weight.Bold)
                tokens.append(self._range(n, span.start, span.end, fmt))
                token_lines.append((n, n))
            if n % STEP_LINES == STEP_LINES - 1:
                yield
        self.set_selections("filler", fillers, lines=filler_lines)
        self.set_selections("tokens", tokens, lines=token_lines)
        self.refresh_gutter()

    def set_chips(self, chips: dict[int, int], colours: dict[int, QColor]) -> None:
        """The source line chips: display line -> source line, and source line -> colour."""
        self.chips, self.chip_colours = dict(chips), dict(colours)
        self.refresh_gutter()

    def _whole_line(self, line: int, brush: QBrush) -> QTextEdit.ExtraSelection:
        sel = QTextEdit.ExtraSelection()
        sel.format.setBackground(brush)
        sel.format.setProperty(QTextFormat.Property.FullWidthSelection, True)
        sel.cursor = QTextCursor(self.document().findBlockByNumber(line))
        return sel

    def _range(self, line: int, start: int, end: int, fmt: QTextCharFormat
               ) -> QTextEdit.ExtraSelection:
        block = self.document().findBlockByNumber(line)
        cursor = QTextCursor(block)
        cursor.setPosition(block.position() + start)
        cursor.setPosition(block.position() + min(end, block.length() - 1),
                           QTextCursor.MoveMode.KeepAnchor)
        sel = QTextEdit.ExtraSelection()
        sel.format = fmt
        sel.cursor = cursor
        return sel

    def visible_lines_range(self) -> tuple[int, int]:
        """The first and last display line in view (``(0, -1)`` when none)."""
        lines = [line for line, _top, _bottom in self.visible_lines()]
        return (lines[0], lines[-1]) if lines else (0, -1)

    def span_rect(self, line: int, start: int, end: int) -> QRect:
        """The viewport rectangle of characters ``start:end`` of a display line."""
        block = self.document().findBlockByNumber(line)
        cursor = QTextCursor(block)
        cursor.setPosition(block.position() + start)
        left = self.cursorRect(cursor)
        cursor.setPosition(block.position() + end)
        right = self.cursorRect(cursor)
        return QRect(left.left(), left.top(), right.left() - left.left(), left.height())

    def paint_overlay(self, painter: QPainter) -> None:
        """A hairline between rows; a "…" at the right edge of every line that goes on beyond
        it (scroll sideways to read it)."""
        painter.setPen(style.qcolor(palette.DIFF_FILLER))
        shown = list(self.visible_lines())  # (asked Qt for each line's place once a paint)
        for line, top, _bottom in shown:
            if 0 < line < len(self.lines) and self.lines[line].row != self.lines[line - 1].row \
                    and not self.lines[line].filler:
                painter.drawLine(0, top, self.viewport().width(), top)
        metrics = self.fontMetrics()
        mark = metrics.horizontalAdvance("…") + 6
        right = self.viewport().width()
        x0 = self.contentOffset().x() + self.document().documentMargin()
        # the code font is monospaced: an ASCII line's width is its length in characters
        # (measuring each line's text was a third of a paint)
        exact = QFontMetricsF(self.font())
        char = exact.horizontalAdvance("0")
        fixed = char == exact.horizontalAdvance("i") == exact.horizontalAdvance("M")
        for line, top, bottom in shown:
            text = self.lines[line].text if line < len(self.lines) else ""
            width = (len(text) * char if fixed and text.isascii()
                     else metrics.horizontalAdvance(text))
            if x0 + width <= right:
                continue
            box = QRect(right - mark, top, mark, bottom - top)
            painter.fillRect(box, style.GUTTER_BACKGROUND)
            painter.setPen(style.GUTTER_TEXT)
            painter.drawText(box, Qt.AlignmentFlag.AlignCenter, "…")

    # ----------------------------------------------------------------- gutter
    def gutter_width(self) -> int:
        chips = getattr(self, "chips", {})  # CodeView asks before __init__ has set them
        digits = max(2, len(str(max(chips.values(), default=0))))
        return self.fontMetrics().horizontalAdvance("9") * digits + 14

    def paint_gutter(self, painter: QPainter, rect: QRect) -> None:
        width = self.gutter_width()
        painter.setFont(self.font())
        for line, top, bottom in self.visible_lines():
            number = self.chips.get(line)
            if number is None or bottom < rect.top() or top > rect.bottom():
                continue
            colour = self.chip_colours.get(number)
            if self.active is not None and self.active[0] == number:
                colour = self.active[1]
            if colour is not None:
                painter.fillRect(2, top + 1, width - 4, bottom - top - 2, colour)
            painter.setPen(style.qcolor(palette.INK) if colour is not None else style.GUTTER_TEXT)
            painter.drawText(QRect(0, top, width - 6, bottom - top),
                             Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                             str(number))

    def gutter_clicked(self, line: int, x: float) -> None:
        """Nothing folds here."""

    def gutter_tooltip(self, line: int) -> str:
        number = self.chips.get(line)
        return f"from source line {number}" if number is not None else ""


def _block_top(block) -> int:
    return block.top


@dataclass(frozen=True)
class Band:
    """A block's band in the gutter: its block, and the y range of each end (gutter pixels)."""

    block: int
    left_top: int
    left_bottom: int
    right_top: int
    right_bottom: int
    category: str


class BandGutter(QWidget):
    """The strip between the two sides: one band per block, left rows to right rows."""

    #: The index of the block whose band was clicked.
    bandClicked = Signal(int)

    def __init__(self, columns: DiffColumns):
        super().__init__(columns)
        self.columns = columns
        self.setMouseTracking(True)
        self.setObjectName("diff_bands")
        #: The bands drawn last, and what they were drawn for (see :meth:`paintEvent`).
        self._drawn: QPixmap | None = None
        self._drawn_key: tuple | None = None

    def _edge(self, view: DiffSideView, top: int, count: int,
              origin: int | None = None) -> tuple[int, int]:
        """The gutter y range of lines ``top .. top+count-1`` of a side (count 0: a point);
        ``origin``: the side's viewport top in gutter coordinates (:meth:`_origin`)."""
        first = view.line_rect(top)
        last = view.line_rect(top + count - 1) if count else first
        if origin is None:
            origin = self._origin(view)
        y0 = origin + first.top()
        return y0, (origin + last.bottom() + 1) if count else y0

    def _origin(self, view: DiffSideView) -> int:
        """A side's viewport top in gutter coordinates (once per paint, not per band)."""
        return self.mapFrom(self.columns, view.viewport().mapTo(self.columns, QPoint(0, 0))).y()

    def bands(self) -> list[Band]:
        """The bands of the blocks that are (partly) in view, in gutter coordinates."""
        layout = self.columns.diff_layout
        if layout is None:
            return []
        left, right = self.columns.left, self.columns.right
        lines = left.visible_lines_range()
        out = []
        at_left, at_right = self._origin(left), self._origin(right)
        # the blocks are in line order: from the last one starting at or above the view
        start = max(0, bisect.bisect_right(layout.blocks, lines[0], key=_block_top) - 1)
        for k in range(start, len(layout.blocks)):
            block = layout.blocks[k]
            if block.top > lines[1]:
                break
            if block.top + block.height <= lines[0]:
                continue
            lt, lb = self._edge(left, block.top, block.left, at_left)
            rt, rb = self._edge(right, block.top, block.right, at_right)
            out.append(Band(k, lt, lb, rt, rb, block.category))
        return out

    def band_at(self, y: float) -> Band | None:
        for band in self.bands():
            if min(band.left_top, band.right_top) <= y < max(band.left_bottom, band.right_bottom):
                return band
        return None

    def paintEvent(self, event) -> None:  # noqa: N802
        """The bands, drawn again only when they moved (or the size or colours changed):
        the gutter repaints with every repaint of either side (a colouring step's, a
        hovered row's), and its antialiased curves were 2-4 ms of each."""
        bands = self.bands()
        dpr = self.devicePixelRatioF()
        key = (self.width(), self.height(), dpr, tuple(bands),
               tuple(palette.DIFF_COLOURS.items()), style.GUTTER_BACKGROUND.rgba(),
               palette.DIFF_BAND_MIX)
        if key != self._drawn_key or self._drawn is None:
            pix = QPixmap(max(1, round(self.width() * dpr)), max(1, round(self.height() * dpr)))
            pix.setDevicePixelRatio(dpr)
            drawing = QPainter(pix)
            self._draw(drawing, bands)
            drawing.end()
            self._drawn, self._drawn_key = pix, key
        painter = QPainter(self)
        painter.drawPixmap(0, 0, self._drawn)
        painter.end()

    def _draw(self, painter: QPainter, bands: list[Band]) -> None:
        painter.fillRect(self.rect(), style.GUTTER_BACKGROUND)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        w = float(self.width())
        for band in bands:
            inset_l = 1 if band.left_bottom - band.left_top > 3 else 0
            inset_r = 1 if band.right_bottom - band.right_top > 3 else 0
            lt, lb = band.left_top + inset_l, band.left_bottom - inset_l
            rt, rb = band.right_top + inset_r, band.right_bottom - inset_r
            path = QPainterPath(QPointF(0, lt))
            path.cubicTo(QPointF(w / 2, lt), QPointF(w / 2, rt), QPointF(w, rt))
            path.lineTo(QPointF(w, rb))
            path.cubicTo(QPointF(w / 2, rb), QPointF(w / 2, lb), QPointF(0, lb))
            path.closeSubpath()
            if band.category == "replaced":
                gradient = QLinearGradient(0, 0, w, 0)
                gradient.setColorAt(0, diff_colour("removed", palette.DIFF_BAND_MIX))
                gradient.setColorAt(1, diff_colour("added", palette.DIFF_BAND_MIX))
                painter.setBrush(QBrush(gradient))
                edge = diff_colour("removed")
            else:
                painter.setBrush(diff_colour(band.category, palette.DIFF_BAND_MIX))
                edge = diff_colour(band.category)
            painter.setPen(QPen(edge, 1))
            painter.drawPath(path)

    def mouseMoveEvent(self, event) -> None:  # noqa: N802
        band = self.band_at(event.position().y())
        tip = self.columns.describe_block(band.block) if band is not None else ""
        if tip:
            QToolTip.showText(event.globalPosition().toPoint(), tip, self)
        else:
            QToolTip.hideText()

    def mousePressEvent(self, event) -> None:  # noqa: N802
        band = self.band_at(event.position().y())
        if band is not None:
            self.bandClicked.emit(band.block)


class DiffColumns(QWidget):
    """Left side, band gutter, right side; scrolled together.

    Signals:
        rowHovered(int, str): the row under the mouse and its side (-1 when none).
        rowClicked(int, str): a row was clicked (on a side, or its band: side ``""``).
    """

    rowHovered = Signal(int, str)
    rowClicked = Signal(int, str)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.diff_layout: SideBySide | None = None
        #: What changed in a row, in words (the compare view says it; its bands' tips use it).
        self.describe_row: Callable[[int], str] = lambda _row: ""
        self.left = DiffSideView("left")
        self.right = DiffSideView("right")
        self.gutter = BandGutter(self)
        box = QHBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        box.setSpacing(0)
        box.addWidget(self.left, 1)
        box.addWidget(self.gutter)
        box.addWidget(self.right, 1)
        self.left.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        for view in (self.left, self.right):
            # Both always have a horizontal bar: their viewports stay equally tall.
            view.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
            view.lineHovered.connect(lambda n, v=view: self._hovered(v, n))
            view.lineClicked.connect(lambda n, v=view: self._clicked(v, n))
            view.updateRequest.connect(lambda *_: self.gutter.update())
        self._sync(self.left.verticalScrollBar(), self.right.verticalScrollBar())
        self._sync(self.left.horizontalScrollBar(), self.right.horizontalScrollBar())
        self.gutter.bandClicked.connect(self._band_clicked)
        self.set_zoom(0)

    @staticmethod
    def _sync(a, b) -> None:
        a.valueChanged.connect(lambda v: b.setValue(v) if b.value() != v else None)
        b.valueChanged.connect(lambda v: a.setValue(v) if a.value() != v else None)

    def set_zoom(self, zoom: int) -> None:
        for view in (self.left, self.right):
            view.set_zoom(zoom)
        self.gutter.setFixedWidth(int(self.left.fontMetrics().height() * GUTTER_LINES))

    def set_layout(self, layout: SideBySide) -> None:
        """Show a layout: both sides' lines, tints and highlights, and the bands."""
        run_to_end(self.layout_steps(layout))

    def layout_steps(self, layout: SideBySide) -> Steps[None]:
        """:meth:`set_layout` in steps (see :meth:`DiffSideView.lines_steps`)."""
        self.diff_layout = layout
        # rows only one side has are tinted; a pair's changes are its tokens and band
        one_sided = {r: diff_colour(self.row_category(r), palette.DIFF_TINT_MIX)
                     for r, row in enumerate(layout.diff.rows)
                     if row.left is None or row.right is None}  # added | removed
        yield
        for which, view in (("left", self.left), ("right", self.right)):
            lines = layout.side(which)
            tints = {n: one_sided[line.row] for n, line in enumerate(lines)
                     if line.row in one_sided}  # a filler's row is -1: never one of them
            yield
            yield from view.lines_steps(lines, tints)
        self.gutter.update()

    def set_chips(self, chips: dict[str, dict[int, int]], colours: dict[int, QColor]) -> None:
        """``chips[side][display line]``: the source line an equation there came from."""
        self.left.set_chips(chips.get("left", {}), colours)
        self.right.set_chips(chips.get("right", {}), colours)

    def row_category(self, row: int) -> str:
        """What a row's tint means (see :func:`~jaxviz.views.compare.diff_layout.row_category`)."""
        from jaxviz.views.compare.diff_layout import row_category

        assert self.diff_layout is not None
        return row_category(self.diff_layout.diff.rows[row])

    def describe_block(self, block: int) -> str:
        """A block's rows and what changed (:attr:`describe_row` of each), for its band's tip."""
        if self.diff_layout is None:
            return ""
        return "\n".join(self.describe_row(r) for r in self.diff_layout.blocks[block].rows)

    def row_at(self, view: DiffSideView, line: int) -> int:
        if line < 0 or line >= len(view.lines):
            return -1
        return view.lines[line].row

    def _hovered(self, view: DiffSideView, line: int) -> None:
        self.rowHovered.emit(self.row_at(view, line), view.which)

    def _clicked(self, view: DiffSideView, line: int) -> None:
        row = self.row_at(view, line)
        if row >= 0:
            self.rowClicked.emit(row, view.which)

    def _band_clicked(self, block: int) -> None:
        if self.diff_layout is not None:
            self.rowClicked.emit(self.diff_layout.blocks[block].rows[0], "")

    # ------------------------------------------------------------ geometry
    def row_rect(self, row: int, which: str) -> QRect:
        """The rectangle (in this widget's coordinates) of a row's lines on one side."""
        view = self.left if which == "left" else self.right
        assert self.diff_layout is not None
        lines = self.diff_layout.lines_of(row, which)
        if not lines:
            return QRect()
        first, last = view.line_rect(lines[0]), view.line_rect(lines[-1])
        origin = view.viewport().mapTo(self, QPoint(0, 0))
        return QRect(origin.x(), origin.y() + first.top(), view.viewport().width(),
                     last.bottom() - first.top() + 1)

    def scroll_to_row(self, row: int) -> None:
        """Bring a row into view (centred when it was off screen)."""
        if self.diff_layout is None:
            return
        lines = self.diff_layout.lines_of(row, "right") or self.diff_layout.lines_of(row, "left")
        if lines:
            self.right.scroll_to_line(lines[0])
