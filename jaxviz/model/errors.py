"""Turning failures into :class:`~jaxviz.model.ErrorInfo` records that say what and where."""

from __future__ import annotations

import linecache
import traceback
from types import TracebackType

from jaxviz.model import ErrorInfo
from jaxviz.model.specs import SpecError


class UserError(Exception):
    """A failure caused by the user's code or input, with a structured description."""

    def __init__(self, info: ErrorInfo):
        self.info = info
        super().__init__(info.message)


def user_frame_of(tb: TracebackType | None, filename: str) -> tuple[int, str] | None:
    """The innermost traceback line inside the user's file: ``(line, text)``."""
    found = None
    for frame, lineno in traceback.walk_tb(tb):
        if frame.f_code.co_filename == filename:
            found = lineno
    if found is None:
        return None
    return found, linecache.getline(filename, found).rstrip("\n")


def from_exception(exc: BaseException, filename: str, kind: str = "trace",
                   variant: str | None = None) -> ErrorInfo:
    """An :class:`ErrorInfo` for an exception raised while running user code."""
    if isinstance(exc, UserError):
        info = exc.info
        if variant and not info.variant:
            info.variant = variant
        return info
    where = user_frame_of(exc.__traceback__, filename)
    message = _clean_message(exc)
    info = ErrorInfo(kind=kind, message=message, file=filename, variant=variant,
                     details="".join(traceback.format_exception(exc)))
    if where:
        info.line, info.source_line = where
    return info


def syntax_error(exc: SyntaxError | ValueError, filename: str, source: str) -> UserError:
    """A :class:`UserError` for source that does not compile: the file, line, column and text.

    ``compile`` raises ValueError for source holding a NUL character.
    """
    if not isinstance(exc, SyntaxError):
        return UserError(ErrorInfo(kind="syntax", message=f"SyntaxError: {exc}", file=filename))
    if exc.text:
        line = exc.text.rstrip("\n")
    else:
        lines = source.splitlines()
        line = lines[exc.lineno - 1] if exc.lineno and 0 < exc.lineno <= len(lines) else ""
    return UserError(ErrorInfo(kind="syntax", message=f"SyntaxError: {exc.msg}", file=filename,
                               line=exc.lineno, column=exc.offset, source_line=line))


def check_syntax(source: str, filename: str) -> None:
    """Compile ``source`` without running it.

    Raises:
        UserError: (``kind="syntax"``) it does not compile.
    """
    try:
        compile(source, filename, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as exc:
        raise syntax_error(exc, filename, source) from None


def spec_error(exc: SpecError, field: str, what: str) -> UserError:
    return UserError(ErrorInfo(kind="spec" if field == "args" else "option", field=field,
                               position=exc.position,
                               message=f"bad {what}: {exc.pretty()}"))


def _clean_message(exc: BaseException) -> str:
    text = str(exc).strip()
    # JAX appends a long tutorial pointer to many errors; keep the first paragraph.
    first = text.split("\n\n", 1)[0] if len(text) > 600 else text
    name = type(exc).__name__
    return f"{name}: {first}" if first else name


def format_error(info: ErrorInfo, debug: bool = False) -> str:
    """A readable multi-line rendering of an error for the terminal."""
    lines = []
    head = info.message
    if info.variant:
        head = f"[{info.variant}] {head}"
    lines.append(head)
    if info.file and info.line:
        col = f":{info.column}" if info.column else ""
        lines.append(f"  at {info.file}:{info.line}{col}")
        if info.source_line is not None:
            lines.append(f"    {info.source_line.strip()}")
    if debug and info.details:
        lines.append(info.details.rstrip())
    return "\n".join(lines)
