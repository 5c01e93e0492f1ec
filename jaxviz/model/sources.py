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

from pathlib import Path
from typing import Any

from jaxviz.model.errors import UserError
from jaxviz.model.gallery import GalleryError, get_example, list_functions
from jaxviz.model.records import ErrorInfo, Target


def resolve_target(text: str) -> tuple[Target, dict[str, Any]]:
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
        defaults = {**ex.settings(), "variants": ex.variants, "baseline": ex.baseline,
                    "timing": ex.timing, "processes": ex.processes}
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
