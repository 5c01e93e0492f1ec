"""Which code to trace: a target string resolved to source text and a function (no JAX).

``path.py:function``, ``path.py`` (a file that defines one function) or
``example:NAME[:function]`` becomes a :class:`~jaxviz.model.Target`: the file
is read, never executed (:mod:`jaxviz.core.loader` runs it, in the engine).
The command line resolves its targets here, before any JAX process starts.

Example:
    >>> target, defaults = resolve_target("example:convolve")
    >>> target.function, defaults["args"]
    ('convolve', 'x, w')
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from jaxviz.model.errors import UserError
from jaxviz.model.files import OWN_FILE, READ_SECONDS, SOURCE_BYTES, FileProblem, read_bytes
from jaxviz.model.gallery import (
    GalleryError,
    bound_names,
    declared_problem,
    declared_settings,
    get_example,
    list_functions,
)
from jaxviz.model.records import ErrorInfo, Target


def read_source(path: str | os.PathLike[str], shown: str | None = None,
                timeout: float | None = READ_SECONDS) -> str:
    """The text of a Python file, or a message that says why it is not one.

    Args:
        path: the file.
        shown: how messages name it (default: ``path`` as given).
        timeout: as :func:`~jaxviz.model.files.read_bytes` reads it (a gallery example:
            :data:`~jaxviz.model.files.OWN_FILE`).

    Raises:
        UserError: (``kind="load"``) the file cannot be read (missing, not a
            regular file, larger than :data:`~jaxviz.model.files.SOURCE_BYTES`,
            slower than :data:`~jaxviz.model.files.READ_SECONDS`), is not UTF-8
            (the byte, its offset, line and column are named), or is binary
            (holds a NUL byte).
    """
    name = str(path) if shown is None else shown
    try:
        data = read_bytes(path, limit=SOURCE_BYTES, shown=name, what="Python source",
                          timeout=timeout)
    except FileProblem as exc:
        raise UserError(ErrorInfo(kind="load", file=name, message=str(exc))) from None
    nul = data.find(b"\0")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if 0 <= nul < exc.start:
            raise _binary(name, nul) from None
        line, column = _line_and_column(data, exc.start)
        raise UserError(ErrorInfo(kind="load", file=name, message=(
            f"cannot read {name}: it is not UTF-8 text (byte 0x{data[exc.start]:02x} at "
            f"offset {exc.start}, line {line}, column {column}); save it as UTF-8"))) from None
    if nul >= 0:
        raise _binary(name, nul)
    return text


def _binary(name: str, offset: int) -> UserError:
    return UserError(ErrorInfo(kind="load", file=name, message=(
        f"cannot read {name}: it is a binary file, not Python source (a NUL byte at "
        f"offset {offset})")))


def _line_and_column(data: bytes, offset: int) -> tuple[int, int]:
    """1-based line and column (in bytes) of ``offset`` in ``data``."""
    line_start = data.rfind(b"\n", 0, offset) + 1
    return data.count(b"\n", 0, offset) + 1, offset - line_start + 1


def check_function(source: str, function: str, shown: str, filename: str) -> None:
    """Refuse a function name the source never binds, listing its functions (nothing runs).

    A name that may be bound (by an assignment, an import, ...) passes: the
    engine finds out what it is. Source that does not parse passes too: the
    engine reports the syntax error (compiling it runs nothing).

    Raises:
        UserError: (``kind="lookup"``) listing the functions the file defines.
    """
    names = bound_names(source)
    if names is None or function in names:
        return
    listing = ", ".join(list_functions(source)) or "none"
    raise UserError(ErrorInfo(kind="lookup", file=filename, message=(
        f"no function {function!r} in {shown}; it defines: {listing}")))


def resolve_target(text: str) -> tuple[Target, dict[str, Any]]:
    """Turn ``path.py:function``, ``path.py`` or ``example:NAME[:function]`` into a target.

    Returns:
        ``(target, defaults)``: ``defaults`` holds an example's settings (args,
        variants, in_axes, mesh, ...), or those a file declares in its own
        ``JAXVIZ = {...}`` as the window reads them (for the function it names,
        or its only one; none when another function is asked for).

    Nothing is executed: the file is read and parsed, and a function name it
    never binds is refused with the list of the functions it defines.

    Raises:
        UserError: unknown example, unreadable file (not UTF-8, binary), a
            function the file does not define, or a file without a function to pick.
    """
    if not text.strip():
        raise UserError(ErrorInfo(kind="lookup", message=(
            "the target is empty: give path/to/file.py:function or example:NAME")))
    if text.startswith("example:"):
        rest = text[len("example:"):]
        name, _, function = rest.partition(":")
        try:
            ex = get_example(name)
        except GalleryError as exc:
            raise UserError(ErrorInfo(kind="lookup", message=str(exc))) from None
        source = read_source(ex.path, timeout=OWN_FILE)
        if function:
            check_function(source, function, f"example:{ex.name}", ex.path)
        defaults = {**ex.settings(), "variants": ex.variants, "baseline": ex.baseline,
                    "timing": ex.timing, "processes": ex.processes}
        if function and function != ex.function:
            defaults = {"baseline": ex.baseline}
        return Target(source=source, filename=ex.path, function=function or ex.function), defaults
    path_text, function = text, ""
    if ".py:" in text:
        path_text, _, function = text.rpartition(":")
    path = Path(path_text)
    source = read_source(path, path_text)
    filename = str(path.resolve())
    declared = declared_settings(source) or {}
    named = declared.get("function")
    named = named if isinstance(named, str) and named else ""
    if not function and named:
        check_function(source, named, f"{path_text} (its JAXVIZ 'function')", filename)
        function = named
    if function:
        check_function(source, function, path_text, filename)
    else:
        names = list_functions(source)
        if len(names) != 1:
            listing = ", ".join(names) if names else "none"
            problem = declared_problem(source)
            raise UserError(ErrorInfo(
                kind="lookup", file=filename,
                message=f"say which function of {path_text} to trace, as {path_text}:NAME "
                        f"(functions: {listing})" + (f"; {problem}" if problem else "")))
        function = names[0]
    defaults = file_defaults(declared, path_text, filename) \
        if named in ("", function) else {}
    return Target(source=source, filename=filename, function=function), defaults


#: What a setting of each kind takes in a ``JAXVIZ`` dict, in words.
_TAKES = {"flag": "True or False", "list": "a string or a list of strings"}


def file_defaults(declared: dict[str, Any], shown: str, filename: str) -> dict[str, Any]:
    """A file's declared settings (:func:`~jaxviz.model.gallery.declared_settings`) as a
    request's defaults: its variants that exist, and each trace setting as the command
    line would give it (a list of strings joined by ", ").

    Raises:
        UserError: a setting whose value is not of the type it takes (``"batch":
            "eight"``), naming the file, the key and what it takes.
    """
    from jaxviz.model.limits import BATCH
    from jaxviz.model.records import VARIANTS
    from jaxviz.model.settings_table import TRACE_SETTINGS, fits_kind

    out: dict[str, Any] = {}
    for setting in TRACE_SETTINGS:
        if setting.name not in declared:
            continue
        value = declared[setting.name]
        if not (fits_kind(setting, value) or (setting.kind == "count" and value is None)):
            takes = _TAKES.get(setting.kind, "a string")
            if setting.kind == "count":
                takes = f"{BATCH.describe()} (or None: one per device)"
            raise UserError(ErrorInfo(kind="lookup", file=filename, message=(
                f"{shown}: JAXVIZ {setting.name!r} is {value!r}: it takes {takes}, as "
                f"{setting.flag} does")))
        if setting.kind == "list" and not isinstance(value, str):
            value = ", ".join(value)
        out[setting.name] = value
    variants = declared.get("variants")
    if isinstance(variants, (list, tuple)):
        out["variants"] = [v for v in variants if v in VARIANTS]
    return out
