"""PySide6's per-import source check, made cheap: it kept every later module's source, 17 MB.

Once ``PySide6.QtCore`` is imported, PySide6 calls ``feature_imported(module)``
after every later import, to decide whether that module may use its opt-in
``from __feature__ import snake_case, true_property``. The check,
``_mod_uses_pyside``, asks ``inspect.getsource(module)`` for the module's
whole source and looks for ``"PySide6"`` in it. ``inspect`` reads the source
through :mod:`linecache`, which keeps every line of every module imported
after Qt for the rest of the process: in the window that is about 400 files
(jaxviz, NumPy, pyqtgraph, Pygments), 17 MB resident, measured with
``/proc/self/statm`` (the same slowdown is napari/napari#8584).

:func:`install` replaces the check with one that gives the same answer (the
module's source file contains the bytes ``PySide6``) by reading the file's
bytes, with nothing cached. A module without a ``.py`` file (built in, an
extension, source-less) is "does not use PySide6", as it is for ``inspect``.
jaxviz uses no ``__feature__``; the answer only matters to code that does.
If a PySide6 release drops or renames the check, nothing is replaced.
"""

from __future__ import annotations

import sys
from types import ModuleType

import PySide6.QtCore  # noqa: F401  (loads PySide6's feature module)

#: Where PySide6 keeps the check (its embedded ``shibokensupport.feature``).
FEATURE_MODULE = "PySide6.support.feature"
#: PySide6's own check, as it was before :func:`install` (kept for comparison).
original: object = None


def uses_pyside(module: ModuleType) -> bool:
    """Whether ``module``'s source file mentions ``PySide6`` (read once, not cached)."""
    path = getattr(module, "__file__", None)
    if not isinstance(path, str) or not path.endswith(".py"):
        return False
    try:
        with open(path, "rb") as source:
            return b"PySide6" in source.read()
    except OSError:
        return False


def install() -> bool:
    """Put :func:`uses_pyside` in place of PySide6's check; True if it was there to replace."""
    global original
    feature = sys.modules.get(FEATURE_MODULE)
    check = getattr(feature, "_mod_uses_pyside", None)
    if not callable(check):
        return False
    if check is not uses_pyside:
        original = check
        feature._mod_uses_pyside = uses_pyside  # type: ignore[union-attr]
    return True


install()
