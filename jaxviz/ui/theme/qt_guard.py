"""One start-up guard against PySide6 6.12.0 losing references to ``None``, ``True``, ``False``.

With PySide6/shiboken6 6.12.0 on CPython 3.11, every call of a void Qt
method (``QPainter.setPen``, ``QObject.setObjectName``, ...) gives back
``None`` without taking a reference to it, and ``True``/``False`` coming back
through pyqtgraph's ``itemChange`` overrides lose theirs the same way. Their
counts start at a few thousand, so a painter that draws a few thousand items
or a few hundred plot updates abort the process ("none_dealloc: deallocating
None", "bool_dealloc"). CPython 3.12 made these objects immortal, which hides
the bug there. The pin in ``pyproject.toml`` excludes 6.12.0; this guard
keeps an install that got it anyway (or a later release with the same bug)
from aborting.

:func:`protect_singletons` probes for the bug with a harmless void call and,
only if references are lost, raises the three counts far out of reach (as
3.12's immortality does). They are static objects that are never freed, so
the extra counts cost nothing. It runs once per process, at start-up: in
:func:`jaxviz.ui.app.main` (the window) and :func:`ensure_app` (headless
rendering: ``jaxviz time``, ``jaxviz animate``, exports).
"""

from __future__ import annotations

import ctypes
import os
import sys
from collections.abc import Callable

from PySide6.QtGui import QColor, QGuiApplication

#: Added to each singleton's reference count when the bug is found.
RESERVE = 1 << 48
#: Void calls the probe makes; a bug-free binding loses no reference in them.
PROBE_CALLS = 64

_guarded: bool | None = None


def void_qt_calls(count: int = PROBE_CALLS) -> None:
    """``count`` calls of a void Qt method (what the bug leaks a reference on)."""
    colour = QColor()  # a probe: no colour is drawn
    for _ in range(count):
        colour.setRed(1)


def protect_singletons(probe: Callable[[int], None] = void_qt_calls) -> bool:
    """Guard ``None``, ``True`` and ``False`` if the Qt binding leaks their references.

    Args:
        probe: makes the given number of void Qt calls (tests pass a stand-in
            that leaks as 6.12.0 does).

    Returns:
        True if the leak was found and the singletons are now guarded. The
        first call decides; later calls return the same answer at once.
    """
    global _guarded
    if _guarded is not None:
        return _guarded
    if sys.version_info >= (3, 12):
        _guarded = False  # immortal singletons
        return _guarded
    before = sys.getrefcount(None)
    probe(PROBE_CALLS)
    _guarded = before - sys.getrefcount(None) >= PROBE_CALLS // 2
    if _guarded:
        for singleton in (None, True, False):
            ctypes.c_ssize_t.from_address(id(singleton)).value += RESERVE
    return _guarded


def ensure_app(widgets: bool = True) -> QGuiApplication:
    """The Qt application for rendering without a window, guarded (see :func:`protect_singletons`).

    The headless entry of ``jaxviz time`` and ``jaxviz animate`` and of every
    export. An application that exists already is returned as it is.
    Otherwise one is created -- offscreen when there is no display to connect
    to (Linux without ``DISPLAY``/``WAYLAND_DISPLAY`` and no ``QT_QPA_PLATFORM``).

    Args:
        widgets: a QApplication as pyqtgraph sets it up (the timing plots are
            graphics-view widgets); else a QGuiApplication, enough to paint
            images (the device view's frames).
    """
    protect_singletons()
    app = QGuiApplication.instance()
    if isinstance(app, QGuiApplication):
        return app
    if (not os.environ.get("QT_QPA_PLATFORM") and sys.platform.startswith("linux")
            and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))):
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    if widgets:
        import pyqtgraph as pg

        return pg.mkQApp("jaxviz")
    return QGuiApplication([sys.argv[0] if sys.argv and sys.argv[0] else "jaxviz"])
