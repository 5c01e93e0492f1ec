"""The one Export menu: built from the export registry, used by every view that exports.

As pyqtgraph's context menu lists every registered exporter, an
:class:`ExportMenu` lists the formats of the subjects a view exports
(:func:`jaxviz.views.exports.exporters`): the device view passes ``frame`` and
``animation``, the timing view ``plot`` and ``run``. A format registered once
appears in every menu of its subject. A view adds its own entries (the timing
view's "all plots into a folder") and its choices (size, theme) with
:meth:`ExportMenu.add_entry` and :meth:`ExportMenu.add_choices`.

Example:
    >>> menu = ExportMenu([("frame", "This frame")])          # doctest: +SKIP
    >>> menu.requested.connect(lambda subject, name: ...)      # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import Signal
from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QMenu, QWidget

from jaxviz.views.exports import exporters


class ExportMenu(QMenu):
    """The formats of some export subjects, from the registry, in registration order.

    Args:
        subjects: ``(subject, heading)`` pairs, in menu order; a heading starts a
            section ("" for none).

    Signals:
        requested(str, str): an entry was chosen: its subject and name (``frame``,
            ``png``; ``plot``, ``pdf``; or a view's own entry).
    """

    requested = Signal(str, str)

    def __init__(self, subjects: Sequence[tuple[str, str]], parent: QWidget | None = None):
        super().__init__(parent)
        #: ``(subject, name) -> action`` of every entry.
        self.actions_by_format: dict[tuple[str, str], QAction] = {}
        for subject, heading in subjects:
            self.add_subject(subject, heading)

    def add_subject(self, subject: str, heading: str = "") -> None:
        """An entry for each format of ``subject`` (under ``heading``, if given)."""
        if heading:
            self.addSection(heading)
        for exporter in exporters(subject):
            self.add_entry(subject, exporter.name, f"{exporter.description}…")

    def add_entry(self, subject: str, name: str, text: str) -> QAction:
        """One entry; choosing it emits ``requested(subject, name)``."""
        action = self.addAction(text)
        action.triggered.connect(
            lambda _checked=False, s=subject, n=name: self.requested.emit(s, n))
        self.actions_by_format[subject, name] = action
        return action

    def add_choices(self, title: str, names: Sequence[str],
                    choose: Callable[[str], None]) -> tuple[QMenu, dict[str, QAction]]:
        """A submenu of exclusive, checkable choices (a size, a theme); choosing one
        calls ``choose(name)``. Returns the submenu and its actions by name."""
        menu = self.addMenu(title)
        group = QActionGroup(menu)
        actions: dict[str, QAction] = {}
        for name in names:
            action = menu.addAction(name)
            action.setCheckable(True)
            group.addAction(action)
            action.triggered.connect(lambda _checked=False, n=name: choose(n))
            actions[name] = action
        return menu, actions
