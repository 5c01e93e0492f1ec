"""Find (Ctrl+F) and go to line (Ctrl+G) in a read-only code view.

:class:`FindBar` sits under a :class:`~jaxviz.ui.text.code_view.CodeView`:
typing searches as you type (case-insensitive, wrapping around), Enter and
F3 go to the next match, Shift+Enter the previous one, Escape closes the bar.
In go-to-line mode the number typed is a 1-based line; a line inside a folded
nested jaxpr unfolds first. The bar says how many lines match, or why it
found nothing.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeyEvent, QKeySequence, QShortcut, QTextCursor, QTextDocument
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QToolButton, QWidget

from jaxviz.ui.text.code_view import CodeView


class _Field(QLineEdit):
    def __init__(self, bar: FindBar):
        super().__init__(bar)
        self.bar = bar

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt's name
        key = event.key()
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_F3):
            self.bar.go(backward=bool(event.modifiers() & Qt.KeyboardModifier.ShiftModifier))
        elif key == Qt.Key.Key_Escape:
            self.bar.close_bar()
        else:
            super().keyPressEvent(event)
            return
        event.accept()


class FindBar(QWidget):
    """Find text or go to a line in ``view``; shortcuts live on ``host`` (the pane)."""

    def __init__(self, view: CodeView, host: QWidget):
        super().__init__(host)
        self.view = view
        self.mode = "find"
        self.field = _Field(self)
        self.field.setObjectName("find_field")
        self.field.setClearButtonEnabled(True)
        self.field.textEdited.connect(lambda _t: self.go(incremental=True))
        self.status = QLabel(self)
        self.status.setObjectName("find_status")
        close = QToolButton(self)
        close.setText("✕")
        close.setAutoRaise(True)
        close.setToolTip("Close (Esc)")
        close.clicked.connect(self.close_bar)
        row = QHBoxLayout(self)
        row.setContentsMargins(4, 2, 4, 2)
        row.addWidget(self.field, 1)
        row.addWidget(self.status)
        row.addWidget(close)
        self.hide()
        for keys, mode in ((QKeySequence.StandardKey.Find, "find"), ("Ctrl+G", "line")):
            shortcut = QShortcut(QKeySequence(keys), host)
            shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            shortcut.activated.connect(lambda mode=mode: self.open_bar(mode))

    def open_bar(self, mode: str = "find") -> None:
        """Show the bar in ``find`` or ``line`` mode, its field selected."""
        self.mode = mode
        self.field.setPlaceholderText("Find in the jaxpr (Enter: next, Shift+Enter: previous)"
                                      if mode == "find" else
                                      f"Go to line (1 to {self.view.blockCount()})")
        if mode == "line":
            self.field.clear()
        self.status.clear()
        self.show()
        self.field.setFocus()
        self.field.selectAll()

    def close_bar(self) -> None:
        self.hide()
        self.view.setFocus()

    def go(self, backward: bool = False, incremental: bool = False) -> bool:
        """Find the next match (or go to the line typed); False, saying why, when none."""
        text = self.field.text().strip()
        if not text:
            self.status.clear()
            return False
        if self.mode == "line":
            if incremental:
                return False
            return self.go_to_line(text)
        return self.find_text(text, backward, incremental)

    def go_to_line(self, text: str) -> bool:
        count = self.view.blockCount()
        if not text.isdigit() or not 1 <= int(text) <= count:
            self.status.setText(f"a line from 1 to {count}")
            return False
        self.view.reveal_line(int(text) - 1)
        self.status.setText(f"line {text}")
        return True

    def find_text(self, text: str, backward: bool = False, incremental: bool = False) -> bool:
        doc = self.view.document()
        cursor = self.view.textCursor()
        if incremental:  # search as you type: from the start of the current match
            cursor.setPosition(cursor.selectionStart())
        flags = QTextDocument.FindFlag.FindBackward if backward else QTextDocument.FindFlag(0)
        found = doc.find(text, cursor, flags)
        if found.isNull():  # wrap around
            start = QTextCursor(doc)
            if backward:
                start.movePosition(QTextCursor.MoveOperation.End)
            found = doc.find(text, start, flags)
        if found.isNull():
            self.status.setText("not found")
            return False
        self.view.reveal_line(found.blockNumber())
        self.view.setTextCursor(found)
        self.view.centerCursor()
        lines = sum(text.lower() in doc.findBlockByNumber(n).text().lower()
                    for n in range(doc.blockCount()))
        self.status.setText(f"line {found.blockNumber() + 1} · {lines} lines match")
        return True
