"""Run user source under its own file name and find the function to trace.

This executes the user's code; finding *which* code (a file, an example, a
function name) is JAX-free and lives in :mod:`jaxviz.model.sources`.
"""

from __future__ import annotations

import linecache
import sys
import types
from collections.abc import Callable
from itertools import count
from pathlib import Path
from typing import Any

import jax

from jaxviz.model import ErrorInfo, Target, list_functions
from jaxviz.model.errors import UserError, from_exception, syntax_error

_module_ids = count()
#: The modules and linecache entries made for the current request (see forget_request).
_made: list[tuple[str, str]] = []


#: The key under which :func:`load_namespace` leaves the mesh the module set with
#: ``jax.set_mesh(mesh)`` as a statement (it is taken back out of the engine's context).
MODULE_MESH = "__jaxviz_module_mesh__"


def load_namespace(target: Target) -> dict[str, Any]:
    """Execute the target's source as a fresh module and return its namespace.

    The source is compiled under ``target.filename`` and registered in
    :mod:`linecache`, so tracebacks and equation source lines point into it.
    A module that sets a mesh for everything after it (``jax.set_mesh(mesh)``
    as a statement, as JAX's explicit-sharding guide does) leaves that mesh in
    the namespace under :data:`MODULE_MESH`; the engine's own context is put
    back, so the next request starts clean.

    Raises:
        UserError: a syntax error (with file, line and the offending line) or
            an exception while executing the module.
    """
    source = target.source
    filename = target.filename
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    _made.append(("linecache", filename))
    try:
        code = compile(source, filename, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as exc:  # ValueError: a NUL character
        raise syntax_error(exc, filename, source) from None
    name = f"jaxviz_user_{next(_module_ids)}"
    module = types.ModuleType(name)
    module.__file__ = filename
    sys.modules[name] = module
    _made.append(("module", name))
    before = jax.sharding.get_mesh()
    try:
        exec(code, module.__dict__)
    except Exception as exc:  # noqa: BLE001 - user code may raise anything
        info = from_exception(exc, filename, kind="load")
        info.message = f"running {Path(filename).name} failed: {_load_hint(info.message)}"
        raise UserError(info) from None
    finally:
        after = jax.sharding.get_mesh()
        if after is not before:
            jax.set_mesh(None if before.empty else before)
    if after is not before and not after.empty:
        module.__dict__[MODULE_MESH] = after
    return module.__dict__


def forget_request() -> int:
    """Forget what the last request's code left in the engine; returns how many entries.

    Each request runs its source as a new module (``jaxviz_user_N`` in
    :data:`sys.modules`) and registers it in :mod:`linecache`; both are kept
    only while the request runs (tracebacks and equation lines are read then),
    so an engine serving a window for hours stays the same size: Python's
    collector then frees the module's functions and arrays, and the cache
    entries JAX keyed on them (weakly). (An explicit ``gc.collect()`` here
    would cost a third of a second per request in a process holding JAX.)
    """
    forgotten = 0
    while _made:
        kind, key = _made.pop()
        if kind == "module":
            forgotten += sys.modules.pop(key, None) is not None
        elif linecache.cache.pop(key, None) is not None:
            forgotten += 1
    return forgotten


def _load_hint(message: str) -> str:
    """JAX's message, and what to do where jaxviz knows better (the device count)."""
    if "jax_num_cpu_devices config should be updated before" in message:
        return (f"the file sets jax_num_cpu_devices, but the engine's JAX already runs with "
                f"{len(jax.devices())} devices: open it with that many devices in the file, "
                f"or start jaxviz with --devices set to the file's count ({message})")
    return message


def find_function(namespace: dict[str, Any], target: Target) -> Callable:
    """The function named by the target.

    Raises:
        UserError: listing the functions that do exist.
    """
    fn = namespace.get(target.function)
    if callable(fn):
        return fn
    names = [n for n, v in namespace.items()
             if callable(v) and getattr(v, "__module__", None) == namespace.get("__name__")
             and not n.startswith("_")] or list_functions(target.source)
    listing = ", ".join(names) if names else "none"
    raise UserError(ErrorInfo(kind="lookup", file=target.filename,
                              message=f"no function {target.function!r} in "
                                      f"{Path(target.filename).name}; it defines: {listing}"))
