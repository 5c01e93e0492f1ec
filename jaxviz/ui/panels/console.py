"""The console pane: what the user's function printed while it was traced.

Each trace adds a header line, then the function's standard output in the
normal colour and its standard error in red. Only traces that printed
something add to the console, so repeated re-traces do not flood it.
"""

from __future__ import annotations

import time

from PySide6.QtGui import QColor, QFont, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import QPlainTextEdit, QWidget

from jaxviz.ui.theme import style


class ConsolePane(QPlainTextEdit):
    """Read-only log of the function's output, newest at the bottom."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("console")
        self.setReadOnly(True)
        self.setMaximumBlockCount(5000)
        self.setPlaceholderText("What your function prints while JAX traces it appears here; "
                                "Run ▸ Run Once (Ctrl+R) adds what it prints when it runs.")
        self.set_zoom(0)

    def start_document(self, name: str) -> None:
        """Another document is open: what earlier documents printed is not shown under it."""
        self.clear()
        what = f"{name} prints" if name else "your function prints"
        self.setPlaceholderText(f"What {what} while JAX traces it appears here; Run ▸ Run "
                                f"Once (Ctrl+R) adds what it prints when it runs.")

    def set_zoom(self, zoom: int) -> None:
        self.setFont(style.code_font(zoom - 1))

    def add_output(self, title: str, stdout: str, stderr: str) -> bool:
        """Append one trace's output under a header; False (nothing added) if it printed nothing."""
        if not stdout.strip() and not stderr.strip():
            return False
        header = QTextCharFormat()
        header.setForeground(style.GUTTER_TEXT)
        header.setFontWeight(QFont.Weight.Bold)
        normal = QTextCharFormat()
        error = QTextCharFormat()
        error.setForeground(QColor(style.ERROR_COLOUR))
        cursor = self.textCursor()
        cursor.movePosition(QTextCursor.MoveOperation.End)
        if not self.document().isEmpty():
            cursor.insertText("\n", normal)
        cursor.insertText(f"── {title} · {time.strftime('%H:%M:%S')} ──\n", header)
        if stdout.strip():
            cursor.insertText(stdout.rstrip("\n") + ("\n" if stderr.strip() else ""), normal)
        if stderr.strip():
            cursor.insertText(stderr.rstrip("\n"), error)
        self.setTextCursor(cursor)
        self.ensureCursorVisible()
        return True

    def add_message(self, text: str, is_error: bool = False) -> None:
        """Append a line of jaxviz's own (e.g. an engine restart)."""
        fmt = QTextCharFormat()
        fmt.setForeground(QColor(style.ERROR_COLOUR) if is_error else style.GUTTER_TEXT)
        cursor = self.textCursor()
        cursor.movePosition(QTextCursor.MoveOperation.End)
        if not self.document().isEmpty():
            cursor.insertText("\n", fmt)
        cursor.insertText(f"[{time.strftime('%H:%M:%S')}] {text}", fmt)
        self.setTextCursor(cursor)
        self.ensureCursorVisible()
