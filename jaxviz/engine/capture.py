"""What a request prints: file descriptors 1 and 2 of the engine, redirected to files.

The engine process points fds 1 and 2 at two files in a directory its client
chose (:data:`STDOUT_NAME`, :data:`STDERR_NAME`), empties them when a request
begins and reads them back when it ends, so ``print``, C libraries, XLA's
logging and subprocesses are all captured, and nothing can write into the
protocol channel. The files outlive a crashing engine: the client reads them
to report what a dead request printed (an abort message, a faulthandler
traceback).

This module imports nothing from JAX: both sides use it.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

STDOUT_NAME = "stdout"
STDERR_NAME = "stderr"

#: The most of each stream a reply carries; longer output keeps its end.
LIMIT_BYTES = 1 << 20


def read_tail(path: str | os.PathLike[str], limit: int = LIMIT_BYTES) -> str:
    """The text of a capture file, its last ``limit`` bytes if it is longer.

    Returns an empty string when the file does not exist. A shortened text
    starts with a line saying how much was left out.
    """
    try:
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            skipped = max(0, size - limit)
            f.seek(skipped)
            data = f.read(limit)
    except FileNotFoundError:
        return ""
    text = data.decode("utf-8", "replace")
    if skipped:
        text = f"[jaxviz: the first {skipped} bytes of output are not shown]\n{text}"
    return text


class Capture:
    """Owns fds 1 and 2 of the engine process (server side only).

    Args:
        directory: where the two capture files live (created if missing).
    """

    def __init__(self, directory: str | os.PathLike[str]):
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.paths = (self.directory / STDOUT_NAME, self.directory / STDERR_NAME)
        flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND
        self._fds = tuple(os.open(p, flags, 0o600) for p in self.paths)
        self._redirect()

    def begin(self) -> None:
        """Start a request: empty both files and (re)point fds 1 and 2 at them."""
        _flush()
        self._redirect()
        for fd in self._fds:
            os.ftruncate(fd, 0)

    def end(self) -> tuple[str, str]:
        """Finish a request: flush Python's streams, return ``(stdout, stderr)``."""
        _flush()
        sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
        return read_tail(self.paths[0]), read_tail(self.paths[1])

    def remove(self) -> None:
        """Delete the capture directory (the engine is exiting; nobody needs it)."""
        shutil.rmtree(self.directory, ignore_errors=True)

    def _redirect(self) -> None:
        # User code may have closed or replaced fd 1/2; point them back at the files.
        os.dup2(self._fds[0], 1)
        os.dup2(self._fds[1], 2)


def _flush() -> None:
    for stream in {id(s): s for s in (sys.stdout, sys.stderr, sys.__stdout__,
                                      sys.__stderr__)}.values():
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):  # closed or broken by user code
            pass
