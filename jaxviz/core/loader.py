"""Load user source under its own file name and find the function to trace."""

from __future__ import annotations

import linecache
import sys
import types
from collections.abc import Callable
from itertools import count
from pathlib import Path
from typing import Any

from jaxviz.model.errors import UserError, from_exception
from jaxviz.model import ErrorInfo, Target, get_example, list_functions
from jaxviz.model.gallery import GalleryError

_module_ids = count()


def resolve_target(text: str) -> tuple[Target, dict]:
    """Turn ``path.py:function``, ``path.py`` or ``example:NAME[:function]`` into a target.

    Returns:
        ``(target, defaults)``: ``defaults`` holds an example's settings
        (args, variants, in_axes, mesh, ...), empty for a file.

    Raises:
        UserError: unknown example, unreadable file, or a file without a
            function to pick.
    """
    if text.startswith("example:"):
        rest = text[len("example:"):]
        name, _, function = rest.partition(":")
        try:
            ex = get_example(name)
        except GalleryError as exc:
            raise UserError(ErrorInfo(kind="lookup", message=str(exc))) from None
        source = Path(ex.path).read_text(encoding="utf-8")
        defaults = {k: getattr(ex, k) for k in (
            "args", "batched_args", "variants", "batch", "in_axes", "axis_name", "mesh",
            "specs", "out_specs", "baseline", "timing")}
        if function and function != ex.function:
            defaults = {"baseline": ex.baseline}
        return Target(source=source, filename=ex.path, function=function or ex.function), defaults
    path_text, function = text, ""
    if ".py:" in text:
        path_text, _, function = text.rpartition(":")
    path = Path(path_text)
    try:
        source = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise UserError(ErrorInfo(kind="load", message=f"cannot read {path_text}: "
                                  f"{exc.strerror or exc}", file=path_text)) from None
    filename = str(path.resolve())
    if not function:
        names = list_functions(source)
        if len(names) != 1:
            listing = ", ".join(names) if names else "none"
            raise UserError(ErrorInfo(
                kind="lookup", file=filename,
                message=f"say which function of {path_text} to trace, as {path_text}:NAME "
                        f"(functions: {listing})"))
        function = names[0]
    return Target(source=source, filename=filename, function=function), {}


def load_namespace(target: Target) -> dict[str, Any]:
    """Execute the target's source as a fresh module and return its namespace.

    The source is compiled under ``target.filename`` and registered in
    :mod:`linecache`, so tracebacks and equation source lines point into it.

    Raises:
        UserError: a syntax error (with file, line and the offending line) or
            an exception while executing the module.
    """
    source = target.source
    filename = target.filename
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    try:
        code = compile(source, filename, "exec", dont_inherit=True)
    except SyntaxError as exc:
        line = exc.text.rstrip("\n") if exc.text else linecache.getline(filename, exc.lineno or 0)
        raise UserError(ErrorInfo(kind="syntax", message=f"SyntaxError: {exc.msg}",
                                  file=filename, line=exc.lineno, column=exc.offset,
                                  source_line=line)) from None
    name = f"jaxviz_user_{next(_module_ids)}"
    module = types.ModuleType(name)
    module.__file__ = filename
    sys.modules[name] = module
    try:
        exec(code, module.__dict__)
    except Exception as exc:  # noqa: BLE001 - user code may raise anything
        info = from_exception(exc, filename, kind="load")
        info.message = f"running {Path(filename).name} failed: {info.message}"
        raise UserError(info) from None
    return module.__dict__


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
