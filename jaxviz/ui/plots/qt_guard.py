"""Keep ``None``, ``True`` and ``False`` alive under PySide6 6.12 on CPython < 3.12.

PySide6/shiboken6 6.12.0 on CPython 3.11 hands back ``None`` from void Qt
methods without a reference (see :mod:`jaxviz.ui.theme.qt_guard`, which
fixes that for ``None``), and it does the same with ``True``/``False`` coming
back through pyqtgraph's ``itemChange`` overrides: every new scatter plot or
figure update costs a few references to ``True``, and after a few hundred
updates the process aborts with "bool_dealloc: deallocating True or False".
CPython 3.12 made these singletons immortal, which hides the bug there.

:func:`protect_singletons` applies the ``None`` fix and, when the bug is
present (the ``None`` fix was needed), raises the counts of ``True`` and
``False`` out of reach the same way. They are static objects that are never
freed, so the extra counts cost nothing.
"""

from __future__ import annotations

import ctypes
import sys

from jaxviz.ui.theme.qt_guard import RESERVE, protect_none

_done = False


def protect_singletons() -> None:
    """Idempotent; cheap after the first call."""
    global _done
    if _done:
        return
    protect_none()
    _done = True
    if sys.version_info >= (3, 12) or sys.getrefcount(None) < RESERVE:
        return  # immortal singletons, or the bug is absent
    for singleton in (True, False):
        ctypes.c_ssize_t.from_address(id(singleton)).value += RESERVE
