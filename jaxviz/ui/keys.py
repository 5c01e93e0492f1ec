"""Key presses by name: the Qt side of :mod:`jaxviz.views.keys`.

A key is named as ``QKeySequence`` spells it (``PgDown``, ``Right``, ``Space``), the
spelling the Qt-free key tables use.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeyEvent, QKeySequence


def name_of(key: int | Qt.Key) -> str:
    """The name of a key (``PgDown`` for ``Qt.Key_PageDown``)."""
    return QKeySequence(key).toString()


def key_name(event: QKeyEvent) -> str:
    """The name of a key press as :mod:`jaxviz.views.keys` spells it ('' for presses
    with Ctrl, Alt or Meta, which belong to the editor or the desktop)."""
    mods = event.modifiers() & (Qt.KeyboardModifier.ControlModifier
                                | Qt.KeyboardModifier.AltModifier
                                | Qt.KeyboardModifier.MetaModifier)
    if mods:
        return ""
    return name_of(event.key())
