"""A request type that streams progress, for tests: registered in the engine by a wrapper.

:func:`make_python` writes an executable that the client can use as its
``python``: it registers a ``CountRequest`` handler with the core's service
(streaming ``Counted(i)`` for i < n, then returning ``Counted(n)``) and then
runs the real engine server.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from jaxviz.model import register

ROOT = Path(__file__).resolve().parents[2]


@register
@dataclass
class CountRequest:
    n: int
    delay_s: float = 0.0


@register
@dataclass
class Counted:
    i: int


WRAPPER = f"""
import sys, time
sys.path.insert(0, {str(ROOT)!r})
from tests.helpers.counting import CountRequest, Counted
from jaxviz.core import service

@service.handler("CountRequest")
def count(record, progress):
    for i in range(record.n):
        progress(Counted(i))
        time.sleep(record.delay_s)
    return Counted(record.n)

from jaxviz.worker import server
args = sys.argv[1:]
assert args[:2] == ["-m", "jaxviz.worker.server"], args
sys.exit(server.main(args[2:]))
"""


def make_python(folder: Path) -> str:
    """An executable that runs the engine server with the counting handler."""
    (folder / "counting_server.py").write_text(WRAPPER)
    launcher = folder / "python-with-counting"
    launcher.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{folder / "counting_server.py"}" '
                        f'"$@"\n')
    launcher.chmod(0o755)
    return str(launcher)
