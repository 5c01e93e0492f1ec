"""What every jaxviz child process does first: a private channel, and an eye on its parent.

The engine server, the async-off timing child and the multi-host workers
all talk to their parent over :mod:`jaxviz.engine.protocol` on stdin and
stdout. :class:`Channel` moves those ends to private file descriptors before
any user code runs, so nothing the user's code prints (or reads) can touch
the channel; :func:`watch_parent` ends the process when its parent is gone,
even while user code is busy, so no child outlives the app or the engine.

This module imports nothing from JAX.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections.abc import Callable
from typing import IO, Any

from jaxviz.engine import protocol

#: How often a child checks that its parent is still alive.
PARENT_POLL_SECONDS = 1.0
#: The exit status of a child whose parent went away.
ORPHAN_EXIT = 3
#: How far below the window's priority the engine and its children run (a nice value):
#: when both want a core, the window's thread goes first. Measured on a 2-core machine
#: switching the gallery's examples (each traced as it opens): the GUI thread's time
#: waiting for a core while the engine's threads were busy fell by a quarter to a third
#: at 5 and at 10 alike, and its waits over 3 ms by about half; 5 leaves the engine
#: more of a machine that other programs keep busy (an engine alone is not slowed).
ENGINE_NICE = 5


class Channel:
    """The protocol's private ends: messages in, messages out (thread-safe, signed sends).

    Reads the parent's ``hello`` line first: every message sent carries its
    token (see :mod:`jaxviz.engine.protocol`).

    Args:
        stdout_to_stderr: also point fd 1 at fd 2, so what the process prints
            lands with its errors (the server points fds 1 and 2 at capture
            files itself).

    Raises:
        ProtocolError: the parent's first line is not a ``hello`` with a token.
    """

    def __init__(self, stdout_to_stderr: bool = False) -> None:
        # os.dup gives non-inheritable descriptors: subprocesses of user code
        # cannot hold the channel open or write into it.
        self.incoming: IO[bytes] = os.fdopen(os.dup(0), "rb")
        self.outgoing: IO[bytes] = os.fdopen(os.dup(1), "wb")
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        if stdout_to_stderr:
            os.dup2(2, 1)
        self._lock = threading.Lock()
        first = protocol.receive(self.incoming)
        token = first.get("token") if first is not None else None
        if first is None or first.get("op") != protocol.HELLO or not isinstance(token, str):
            raise protocol.ProtocolError("the parent did not start with a hello and a token")
        self._token = token

    def send(self, message: dict[str, Any]) -> None:
        """Write one message to the parent, signed with the token; a long one in pieces
        (:func:`jaxviz.engine.protocol.split`), written together."""
        line = protocol.encode({**message, "token": self._token})
        parts = [message] if len(line) <= protocol.PIECE_CHARS else protocol.split(message)
        with self._lock:
            for part in parts:
                self.outgoing.write(line if part is message else
                                    protocol.encode({**part, "token": self._token}))
            self.outgoing.flush()

    def receive(self) -> dict[str, Any] | None:
        """The parent's next message; None at the end of its input."""
        return protocol.receive(self.incoming)


def yield_to_the_window(nice: int = ENGINE_NICE) -> None:
    """Run at :data:`ENGINE_NICE` below the window: this thread and every thread and
    process it starts after (call it first, before JAX starts its threads).

    Linux gives each thread its own nice value, inherited by the threads it starts; and
    where the kernel groups processes by session (``autogroup``), a process that leads a
    session of its own -- the engine does -- competes with the window as one group, at
    the group's nice value, so that is set too. Never raised back (that needs privilege);
    where the system refuses, the engine runs as it was.
    """
    with contextlib.suppress(OSError):
        if os.getpriority(os.PRIO_PROCESS, 0) < nice:
            os.setpriority(os.PRIO_PROCESS, 0, nice)  # 0: this thread (Linux)
    if os.getsid(0) != os.getpid():
        return  # its session's group is its parent's: the window's, maybe
    with contextlib.suppress(OSError), open("/proc/self/autogroup", "w") as group:
        group.write(str(nice))


def watch_parent(on_gone: Callable[[], object] | None = None,
                 poll_s: float = PARENT_POLL_SECONDS) -> threading.Thread:
    """End this process when its parent is gone (killed, crashed, or exited).

    Checks every ``poll_s`` seconds on a daemon thread. When the parent is
    gone: ``on_gone()`` runs (e.g. removing capture files), every process of
    this one's own session is killed (user code's subprocesses, when this
    process leads its session), and the process exits with :data:`ORPHAN_EXIT`.
    """
    parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(poll_s)
            if os.getppid() != parent:
                if on_gone is not None:
                    on_gone()
                if os.getpgrp() == os.getpid():
                    os.killpg(os.getpid(), signal.SIGKILL)
                os._exit(ORPHAN_EXIT)

    thread = threading.Thread(target=watch, name="jaxviz-parent-watch", daemon=True)
    thread.start()
    return thread
