"""The keyboard shortcut list (F1): a dialog that fits the screen it opens on.

The list is long (every action, the panes, the presenter keys): shown whole it
is taller than a 1366x768 laptop. Here it scrolls inside a dialog no larger
than the screen's free area, with its Close button always on screen.
"""

from __future__ import annotations

from PySide6.QtCore import QRect, QSize
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QTextBrowser, QVBoxLayout, QWidget

#: The share of the screen's free area the dialog may take at most.
SCREEN_SHARE = 0.9


class ShortcutsDialog(QDialog):
    """The shortcut table in a scrolling text view, sized to fit the screen."""

    def __init__(self, html: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("shortcuts_dialog")
        self.setWindowTitle("Keyboard shortcuts")
        self.text = QTextBrowser()
        self.text.setObjectName("shortcuts_text")
        self.text.setHtml(html)
        self.text.setOpenLinks(False)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        self.close_button = buttons.button(QDialogButtonBox.StandardButton.Close)
        box = QVBoxLayout(self)
        box.addWidget(self.text, 1)
        box.addWidget(buttons)

    def fit_to(self, available: QRect | None = None) -> QSize:
        """Size the dialog for the text, within :data:`SCREEN_SHARE` of ``available``
        (default: the free area of the screen it is on) and centre it there."""
        if available is None:
            screen = self.screen() or QGuiApplication.primaryScreen()
            available = screen.availableGeometry()
        most = QSize(int(available.width() * SCREEN_SHARE), int(available.height() * SCREEN_SHARE))
        doc = self.text.document()
        doc.setTextWidth(min(most.width() - 40, max(640, int(doc.idealWidth()))))
        chrome = self.sizeHint() - self.text.sizeHint()
        wanted = QSize(int(doc.textWidth()) + 40 + chrome.width(),
                       int(doc.size().height()) + 16 + chrome.height())
        size = wanted.boundedTo(most)
        self.resize(size)
        self.move(available.x() + (available.width() - size.width()) // 2,
                  available.y() + (available.height() - size.height()) // 2)
        return size
