"""Every process the user's code starts ends with the engine that ran it.

A process group is not enough: code may start a child with
``start_new_session=True`` (``setsid``: a group of its own) or fork twice so
that the grandchild is orphaned. On Linux an orphan is re-parented to the
nearest ancestor that declared itself a *child subreaper*
(``prctl(PR_SET_CHILD_SUBREAPER)``), else to PID 1. So:

- the engine (and each multi-host worker) is a subreaper
  (:func:`become_subreaper`): whatever its code starts, however it detaches,
  stays among its descendants while it lives;
- when it ends normally it kills every descendant (:func:`sweep_descendants`);
- a client that kills an engine first kills the engine's descendants
  (:func:`kill_descendants`), then the engine;
- the client is a subreaper too: when an engine dies on its own (a crash),
  its orphans come to the client, which kills those marked as the engine's
  (:data:`MARK`, an environment variable they inherit) with
  :func:`sweep_orphans_of`.

Descendants are found in ``/proc`` (Linux); elsewhere these functions do
nothing and the process group is what remains. This module imports nothing
from JAX.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import signal
import sys

#: ``prctl`` option (linux/prctl.h).
PR_SET_CHILD_SUBREAPER = 36
#: The environment variable an engine sets to its pid; its descendants inherit it.
MARK = "JAXVIZ_ENGINE_PID"
#: Rounds of look-and-kill before giving up on code that forks as fast as it is killed.
ROUNDS = 50


def become_subreaper() -> bool:
    """Make this process the child subreaper of its descendants (Linux); True if it is."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        return libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _parents() -> dict[int, int]:
    """``pid -> parent pid`` of every process visible in ``/proc``."""
    found: dict[int, int] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return found
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        # "pid (comm) state ppid ...": comm may hold spaces and parentheses
        fields = stat.rpartition(b")")[2].split()
        with contextlib.suppress(IndexError, ValueError):
            found[int(name)] = int(fields[1])
    return found


def descendants(pid: int) -> list[int]:
    """Every living descendant of ``pid`` (children first), from ``/proc``."""
    parents = _parents()
    children: dict[int, list[int]] = {}
    for child, parent in parents.items():
        children.setdefault(parent, []).append(child)
    found: list[int] = []
    todo = list(children.get(pid, []))
    while todo:
        p = todo.pop(0)
        found.append(p)
        todo.extend(children.get(p, []))
    return found


def kill_descendants(pid: int) -> int:
    """SIGKILL every descendant of ``pid`` (not ``pid``), again until none is left.

    Returns:
        How many processes were signalled.
    """
    killed = 0
    for _ in range(ROUNDS):
        found = [p for p in descendants(pid) if _alive(p)]
        if not found:
            break
        for p in found:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(p, signal.SIGKILL)
                killed += 1
        _reap_children(set(found))
    return killed


def sweep_descendants() -> int:
    """Kill every descendant of this process and reap its own children (at the end)."""
    return kill_descendants(os.getpid())


def sweep_orphans_of(engine_pid: int) -> int:
    """Kill the processes a dead engine left, re-parented to this (subreaper) process.

    Only children of this process whose environment carries ``MARK=engine_pid``
    (and their descendants) are touched.
    """
    killed = 0
    me = os.getpid()
    for _ in range(ROUNDS):
        parents = _parents()
        orphans = [p for p, parent in parents.items()
                   if parent == me and _marked(p, engine_pid)]
        if not orphans:
            break
        for p in orphans:
            killed += kill_descendants(p)
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(p, signal.SIGKILL)
                killed += 1
        _reap_children(set(orphans))
    return killed


def _marked(pid: int, engine_pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            environ = f.read(1 << 20)
    except OSError:
        return False
    return f"{MARK}={engine_pid}".encode() in environ.split(b"\0")


def _alive(pid: int) -> bool:
    """True unless ``pid`` is gone or a zombie."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            state = f.read().rpartition(b")")[2].split()[0]
    except (OSError, IndexError):
        return False
    return state != b"Z"


def _reap_children(pids: set[int]) -> None:
    """``waitpid`` those of ``pids`` that are this process's children (zombies otherwise).

    Called after SIGKILL, which a process cannot ignore: the wait is short.
    """
    for p in pids:
        with contextlib.suppress(ChildProcessError, OSError):
            os.waitpid(p, 0)
