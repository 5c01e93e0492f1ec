"""Presenter keys, window-level: the Qt side of :mod:`jaxviz.views.window.clicker_views`.

:class:`PresenterKeys` routes Right/Left, Page Down/Up and Space to the
stepping view shown now (the registry's
:meth:`~jaxviz.views.window.clicker_views.ClickerViews.current`),
whichever widget of a watched window has the keyboard focus -- the gallery, a
jaxpr pane, a tab bar, a button -- except that a text field being typed in keeps
Right, Left and Space (:func:`~jaxviz.views.window.clicker_views.presenter_move`).
When no stepping view is shown, every key goes where it always went.

A clicker in the code editor: Page Down/Up always step the view shown (an editor
does not type them), and once one has, the editor gives up Right, Left, Space and
the blank-screen keys too -- the presenter is clicking, not typing -- until a key
that is not a clicker's is typed, the editor is clicked, or the focus moves.

Qt first asks the focused widget whether it wants a key that may be a shortcut
(``ShortcutOverride``), then delivers it (``KeyPress``). The filter answers
both on the focused widget only -- it follows the focus -- so the keys reach no
scrolling list or editor while a view steps, and no other event of the
application passes through Python.

Example:
    >>> keys = PresenterKeys(window.clicker_views, window)    # doctest: +SKIP
    >>> keys.watch(presentation_window)                         # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QLineEdit,
    QPlainTextEdit,
    QTextEdit,
    QWidget,
)
from shiboken6 import isValid

from jaxviz.ui.keys import name_of
from jaxviz.views.keys import BLANK_KEYS
from jaxviz.views.window.clicker_views import PRESENTER_KEYS, ClickerViews, presenter_move

_MODIFIERS = (Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier
              | Qt.KeyboardModifier.ShiftModifier | Qt.KeyboardModifier.MetaModifier)


def edits_text(widget: QObject | None) -> bool:
    """True for a widget that types or edits text (it keeps Right, Left and Space)."""
    if isinstance(widget, (QPlainTextEdit, QTextEdit)):
        return not widget.isReadOnly()
    if isinstance(widget, QComboBox):
        return widget.isEditable()
    return isinstance(widget, (QLineEdit, QAbstractSpinBox))


class PresenterKeys(QObject):
    """Sends the presenter keys of the watched windows to the registry's current view."""

    def __init__(self, views: ClickerViews, window: QWidget,
                 code_locked: Callable[[], bool] | None = None) -> None:
        """Route ``window``'s presenter keys to ``views``.

        Args:
            code_locked: whether the code editor gives up Right, Left and Space too (step
                mode is on, a view fills the window): a clicker never edits code then.
        """
        super().__init__(window)
        self.views = views
        self.code_locked = code_locked or (lambda: False)
        #: the view a clicker's Page Down/Up stepped while the editor had the focus (the
        #: editor gives up the clicker's keys while that view still takes them)
        self._clicked: object | None = None
        self._windows: list[QWidget] = []
        self._watched: QWidget | None = None
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.focusChanged.connect(self._focus_moved)
        self.watch(window)

    def watch(self, window: QWidget) -> None:
        """Route the keys of ``window`` (a top-level window: the main window, a
        presentation) too; it also gets them while none of its widgets has the focus."""
        if window in self._windows:
            return
        self._windows.append(window)
        window.installEventFilter(self)
        window.destroyed.connect(lambda _=None, w=window: self._windows.remove(w)
                                 if w in self._windows else None)
        app = QApplication.instance()
        if isinstance(app, QApplication):
            self._focus_moved(None, app.focusWidget())

    @property
    def clicking(self) -> bool:
        """Whether a clicker is stepping, from the editor, the view that takes the keys."""
        return self._clicked is not None and self._clicked is self.views.current()

    def _focus_moved(self, _old: QWidget | None, new: QWidget | None) -> None:
        if not isValid(self):  # its window is gone; the application's signal still came
            return
        self._clicked = None
        if self._watched is not None and not isValid(self._watched):
            self._watched = None  # deleted with its window before its signal reached us
        if self._watched is not None and self._watched not in self._windows:
            self._watched.removeEventFilter(self)
            if isinstance(self._watched, QPlainTextEdit):
                self._watched.viewport().removeEventFilter(self)
            self._watched.destroyed.disconnect(self._forget)
        self._watched = None
        if new is not None and new not in self._windows and new.window() in self._windows:
            self._watched = new
            new.installEventFilter(self)
            if isinstance(new, QPlainTextEdit):  # a click in the code: typing again
                new.viewport().installEventFilter(self)
            new.destroyed.connect(self._forget)

    def _forget(self) -> None:
        self._watched = None

    def move_for(self, widget: QObject, event: QKeyEvent) -> int | None:
        """How ``event`` on ``widget`` steps the current view; None: not a presenter key
        there, or no stepping view is shown."""
        name = name_of(event.key())
        if name not in PRESENTER_KEYS or event.isAutoRepeat() and name == "Space":
            return None
        typing = edits_text(widget) and not (isinstance(widget, QPlainTextEdit)
                                             and self._code_gives_up())
        move = presenter_move(name, typing=typing,
                              modified=bool(event.modifiers() & _MODIFIERS))
        if move is None or self.views.current() is None:
            return None
        return move

    def _code_gives_up(self) -> bool:
        """Whether the code editor gives up the clicker's typing keys now."""
        return self.code_locked() or self.clicking

    def _blank_on_locked_code(self, widget: QObject, event: QKeyEvent) -> bool:
        return (isinstance(widget, QPlainTextEdit) and not widget.isReadOnly()
                and not event.modifiers() & _MODIFIERS and name_of(event.key()) in BLANK_KEYS
                and self._code_gives_up())

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        kind = event.type()
        if kind == QEvent.Type.MouseButtonPress:  # the editor's viewport: a click in the code
            self._clicked = None
            return False
        if kind not in (QEvent.Type.ShortcutOverride, QEvent.Type.KeyPress) \
                or not isinstance(event, QKeyEvent):
            return False
        move = self.move_for(watched, event)
        if move is None:
            if self._blank_on_locked_code(watched, event):
                event.accept()
                return True  # a clicker's blank-screen key: never typed into locked code
            if kind == QEvent.Type.KeyPress and name_of(event.key()) not in BLANK_KEYS:
                self._clicked = None  # a key no clicker sends: the presenter types again
            return False
        event.accept()
        if kind == QEvent.Type.KeyPress:
            if isinstance(watched, QPlainTextEdit) and not watched.isReadOnly():
                self._clicked = self.views.current()
            self.views.step(move)
        return True  # ShortcutOverride accepted: no shortcut takes it; the press comes here
