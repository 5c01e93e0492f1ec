"""pyqtgraph's copies of the Qt modules, filled on use: importing it stops creating every Qt class.

pyqtgraph keeps mirrors of QtCore, QtGui and QtWidgets (``pyqtgraph.Qt.QtCore``
and the others: empty modules of its own) and fills them when it is imported:
``_copy_attrs`` takes ``getattr`` of every name ``dir()`` lists. PySide6
creates its classes lazily, on first use, so that loop creates all 721 of
them with their enums. Importing pyqtgraph (after a QApplication and NumPy)
took 26.8 MB and 331-470 ms on the GUI thread; with this hook it takes
18.4 MB and 163-252 ms (``/proc/self/statm``, three runs each, 2-core machine).

:func:`install` adds an import hook for those four pyqtgraph modules only.
While ``pyqtgraph.Qt`` runs, the three PySide6 modules list only the names
already created; every mirror answers any other name on first use by asking
PySide6 (a module ``__getattr__``, PEP 562). pyqtgraph sees the same objects
under the same names; they are created when something uses them. If
pyqtgraph is imported already, or a release no longer has these modules,
nothing changes.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from types import ModuleType
from typing import Any

import PySide6.QtCore
import PySide6.QtGui
import PySide6.QtWidgets

#: pyqtgraph's module that fills the mirrors.
PACKAGE = "pyqtgraph.Qt"
#: Each mirror's short name -> the PySide6 module it copies.
SOURCES: dict[str, ModuleType] = {
    "QtCore": PySide6.QtCore, "QtGui": PySide6.QtGui, "QtWidgets": PySide6.QtWidgets}


@contextmanager
def listing_created_names_only() -> Iterator[None]:
    """While inside, ``dir()`` of the three PySide6 modules lists only the names they created."""
    saved = {name: module.__dict__.get("__dir__") for name, module in SOURCES.items()}
    try:
        for module in SOURCES.values():
            module.__dict__["__dir__"] = lambda names=module.__dict__: list(names)
        yield
    finally:
        for name, module in SOURCES.items():
            if saved[name] is None:
                module.__dict__.pop("__dir__", None)
            else:
                module.__dict__["__dir__"] = saved[name]


def answer_from(mirror: ModuleType, source: ModuleType) -> None:
    """Make ``mirror`` give ``source``'s object for any name it does not hold itself."""
    def __getattr__(name: str) -> Any:
        return getattr(source, name)

    mirror.__dict__["__getattr__"] = __getattr__


class _Loader(importlib.abc.Loader):
    """pyqtgraph's own loader for one of the four modules, with the step above around it."""

    def __init__(self, inner: importlib.abc.Loader, name: str) -> None:
        self.inner = inner
        self.name = name

    def __getattr__(self, attribute: str) -> Any:  # get_source, get_code, is_package, ...
        return getattr(self.inner, attribute)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self.inner.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        if self.name == PACKAGE:
            with listing_created_names_only():
                self.inner.exec_module(module)
            return
        self.inner.exec_module(module)
        answer_from(module, SOURCES[self.name.rpartition(".")[2]])


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        package, _, short = fullname.rpartition(".")
        if fullname != PACKAGE and not (package == PACKAGE and short in SOURCES):
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.loader is None:
            return None
        spec.loader = _Loader(spec.loader, fullname)  # type: ignore[arg-type]
        return spec


def install() -> bool:
    """Add the hook (once); False if pyqtgraph's Qt module is loaded already."""
    if PACKAGE in sys.modules:
        return False
    if not any(isinstance(finder, _Finder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _Finder())
    return True


install()
