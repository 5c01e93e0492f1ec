"""The embedded Python editor: highlighting, line numbers, link colours, error markers.

Lines are 1-based in this module's public API (as Python and tracebacks count
them); the widget underneath counts blocks from 0.
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QContextMenuEvent,
    QFont,
    QFontMetrics,
    QKeyEvent,
    QPainter,
    QTextCursor,
)
from PySide6.QtWidgets import QMenu, QWidget

from jaxviz.ui.text.highlighters import follow_columns, python_highlighter
from jaxviz.ui.text.text_base import LinkedTextEdit
from jaxviz.ui.theme import style
from jaxviz.views import palette

_STRIPE = 5  # width of the link-colour stripe at the gutter's right edge
_INDENT = "    "


class CodeEditor(LinkedTextEdit):
    """Python editor whose lines share colours with the equations they produced."""

    #: 1-based source line under the mouse, 0 when none.
    sourceLineHovered = Signal(int)
    #: 1-based source line clicked.
    sourceLineClicked = Signal(int)
    #: "Step to this line": the context menu's, or a click on a line number in step mode.
    runToLineRequested = Signal(int)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setLineWrapMode(LinkedTextEdit.LineWrapMode.NoWrap)
        self.highlighter = python_highlighter(self.document())
        follow_columns(self, self.highlighter)  # a very long line: coloured near the view
        self._error_line = 0
        self._error_message = ""
        self._link: dict[int, QColor] = {}
        self._active = 0
        #: What set_link_colours and set_active_line showed last, and for which text.
        self._link_text = -1
        self._active_shown: tuple[int, QColor | None, int] = (0, None, -1)
        #: Step mode is on: a click on a line number runs the stepper to that line.
        self.stepping = False
        self.set_zoom(0)
        self.lineHovered.connect(lambda n: self.sourceLineHovered.emit(n + 1 if n >= 0 else 0))
        self.lineClicked.connect(lambda n: self.sourceLineClicked.emit(n + 1))

    def set_zoom(self, zoom: int) -> None:
        """Use the code font at a zoom level."""
        font = style.code_font(zoom)
        self.setFont(font)
        self.document().setDefaultFont(font)
        self.setTabStopDistance(QFontMetrics(font).horizontalAdvance(" ") * 4)
        self.refresh_gutter()

    # ----------------------------------------------------------------- gutter
    def gutter_width(self) -> int:
        digits = max(2, len(str(self.blockCount())))
        metrics = self.fontMetrics()
        return metrics.horizontalAdvance("9") * digits + self._marker_size() + _STRIPE + 12

    def paint_gutter(self, painter: QPainter, rect: QRect) -> None:
        width = self.gutter_width()
        marker = self._marker_size()
        painter.setFont(self.font())
        for line, top, bottom in self.visible_lines():
            if bottom < rect.top() or top > rect.bottom():
                continue
            number = line + 1
            colour = self._link.get(number)
            if colour is not None:
                strong = number == self._active
                painter.fillRect(width - _STRIPE, top, _STRIPE, bottom - top,
                                 style.ACTIVE_OUTLINE if strong else colour.darker(125))
            if number == self._error_line:
                painter.setRenderHint(QPainter.RenderHint.Antialiasing)
                painter.setBrush(style.ERROR_COLOUR)
                painter.setPen(Qt.PenStyle.NoPen)
                size = marker - 2
                painter.drawEllipse(3, top + (bottom - top - size) // 2, size, size)
                painter.setPen(QColor(palette.WHITE))
                bold = QFont(self.font())
                bold.setBold(True)
                painter.setFont(bold)
                painter.drawText(QRect(3, top + (bottom - top - size) // 2, size, size),
                                 Qt.AlignmentFlag.AlignCenter, "!")
                painter.setFont(self.font())
            painter.setPen(style.ERROR_COLOUR if number == self._error_line else style.GUTTER_TEXT)
            painter.drawText(QRect(marker + 2, top, width - marker - _STRIPE - 8, bottom - top),
                             Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                             str(number))

    def _marker_size(self) -> int:
        return int(self.fontMetrics().height() * 0.8) + 4

    def gutter_tooltip(self, line: int) -> str:
        if line + 1 == self._error_line:
            return self._error_message
        return f"Step to line {line + 1}" if self.stepping else ""

    def gutter_clicked(self, line: int, x: float) -> None:
        if self.stepping:
            self.runToLineRequested.emit(line + 1)

    # ------------------------------------------------------------ step mode
    def context_menu(self, pos: QPoint) -> QMenu:
        """The right-click menu at ``pos``: the standard edit actions and "Step to line N"."""
        menu = self.createStandardContextMenu(pos)
        line = self.cursorForPosition(pos).blockNumber() + 1
        menu.addSeparator()
        action = menu.addAction(f"Step to line {line}")
        action.setObjectName("step_to_line")
        action.setToolTip("Step through the focused pane's jaxpr with real values, to the "
                          "first equation this line produced")
        action.triggered.connect(lambda _=False: self.runToLineRequested.emit(line))
        return menu

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:  # noqa: N802 - Qt's name
        menu = self.context_menu(event.pos())
        menu.exec(event.globalPos())
        menu.deleteLater()

    # ----------------------------------------------------------------- errors
    def set_error(self, line: int, message: str) -> None:
        """Mark a 1-based line as wrong and show the message at its end."""
        line = max(1, min(line, self.blockCount()))
        self._error_line, self._error_message = line, message
        self.set_line_backgrounds("error", {line - 1: style.ERROR_BACKGROUND})
        self.refresh_gutter()
        self.viewport().update()

    def clear_error(self) -> None:
        if self._error_line:
            self._error_line, self._error_message = 0, ""
            self.set_line_backgrounds("error", {})
            self.refresh_gutter()
            self.viewport().update()

    @property
    def error_line(self) -> int:
        """The 1-based line marked as wrong, 0 when none."""
        return self._error_line

    @property
    def error_message(self) -> str:
        return self._error_message

    def paint_overlay(self, painter: QPainter) -> None:
        if not self._error_line:
            return
        block = self.document().findBlockByNumber(self._error_line - 1)
        layout = block.layout()
        if not block.isVisible() or layout is None or layout.lineCount() == 0:
            return
        rect = self.line_rect(self._error_line - 1)
        x = int(layout.lineAt(0).naturalTextWidth() + self.contentOffset().x()
                + self.document().documentMargin()) + self.fontMetrics().horizontalAdvance("  ")
        font = QFont(self.font())
        font.setItalic(True)
        painter.setFont(font)
        painter.setPen(style.ERROR_COLOUR)
        first = self._error_message.splitlines()[0] if self._error_message else ""
        painter.drawText(QRect(x, rect.top(), max(0, self.viewport().width() - x), rect.height()),
                         Qt.AlignmentFlag.AlignVCenter, f"◀ {first}")

    # ---------------------------------------------------------------- linking
    def set_link_colours(self, colours: dict[int, QColor]) -> None:
        """Background colours of 1-based source lines (those that produced equations)."""
        if colours == self._link and (not colours or self._link_text == self._generation):
            return  # (unchanged, for the same text, or none again: no repaint -- a new
            # result clears the last one's colours before its own come)
        self._link, self._link_text = dict(colours), self._generation
        self.set_line_backgrounds("link", {n - 1: c for n, c in colours.items()})
        self._gutter.update()

    def set_active_line(self, line: int, colour: QColor | None = None) -> None:
        """Highlight one 1-based source line strongly (0 to clear)."""
        shown = self._active_shown
        if (line, colour) == shown[:2] and (not line or shown[2] == self._generation):
            return  # (unchanged, for the same text, or none again: no repaint)
        self._active_shown = (line, colour, self._generation)
        self._active = line
        if line and colour is not None:
            self.set_line_backgrounds("active", {line - 1: colour})
            self.set_outlined([(line - 1, line - 1)])
        else:
            self.set_line_backgrounds("active", {})
            self.set_outlined([])
        self._gutter.update()

    @property
    def active_line(self) -> int:
        """The strongly highlighted 1-based source line, 0 when none."""
        return self._active

    def reveal_line(self, line: int) -> None:
        """Scroll a 1-based line into view."""
        self.scroll_to_line(line - 1)

    # ----------------------------------------------------------------- typing
    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802
        key = event.key()
        if key == Qt.Key.Key_Tab and not event.modifiers():
            self.insertPlainText(_INDENT)
            return
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and not event.modifiers():
            cursor = self.textCursor()
            text = cursor.block().text()[:cursor.positionInBlock()]
            indent = text[:len(text) - len(text.lstrip())]
            if text.rstrip().endswith(":"):
                indent += _INDENT
            cursor.insertText("\n" + indent)
            self.ensureCursorVisible()
            return
        if key == Qt.Key.Key_Backspace and not event.modifiers():
            cursor = self.textCursor()
            before = cursor.block().text()[:cursor.positionInBlock()]
            if before and not before.strip() and not cursor.hasSelection():
                remove = len(before) % len(_INDENT) or len(_INDENT)
                cursor.movePosition(QTextCursor.MoveOperation.Left,
                                    QTextCursor.MoveMode.KeepAnchor, remove)
                cursor.removeSelectedText()
                return
        super().keyPressEvent(event)
