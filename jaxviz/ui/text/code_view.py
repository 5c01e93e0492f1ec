"""Read-only views of jaxprs and HLO: highlighting, foldable nested jaxprs, change marks."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

from PySide6.QtCore import QPoint, QRect, Qt, QTimer
from PySide6.QtGui import QFont, QPainter, QPaintEvent, QPolygon, QTextBlock, QTextCursor
from PySide6.QtWidgets import QWidget

from jaxviz.ui.text.highlighters import PygmentsHighlighter, follow_columns
from jaxviz.ui.text.text_base import LinkedTextEdit
from jaxviz.ui.theme import style
from jaxviz.views.incremental import Steps
from jaxviz.views.panes.folding import fold_regions  # (its home: no Qt)

if TYPE_CHECKING:  # the marks come with a result; their module loads with the first one
    from jaxviz.views.compare.changes import Mark

_BAR = 4
#: The GUI thread's time per paint for laying out folded lines (see
#: :meth:`CodeView.paintEvent`).
LAYOUT_MS = 3.0
#: Texts of this many lines or more are put on screen in steps (:meth:`CodeView.fill_steps`),
#: this many lines a step at most (a train step's 4,300-line jaxpr set at once was 17-23 ms).
FILL_LINES = 300
#: ...and at most this many a step (300 lines a step were up to 12 ms).
FILL_STEP_LINES = 100


class CodeView(LinkedTextEdit):
    """A read-only, highlighted, foldable text with a gutter of marks.

    Args:
        make_highlighter: builds the highlighter for the view's document
            (see :mod:`jaxviz.ui.text.highlighters`).
        marks_column: whether the gutter has the "what changed" column.
    """

    PAINTED_LAYERS = frozenset(LinkedTextEdit.LAYERS)  # read-only: painted, not Qt's ranges

    def __init__(self, make_highlighter, marks_column: bool = True,
                 parent: QWidget | None = None):
        super().__init__(parent)
        self.setReadOnly(True)
        self.setLineWrapMode(LinkedTextEdit.LineWrapMode.NoWrap)
        self.setUndoRedoEnabled(False)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse
                                     | Qt.TextInteractionFlag.TextSelectableByKeyboard)
        self.highlighter: PygmentsHighlighter = make_highlighter(self.document())
        self.highlighter.chunked = True  # read-only: long texts lexed in steps
        self.highlighter.set_view(self)
        follow_columns(self, self.highlighter)  # a very long line: coloured near the view
        self._marks_column = marks_column
        self._marks: list[Mark] = []
        self._folds: dict[int, int] = {}   # first line -> last line
        self._folded: set[int] = set()
        #: Folded lines may be without a text layout (see :meth:`paintEvent`), and where the
        #: last paint's look for them stopped: (first line in view, next line to look at).
        self._unlaid = False
        self._unlaid_at = (-1, 0)
        #: While a text is put in by :meth:`fill_steps`: the lines it has yet to add
        #: (None otherwise), and a jump asked for a line not there yet.
        self._to_fill: list[str] | None = None
        self._filled_lines = 0  # the lines of the text being filled that are there
        self._jumped = False  # a jump asked for while filling was made
        self._pending_jump: tuple[str, int] | None = None
        self.set_zoom(0)

    def set_zoom(self, zoom: int) -> None:
        font = style.code_font(zoom + style.PANE_CODE_DELTA)
        if font == self.font() and font == self.document().defaultFont():
            return  # unchanged: Qt would lay out the whole text again
        self.setFont(font)
        self.document().setDefaultFont(font)
        self._unlaid, self._unlaid_at = bool(self._folded), (-1, 0)  # all laid out anew
        self.refresh_gutter()

    def set_text(self, text: str) -> None:
        """Replace the content (keeps the scroll position where it can)."""
        self._stop_filling()
        if text == self.toPlainText():
            return
        bar = self.verticalScrollBar().value()
        self._folded.clear()
        self.highlighter.prepare_for(text)  # a long text: lexed in steps
        self.setPlainText(text)
        self.verticalScrollBar().setValue(bar)

    # ------------------------------------------------------------- in steps
    @property
    def filling(self) -> bool:
        """A text is being put in by :meth:`fill_steps` (not all of its lines are there)."""
        return self._to_fill is not None

    def expect_fill(self) -> None:
        """A text comes by :meth:`fill_steps` soon (its folds are being read): a jump asked
        for meanwhile waits for its line."""
        self._to_fill = self._to_fill if self._to_fill is not None else []
        self._filled_lines = 0

    def _not_there(self, line: int) -> bool:
        """While filling: whether ``line`` of the text being filled is not there yet."""
        return self._to_fill is not None and line >= self._filled_lines

    def fill_steps(self, text: str, regions: list[tuple[int, int]],
                   folded: list[int]) -> Steps[None]:
        """Show ``text`` with its foldable ``regions`` (``(first, last)`` lines), those
        starting at the lines ``folded`` folded: what :meth:`set_text`, :meth:`set_folds`
        and :meth:`toggle_fold` of each do at once, in steps of :data:`FILL_STEP_LINES` lines
        appended (their folded lines hidden as they come), the view painting between them.

        A jump (:meth:`reveal_line`, :meth:`scroll_to_line`) to a line not there yet is
        made when it comes; the lexing and colouring of the text begin once it is whole.
        """
        if text == self.toPlainText():  # the same text again: only its folds, one a step
            self._to_fill = None
            self._jump_if_there()
            self.set_folds(regions)
            for first in folded:
                if not self.is_folded(first):
                    self.toggle_fold(first)
                    yield
            return
        bar = self.verticalScrollBar().value()
        lines = text.split("\n")
        self.highlighter.begin_fill(text)  # lexed once, when the text is whole
        self._folds = {first: last for first, last in regions if last > first + 1}
        self._folded = {first for first in folded if first in self._folds}
        self._jumped = False
        self._to_fill = lines
        self._filled_lines = done = 0
        try:
            while done < len(lines):
                chunk = lines[done:done + min(FILL_LINES, FILL_STEP_LINES)]
                if done == 0:
                    self.setPlainText("\n".join(chunk))
                    self._hide_folded(done, done + len(chunk))
                else:  # (not repainting the view when none of the new lines shows in it)
                    with self._layout_held(self._unseen(done, done + len(chunk))):
                        cursor = QTextCursor(self.document())
                        cursor.movePosition(QTextCursor.MoveOperation.End)
                        cursor.insertText("\n" + "\n".join(chunk))
                        self._hide_folded(done, done + len(chunk))
                self._filled_lines = done = done + len(chunk)
                self._to_fill = lines[done:] if done < len(lines) else None
                self._jump_if_there()
                if done == len(lines):
                    break
                self.refresh_gutter()
                yield
        finally:
            self._to_fill = None
            self.highlighter.end_fill()
        if self._pending_jump is None and not self._jumped:
            self.verticalScrollBar().setValue(bar)
        self._jump_if_there()
        self._pending_jump = None
        self._line_layers_again()
        self.refresh_gutter()

    @contextlib.contextmanager
    def _layout_held(self, hold: bool) -> Iterator[None]:
        """While ``hold``: the document changes without repainting the view. Qt's plain-text
        layout repaints the whole view at every change of the document, wherever it is (a
        7-10 ms paint of a highlighted view at each step of a big text's fill); here its
        signals are held meanwhile, and only the new size is told after (the scroll bar's
        range follows it). For changes that show nowhere in the view."""
        layout = self.document().documentLayout()
        if not hold:
            yield
            return
        layout.blockSignals(True)
        try:
            yield
        finally:
            layout.blockSignals(False)
            layout.documentSizeChanged.emit(layout.documentSize())

    def _unseen(self, start: int, stop: int) -> bool:
        """Whether lines ``start..stop-1``, about to be added at the end, will show nowhere
        in the view: all inside folded regions, or below the lines in view."""
        if self._one_fold(start, stop):
            return True
        return self.isVisible() and self._below_view(self.document().lastBlock())

    def _one_fold(self, start: int, stop: int) -> bool:
        """Whether one folded region hides all of lines ``start..stop-1``."""
        return any(first < start and stop - 1 < self._folds[first] for first in self._folded)

    def _below_view(self, block: QTextBlock) -> bool:
        """Whether ``block`` lies wholly below the lines in view (laid out or not)."""
        first = self.firstVisibleBlock()
        if not first.isValid() or block.blockNumber() <= first.blockNumber():
            return False
        room = self.viewport().height()
        offset = self.contentOffset().y()
        probe = first
        while probe.isValid() and probe.blockNumber() < block.blockNumber():
            if not probe.isVisible():  # folded away: no room taken (and no layout asked)
                probe = self.after_hidden(probe)
                continue
            if self.blockBoundingGeometry(probe).top() + offset > room:
                return True
            probe = probe.next()
        return False

    def _stop_filling(self) -> None:
        """A fill under way leaves off (its steps are dropped by whoever ran them)."""
        if self._to_fill is not None:
            self._to_fill = None
            self._pending_jump = None
            self.highlighter.end_fill()

    def _hide_folded(self, start: int, stop: int) -> None:
        """Hide the lines ``start..stop-1`` that a folded region covers (just added)."""
        spans: list[list[int]] = []
        for a, b in sorted((max(first + 1, start), min(self._folds[first], stop))
                           for first in self._folded
                           if first + 1 < stop and self._folds[first] > start):
            if spans and a <= spans[-1][1]:
                spans[-1][1] = max(spans[-1][1], b)
            elif a < b:
                spans.append([a, b])
        if not spans:
            return
        doc = self.document()
        for a, b in spans:
            block = doc.findBlockByNumber(a)
            for _n in range(a, b):
                block.setVisible(False)
                block = block.next()
        lo, hi = spans[0][0], spans[-1][1]
        first_pos = doc.findBlockByNumber(lo).position()
        end = doc.findBlockByNumber(hi)
        end_pos = end.position() if end.isValid() else doc.characterCount() - 1
        doc.markContentsDirty(first_pos, max(0, end_pos - first_pos))
        self._unlaid, self._unlaid_at = True, (-1, 0)
        self._selections_stale = True

    def _jump_if_there(self) -> None:
        """Make the jump asked for while filling once its line is there."""
        if self._pending_jump is None:
            return
        kind, line = self._pending_jump
        if self._not_there(line):
            return
        self._pending_jump = None
        self._jumped = True
        if kind == "reveal":
            self.reveal_line(line)
        else:
            self.scroll_to_line(line)

    def _line_layers_again(self) -> None:
        """The whole-line backgrounds set while the text was filling, on the lines now
        there (a layer of few lines made Qt ranges only for the lines there then)."""
        for layer, (_generation, colours, lazy) in list(self._line_layers.items()):
            if not lazy:
                self._line_layers.pop(layer)
                self.set_line_backgrounds(layer, colours)

    def scroll_to_line(self, line: int) -> None:
        """Bring a 0-based line into view; while filling, once it is there."""
        if self._not_there(line):
            self._pending_jump = ("scroll", line)
            return
        super().scroll_to_line(line)

    # ------------------------------------------------------------------ marks
    def set_marks(self, marks: list[Mark]) -> None:
        if list(marks) == self._marks:
            return
        self._marks = list(marks)
        self.refresh_gutter()

    @property
    def marks(self) -> list[Mark]:
        return list(self._marks)

    # ------------------------------------------------------------------ folds
    def set_folds(self, regions: list[tuple[int, int]]) -> None:
        """Regions that can fold: ``(first, last)`` lines; folding hides the lines between."""
        folds = {first: last for first, last in regions if last > first + 1}
        if folds == self._folds:
            return
        self._folds = folds
        self.refresh_gutter()

    def is_folded(self, first: int) -> bool:
        return first in self._folded

    def toggle_fold(self, first: int) -> None:
        """Fold or unfold the region starting at a 0-based line."""
        last = self._folds.get(first)
        if last is None:
            return
        fold = first not in self._folded
        if fold:
            self._folded.add(first)
        else:
            self._folded.discard(first)
        doc = self.document()
        hidden: set[int] = set()  # lines another folded region keeps hidden
        if not fold:
            for f in self._folded:
                end = self._folds[f]
                if f != first and f < last and end > first:
                    hidden.update(range(max(f, first) + 1, min(end, last)))
        block = doc.findBlockByNumber(first + 1)
        for n in range(first + 1, last):  # block by block (not looked up by number: O(n))
            block.setVisible(not fold and n not in hidden)
            block = block.next()
        start = doc.findBlockByNumber(first).position()
        last_block = doc.findBlockByNumber(last)  # (not there yet while filling)
        end = last_block.position() if last_block.isValid() else doc.characterCount() - 1
        doc.markContentsDirty(start, max(0, end - start))  # (Qt drops the lines' layouts)
        self._unlaid, self._unlaid_at = True, (-1, 0)
        self._selections_stale = True  # the background ranges of lines now shown (or not)
        if not fold:
            self.highlighter.colour_unfolded()
        self.viewport().update()
        self.refresh_gutter()

    # -------------------------------------------------------------- painting
    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802
        """Paint, once the folded lines between the top of the view and its bottom have a
        text layout. Qt's paint lays out every hidden line it passes that has none (to
        learn that it takes no room): a train step's pane, its nested jaxprs folded, is
        4,000 such lines below its first few, 50 ms of one paint. They are laid out here
        :data:`LAYOUT_MS` per turn of the event loop instead, the text painted when they
        are (a pane just filled shows its background for those few turns)."""
        if self._unlaid and not self._lay_out_folded(LAYOUT_MS / 1000.0):
            painter = QPainter(self.viewport())
            painter.fillRect(event.rect(), self.palette().base())
            painter.end()
            QTimer.singleShot(0, self, self.viewport().update)
            return
        super().paintEvent(event)

    def _lay_out_folded(self, budget_s: float) -> bool:
        """Give the folded lines a paint passes a layout, for at most ``budget_s`` seconds;
        whether they all have one."""
        end = time.perf_counter() + budget_s
        block = self.firstVisibleBlock()
        top = block.blockNumber()
        if self._unlaid_at[0] == top:  # where the last look stopped
            block = self.document().findBlockByNumber(self._unlaid_at[1])
        shown = 0
        room = self.viewport().height() // max(1, self.fontMetrics().lineSpacing()) + 2
        while block.isValid() and shown <= room:
            if block.isVisible():
                shown += 1
            elif block.layout().lineCount() == 0:
                self.blockBoundingRect(block)  # (Qt lays it out)
                if time.perf_counter() > end:
                    self._unlaid_at = (top, block.blockNumber() + 1)
                    return False
            block = block.next()
        self._unlaid = False
        self._unlaid_at = (-1, 0)
        return True

    def after_hidden(self, block: QTextBlock) -> QTextBlock:
        """Past the folded region hiding ``block``: its last line (shown), not line by line."""
        n = block.blockNumber()
        ends = [self._folds[f] for f in self._folded if f < n < self._folds.get(f, f)]
        return self.document().findBlockByNumber(max(ends)) if ends else block.next()

    # ----------------------------------------------------------------- gutter
    def reveal_line(self, line: int) -> None:
        """Unfold every folded region hiding 0-based ``line``, then put the cursor on it
        (while filling, once it is there)."""
        if self._not_there(line):
            self._pending_jump = ("reveal", line)
            return
        for first in sorted(self._folded):
            if first < line < self._folds.get(first, first):
                self.toggle_fold(first)
        block = self.document().findBlockByNumber(line)
        if block.isValid():
            cursor = self.textCursor()
            cursor.setPosition(block.position())
            self.setTextCursor(cursor)
            self.centerCursor()

    def gutter_width(self) -> int:
        unit = self.fontMetrics().height()
        width = 4
        if self._folds:
            width += unit
        if self._marks_column and self._marks:
            width += int(unit * 1.3) + _BAR
        return width

    def paint_gutter(self, painter: QPainter, rect: QRect) -> None:
        unit = self.fontMetrics().height()
        glyph_x = (unit if self._folds else 0) + 2
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        visible = list(self.visible_lines())
        for line, top, bottom in visible:
            if line in self._folds:
                self._paint_triangle(painter, line, top, bottom, unit)
        if not self._marks_column:
            return
        bold = QFont(self.font())
        bold.setBold(True)
        painter.setFont(bold)
        bar_x = self.gutter_width() - _BAR - 2
        rows = {line: (top, bottom) for line, top, bottom in visible}
        for mark in self._marks:
            colour = style.MARK_COLOURS[mark.kind]
            if mark.kind == "wrapper" and mark.end > mark.start:
                spans = [rows[n] for n in range(mark.start, mark.end + 1) if n in rows]
                if spans:
                    painter.fillRect(bar_x, spans[0][0], _BAR, spans[-1][1] - spans[0][0], colour)
            if mark.start in rows:
                top, bottom = rows[mark.start]
                painter.setPen(colour)
                painter.drawText(QRect(glyph_x, top, int(unit * 1.3), bottom - top),
                                 Qt.AlignmentFlag.AlignCenter, style.MARK_GLYPHS[mark.kind])

    def _paint_triangle(self, painter: QPainter, line: int, top: int, bottom: int,
                        unit: int) -> None:
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(style.GUTTER_TEXT)
        cx, cy, r = unit // 2 + 2, (top + bottom) // 2, max(3, unit // 4)
        if line in self._folded:  # pointing right
            points = [QPoint(cx - r // 2, cy - r), QPoint(cx - r // 2, cy + r), QPoint(cx + r, cy)]
        else:  # pointing down
            points = [QPoint(cx - r, cy - r // 2), QPoint(cx + r, cy - r // 2), QPoint(cx, cy + r)]
        painter.drawPolygon(QPolygon(points))

    def gutter_clicked(self, line: int, x: float) -> None:
        if line in self._folds:
            self.toggle_fold(line)

    def gutter_tooltip(self, line: int) -> str:
        tips = [m.tip for m in self._marks if m.start == line]
        if line in self._folds:
            tips.append("click to " + ("unfold" if line in self._folded else "fold")
                        + " this nested jaxpr")
        return "\n".join(tips)

    def paint_overlay(self, painter: QPainter) -> None:
        """"⋯ N lines" after each folded line in view (only those: a train step's pane folds
        hundreds, and each label drawn, on screen or not, is laid out anew)."""
        if not self._folded:
            return
        painter.setPen(style.GUTTER_TEXT)
        shown = [line for line, _top, _bottom in self.visible_lines() if line in self._folded]
        for first in shown:
            block = self.document().findBlockByNumber(first)
            layout = block.layout()
            rect = self.line_rect(first)
            if layout is None or layout.lineCount() == 0 or rect.isNull():
                continue
            x = int(layout.lineAt(0).naturalTextWidth() + self.contentOffset().x()
                    + self.document().documentMargin()) + self.fontMetrics().horizontalAdvance(" ")
            hidden = self._folds[first] - first - 1
            painter.drawText(QRect(x, rect.top(), 400, rect.height()),
                             Qt.AlignmentFlag.AlignVCenter, f"⋯ {hidden} lines")


__all__ = ["CodeView", "fold_regions"]
