"""The editor with its header (file, function picker), notices and error line."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from jaxviz.ui.text.editor import CodeEditor
from jaxviz.ui.text.elided import ElidedLabel
from jaxviz.ui.text.plain import plain
from jaxviz.ui.theme import style
from jaxviz.views import palette


class Notice(QFrame):
    """A yellow bar with a message and a few buttons (file changed on disk, recovered text)."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("notice")
        background, _text, border = palette.BANNERS["warning"]
        self.setStyleSheet(f"#notice {{ background: {background}; "
                           f"border-bottom: 1px solid {border}; }}")
        self.label = plain(QLabel())
        self.label.setWordWrap(True)
        self._buttons = QHBoxLayout()
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 4, 8, 4)
        layout.addWidget(self.label, 1)
        layout.addLayout(self._buttons)
        self.hide()

    def _choose(self, action: Callable[[], object]) -> None:
        self.hide()
        action()

    def ask(self, message: str, choices: list[tuple[str, Callable[[], object]]]) -> None:
        """Show ``message`` with one button per ``(label, action)``; any button closes it."""
        while self._buttons.count():
            item = self._buttons.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:  # gone at once, not at the next turn of the event loop
                widget.setParent(None)
                widget.deleteLater()
        self.label.setText(message)
        for label, action in choices:
            button = QPushButton(label)
            button.clicked.connect(lambda _=False, a=action: self._choose(a))
            self._buttons.addWidget(button)
        self.show()


class EditorPanel(QWidget):
    """Header (file name, modified mark, function picker), notice bar, editor, error line."""

    #: The user picked another function of the file.
    functionChosen = Signal(str)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        header = style.PaneHeader()
        # A long name is elided with "…" (its tooltip has the path) rather than cut off
        # mid-word or widening the window.
        self.file_label = ElidedLabel()
        self.file_label.setText("no file")
        style.set_role(self.file_label, "pane-title")
        self.function = QComboBox()
        self.function.setObjectName("function_picker")
        self.function.setMinimumContentsLength(12)
        self.function.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.function.setToolTip("The function of this file to trace")
        self.function.activated.connect(
            lambda i: self.functionChosen.emit(self.function.itemText(i)))
        head = QHBoxLayout(header)
        head.setContentsMargins(8, 4, 8, 4)
        head.addWidget(self.file_label, 1)
        head.addWidget(QLabel("function"))
        head.addWidget(self.function)
        self.notice = Notice()
        self.editor = CodeEditor()
        self.editor.setObjectName("editor")
        self.error = plain(QLabel())
        self.error.setObjectName("editor_error")
        style.set_role(self.error, "banner", severity="error")
        self.error.setWordWrap(True)
        self.error.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.error.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(header)
        layout.addWidget(self.notice)
        layout.addWidget(self.editor, 1)
        layout.addWidget(self.error)

    def set_title(self, name: str, modified: bool, tooltip: str = "") -> None:
        self.file_label.setText(f"{name}{'  ● unsaved' if modified else ''}")
        self.file_label.setToolTip(tooltip)

    def set_functions(self, names: list[str], current: str) -> None:
        """Fill the function picker (keeps ``current`` even if the source no longer defines it)."""
        self.function.blockSignals(True)
        self.function.clear()
        items = list(names)
        if current and current not in items:
            items.append(current)
        self.function.addItems(items)
        if current:
            self.function.setCurrentText(current)
        self.function.blockSignals(False)

    def show_error(self, line: int, message: str) -> None:
        """Mark a 1-based line in the editor and spell the message out under it."""
        if line:
            self.editor.set_error(line, message)
        else:
            self.editor.clear_error()
        prefix = f"line {line}: " if line else ""
        self.error.setText(f"⚠ {prefix}{message}")
        self.error.show()

    def clear_error(self) -> None:
        self.editor.clear_error()
        self.error.hide()
