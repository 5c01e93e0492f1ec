"""Work around PySide6 6.12 returning ``None`` without a reference on CPython < 3.12.

With PySide6/shiboken6 6.12.0 on CPython 3.11, every call of a void Qt method
(``QPainter.setPen``, ``QObject.setObjectName``, ...) gives back ``None``
without taking a reference to it, so ``None``'s reference count drops by one
per call. It starts at a few thousand, so a painter that draws a few thousand
items aborts the process with "none_dealloc: deallocating None". CPython 3.12
made ``None`` immortal, which hides the bug there.

:func:`protect_none` probes for the bug with a harmless call and, only if it
is present, raises ``None``'s count far out of reach (as 3.12's immortality
does). ``None`` is a static object that is never freed, so the extra count
costs nothing. It is idempotent and cheap; the device view calls it when its
Qt modules load, and the application can call it at start-up.
"""

from __future__ import annotations

import ctypes
import sys

#: Added to None's reference count when the bug is found.
RESERVE = 1 << 48

_checked = False


def protect_none() -> bool:
    """Make ``None`` safe from the PySide6 void-return bug; True if it was needed."""
    global _checked
    if _checked or sys.version_info >= (3, 12):
        _checked = True
        return False
    from PySide6.QtGui import QColor

    colour = QColor(0, 0, 0)
    before = sys.getrefcount(None)
    for _ in range(64):
        colour.setRed(1)
    lost = before - sys.getrefcount(None)
    _checked = True
    if lost < 32:
        return False
    ctypes.c_ssize_t.from_address(id(None)).value += RESERVE
    return True
