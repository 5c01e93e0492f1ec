"""The gallery panel: the examples, in lecture order, with their explanations.

The list is read with :func:`jaxviz.model.list_examples` (static, no JAX).
Selecting an example shows its explanation underneath; activating it (click,
Enter or double-click) asks the window to open it.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QTextOption
from PySide6.QtWidgets import (
    QListWidget,
    QListWidgetItem,
    QSplitter,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from jaxviz.model import Example, GalleryError, list_examples
from jaxviz.model.parse import parse_module
from jaxviz.ui.text.title_label import TitleLabel
from jaxviz.views.incremental import OWN_TURN, Steps

if TYPE_CHECKING:
    from jaxviz.ui.sliced import SlicedJob

#: The examples the list always has room for.
MIN_ROWS = 5


class GalleryPanel(QWidget):
    """Examples on top, the selected example's explanation below."""

    #: The name of the example to open.
    exampleChosen = Signal(str)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.list = QListWidget()
        self.list.setObjectName("gallery_list")
        # One line per example, cut at its end (the tooltip has the title): a narrow panel
        # still shows at least MIN_ROWS of them, and no name is broken in the middle.
        self.list.setWordWrap(False)
        self.list.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.list.setUniformItemSizes(True)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        #: The example's (or file's) title: at most two lines, cut between words with "…"
        #: (whole in its tooltip) -- a narrow, zoomed panel keeps the explanation in view.
        self.title = TitleLabel()
        self.title.setObjectName("gallery_title")
        self.title.setContentsMargins(4, 4, 4, 2)
        self.explanation = QTextBrowser()
        self.explanation.setObjectName("gallery_explanation")
        self.explanation.setOpenExternalLinks(True)
        self.explanation.setWordWrapMode(QTextOption.WrapMode.WordWrap)  # never mid-word
        split = QSplitter(Qt.Orientation.Vertical)
        below = QWidget()
        column = QVBoxLayout(below)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        column.addWidget(self.title)
        column.addWidget(self.explanation, 1)
        split.addWidget(self.list)
        split.addWidget(below)
        split.setStretchFactor(0, 2)
        split.setStretchFactor(1, 3)
        split.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(split)
        self.examples: dict[str, Example] = {}
        self._explaining: SlicedJob | None = None
        try:
            examples = list_examples()
        except GalleryError as exc:
            examples = []
            self.explanation.setPlainText(str(exc))
        for n, ex in enumerate(examples, 1):
            self.examples[ex.name] = ex
            item = QListWidgetItem(f"{n}. {ex.name} — {ex.topic}")
            item.setData(Qt.ItemDataRole.UserRole, ex.name)
            item.setToolTip(ex.title)
            self.list.addItem(item)
        self._fit_rows()
        self.list.currentItemChanged.connect(self._preview)
        self.list.itemClicked.connect(self._activate)
        self.list.itemActivated.connect(self._activate)

    def _fit_rows(self) -> None:
        """Room for :data:`MIN_ROWS` examples at the current font (again after a zoom)."""
        rows = min(MIN_ROWS, self.list.count())
        row = self.list.sizeHintForRow(0) if self.list.count() else self.fontMetrics().height()
        self.list.setMinimumHeight(rows * row + 2 * self.list.frameWidth() + 2)

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt's name
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            self._fit_rows()

    def _preview(self, item: QListWidgetItem | None, _previous=None) -> None:
        if item is not None:
            self.show_explanation(item.data(Qt.ItemDataRole.UserRole))

    def _activate(self, item: QListWidgetItem) -> None:
        self.exampleChosen.emit(item.data(Qt.ItemDataRole.UserRole))

    def show_explanation(self, name: str) -> None:
        """Show an example's title and explanation (Markdown: `code` renders as code)."""
        ex = self.examples.get(name)
        if ex is None:
            return
        self.title.setText(ex.title)
        self._explain_later(ex.explanation)

    def _explain_later(self, markdown: str) -> None:
        """The explanation's Markdown is parsed and laid out in a step of its own, a turn
        after the title (:class:`~jaxviz.ui.sliced.SlicedJob`): a switch of examples
        already sets the editor's text, the arguments and the panes in its turn, and this
        2-4 ms (more at a projector's zoom) need not join them. A later explanation or
        document replaces one not yet shown (only the last one ever appears). Until it
        shows, the view is empty: the last example's explanation never stands under the
        new one's title."""
        from jaxviz.ui.sliced import SlicedJob

        self._cancel_explaining()
        self.explanation.clear()
        self._explaining = SlicedJob(self._explain_steps(markdown), parent=self).start()

    def _explain_steps(self, markdown: str) -> Steps[None]:
        yield OWN_TURN  # (laid out and painted in a turn of its own)
        self.explanation.setMarkdown(markdown)

    def _cancel_explaining(self) -> None:
        if self._explaining is not None:
            self._explaining.cancel()
            self._explaining = None

    @property
    def explaining(self) -> bool:
        """Whether an explanation is still to be shown (a later turn)."""
        return self._explaining is not None and self._explaining.busy

    def show_document(self, name: str, source: str) -> None:
        """What is open is not an example: its own docstring, if it has one, else its name
        (never the explanation of the example open before)."""
        try:
            doc = ast.get_docstring(parse_module(source)) or ""
        except (SyntaxError, ValueError):
            doc = ""
        self._cancel_explaining()  # an example's explanation not yet shown never appears
        self.title.setText(name)
        self.explanation.setMarkdown(
            doc or "Not an example of the gallery: pick one above to read its explanation.")

    def select(self, name: str | None) -> None:
        """Mark the example that is open (None: a file is open) without re-opening it."""
        self.list.blockSignals(True)
        try:
            for row in range(self.list.count()):
                item = self.list.item(row)
                if item.data(Qt.ItemDataRole.UserRole) == name:
                    self.list.setCurrentItem(item)
                    break
            else:
                self.list.clearSelection()
        finally:
            self.list.blockSignals(False)
        if name:
            self.show_explanation(name)
