"""The one way jaxviz reads a file: regular files only, a size limit, a time limit.

Every file jaxviz reads -- Python sources, timing recordings, lecture files,
crash-recovery copies -- goes through :func:`read_bytes` (or
:func:`read_text`), so a target that is a link to ``/dev/zero``, a FIFO that
nobody writes, a 30 GB file or a file on a stalled network mount gives one
message, never a process that grows until the kernel kills it or waits forever:

- the file is opened without blocking (``O_NONBLOCK``: opening a FIFO does not
  wait for a writer) and refused unless ``fstat`` says it is a regular file
  (a link is followed; what it points at must be a regular file);
- at most ``limit`` bytes are read: a larger file is refused with its size;
- opening and reading happen on a helper thread that is given ``timeout``
  seconds; a file that takes longer is refused.

Parsed documents get limits too: :func:`parse_json` refuses a document
nested deeper than :data:`MAX_DEPTH` (a 200,000-deep array would otherwise be
a ``RecursionError`` in the parser or in whatever walks it), and
:func:`check_depth` does the same for a structure parsed some other way
(TOML, settings).

Example:
    >>> import tempfile, os
    >>> with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
    ...     _ = f.write("x = 1\\n")
    >>> read_text(f.name, limit=100)
    'x = 1\\n'
    >>> os.unlink(f.name)
"""

from __future__ import annotations

import json
import os
import stat
import threading
from typing import Any

#: Python sources (a target, an example): larger files are refused.
SOURCE_BYTES = 8 * 2**20
#: Lecture files (TOML).
LECTURE_BYTES = 2**20
#: Timing recordings (JSON).
RECORDING_BYTES = 256 * 2**20
#: Small documents: settings, crash-recovery notes.
SETTINGS_BYTES = 2**20
#: Seconds one file may take to open and read.
READ_SECONDS = 10.0
#: The ``timeout`` of a file that is part of jaxviz (a gallery example):
#: read on the caller's thread. It sits beside jaxviz's own modules, so a mount that
#: would stall reading it would have stalled importing them; a thread of its own per
#: read cost the window 1-1.5 ms each time an example opened (two reads).
OWN_FILE: None = None
#: How deeply a parsed document (JSON, TOML, settings) may nest.
MAX_DEPTH = 64

_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISSOCK, "a socket"))


class FileProblem(ValueError):
    """A file that cannot be read as jaxviz reads files; the message names it and says why."""


def describe_size(size: int) -> str:
    """``8 MB``, ``512 KB``, ``100 bytes``."""
    if size >= 2**20:
        return f"{size / 2**20:.3g} MB"
    if size >= 2**10:
        return f"{size / 2**10:.3g} KB"
    return f"{size} bytes"


def read_bytes(path: str | os.PathLike[str], *, limit: int, shown: str | None = None,
               timeout: float | None = READ_SECONDS, what: str = "file") -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes, read within ``timeout`` s.

    Args:
        path: the file (a link is followed).
        limit: the largest size accepted, in bytes.
        shown: how messages name the file (default: ``path`` as given).
        timeout: seconds to open and read it, in a thread of its own (a stalled network
            mount cannot hang the caller); None: read on the caller's thread, for
            jaxviz's own files (:data:`OWN_FILE`), which are where its modules are.
        what: what the file is, for messages (``"lecture"``, ``"recording"``).

    Raises:
        FileProblem: ``cannot read NAME: ...`` -- missing, not permitted, not a
            regular file (a FIFO, a device, a folder), larger than ``limit``,
            or slower than ``timeout``.
    """
    name = str(path) if shown is None else shown
    if timeout is None:
        return _read(path, name, limit, what)
    box: dict[str, Any] = {}

    def work() -> None:
        try:
            box["data"] = _read(path, name, limit, what)
        except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread
            box["error"] = exc

    reader = threading.Thread(target=work, name="jaxviz-read-file", daemon=True)
    reader.start()
    reader.join(timeout)
    if reader.is_alive():
        raise FileProblem(f"cannot read {name}: reading it took longer than {timeout:g} s "
                          f"(a stalled network mount or device?)")
    if "error" in box:
        raise box["error"]
    data: bytes = box["data"]
    return data


def read_text(path: str | os.PathLike[str], *, limit: int, shown: str | None = None,
              timeout: float | None = READ_SECONDS, what: str = "file") -> str:
    """:func:`read_bytes` decoded as UTF-8 (a file that is not UTF-8 is a :class:`FileProblem`)."""
    name = str(path) if shown is None else shown
    data = read_bytes(path, limit=limit, shown=name, timeout=timeout, what=what)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FileProblem(f"cannot read {name}: it is not UTF-8 text (byte "
                          f"0x{data[exc.start]:02x} at offset {exc.start})") from None


def _read(path: str | os.PathLike[str], name: str, limit: int, what: str) -> bytes:
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise FileProblem(f"cannot read {name}: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = next((k for test, k in _KINDS if test(info.st_mode)), "not a plain file")
            raise FileProblem(f"cannot read {name}: it is {kind}, not a regular file; "
                              f"jaxviz reads a {what} only from a regular file")
        if info.st_size > limit:
            raise _too_large(name, info.st_size, limit, what)
        chunks: list[bytes] = []
        size = 0
        while True:
            chunk = os.read(fd, min(2**20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:  # it grew while being read
                raise _too_large(name, size, limit, what, at_least=True)
        return b"".join(chunks)
    except OSError as exc:
        raise FileProblem(f"cannot read {name}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)


def _too_large(name: str, size: int, limit: int, what: str, at_least: bool = False
               ) -> FileProblem:
    return FileProblem(f"cannot read {name}: it is {'over ' if at_least else ''}"
                       f"{describe_size(size)}; jaxviz reads a {what} of at most "
                       f"{describe_size(limit)}")


def check_depth(value: Any, name: str, limit: int = MAX_DEPTH) -> None:
    """Refuse a parsed structure (dicts and lists) nested deeper than ``limit``.

    Walks without recursion, so any depth is measured safely.

    Raises:
        FileProblem: ``NAME: nested deeper than LIMIT levels``.
    """
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, (list, tuple)):
            children = item
        else:
            continue
        if depth > limit:
            raise _too_deep(name, limit)
        stack.extend((child, depth + 1) for child in children
                     if isinstance(child, (dict, list, tuple)))


def _too_deep(name: str, limit: int) -> FileProblem:
    return FileProblem(f"{name}: it is nested deeper than {limit} levels; jaxviz does not "
                       f"read documents nested that deeply")


def parse_json(text: str | bytes, name: str, limit: int = MAX_DEPTH) -> Any:
    """``json.loads`` with a depth limit (see :func:`check_depth`).

    Raises:
        FileProblem: nested too deeply.
        ValueError: not JSON (``json.JSONDecodeError``).
    """
    try:
        value = json.loads(text)
    except RecursionError:
        raise _too_deep(name, limit) from None
    check_depth(value, name, limit)
    return value
