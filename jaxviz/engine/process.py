"""One engine child process, seen from the client: spawn, send, read, kill, reap.

:class:`EngineProcess` knows nothing about requests; it hands every message
the engine sends, and finally its exit, to the callbacks it was given (on its
own reader thread). The client (:mod:`jaxviz.engine.client`) decides what
they mean.

This module imports nothing from JAX.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from jaxviz.engine import protocol, reaper
from jaxviz.engine.capture import STDERR_NAME, STDOUT_NAME, read_tail

#: How long a process that closed its channel gets to exit before it is killed.
REAP_SECONDS = 5.0
#: The signal that makes the engine write its Python stack to fd 2 (see the server).
STACK_SIGNAL = signal.SIGUSR2
#: What a Python stack written by faulthandler contains.
STACK_MARK = "(most recent call first)"


def exit_reason(returncode: int | None) -> str:
    """A process's end in words: ``SIGABRT`` for a signal, ``exit code 3`` otherwise."""
    if returncode is None:
        return "an unknown cause"
    if returncode < 0:
        try:
            return signal.Signals(-returncode).name
        except ValueError:
            return f"signal {-returncode}"
    return f"exit code {returncode}"


class EngineProcess:
    """A running ``python -m jaxviz.worker.server`` child and its reader thread.

    Args:
        devices: the device count the process starts JAX with.
        python: the interpreter to run (default: this one, with this jaxviz
            first on its path).
        on_message: called as ``on_message(process, message)`` for every
            message, on the reader thread.
        on_exit: called once as ``on_exit(process, returncode, stdout,
            stderr)`` after the process ended, on the reader thread, with what
            its last request (or its start-up) printed.

    Raises:
        OSError: the interpreter cannot be started.
    """

    def __init__(self, devices: int, python: str | None,
                 on_message: Callable[[EngineProcess, dict[str, Any]], None],
                 on_exit: Callable[[EngineProcess, int | None, str, str], None]):
        self.devices = devices
        self.info: Any = None            # the EngineInfo, once ready
        self.failure: tuple[str, str] | None = None  # (message, details) it reported
        self.refusal: str | None = None  # why the client refused it
        self.forgery: str | None = None  # a line it did not write, seen on its channel
        self.token = protocol.new_token()
        self.started = time.perf_counter()
        self._on_message = on_message
        self._on_exit = on_exit
        self._send_lock = threading.Lock()
        self.capture = Path(tempfile.mkdtemp(prefix="jaxviz-engine-"))
        reaper.become_subreaper()  # an engine's orphans come here if it crashes
        command = [python or sys.executable, "-m", "jaxviz.worker.server",
                   "--devices", str(devices), "--capture", str(self.capture),
                   "--spawned-at", repr(time.time())]
        try:
            with open(self.capture / STDERR_NAME, "ab") as early_stderr:
                self.popen = subprocess.Popen(
                    command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                    stderr=early_stderr, env=_environment(python), start_new_session=True)
        except OSError:
            shutil.rmtree(self.capture, ignore_errors=True)
            raise
        assert self.popen.stdin is not None and self.popen.stdout is not None  # both PIPE
        self._stdin: IO[bytes] = self.popen.stdin
        self._stdout: IO[bytes] = self.popen.stdout
        self.pid = self.popen.pid
        self.send(protocol.hello(self.token))  # the engine signs every message with it
        self._reader = threading.Thread(target=self._read, daemon=True,
                                        name=f"jaxviz-engine-reader-{self.pid}")
        self._reader.start()

    @property
    def ready(self) -> bool:
        """True once the engine sent its ready message (and was accepted)."""
        return self.info is not None

    @property
    def reaped(self) -> bool:
        """True once the process ended, was reaped and its capture files removed."""
        return not self._reader.is_alive()

    def send(self, data: bytes) -> bool:
        """Write encoded messages to the engine; False if it is gone."""
        try:
            with self._send_lock:
                self._stdin.write(data)
                self._stdin.flush()
        except (OSError, ValueError):  # broken pipe, or closed by stop()
            return False
        return True

    def output(self) -> tuple[str, str]:
        """What the current request (or the start-up) has printed so far."""
        return read_tail(self.capture / STDOUT_NAME), read_tail(self.capture / STDERR_NAME)

    def ask_stack(self) -> None:
        """Ask the engine to write where its Python code is to its captured stderr."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(self.pid, STACK_SIGNAL)

    def has_stack(self) -> bool:
        """True once the captured stderr holds a Python stack (see :meth:`ask_stack`)."""
        return STACK_MARK in self.output()[1]

    def kill(self) -> None:
        """Kill the engine and every process it started, at once: first its descendants
        (found while it lives: it is their subreaper, see :mod:`jaxviz.engine.reaper`),
        then its process group."""
        reaper.kill_descendants(self.pid)
        kill_group(self.pid)

    def close(self, grace: float) -> None:
        """Ask the engine to exit (end of its input); kill it if it has not after ``grace`` s."""
        with contextlib.suppress(OSError):
            self._stdin.close()
        try:
            self.popen.wait(grace)
        except subprocess.TimeoutExpired:
            self.kill()

    def join(self, timeout: float) -> None:
        """Wait until the process was reaped and its capture directory removed."""
        self._reader.join(timeout)

    def _read(self) -> None:
        stream = self._stdout
        try:
            while (message := self._receive(stream)) is not None:
                self._on_message(self, message)
        except protocol.ForgedMessage as exc:
            if self.ready:
                self.forgery = str(exc)
            else:
                self.failure = self.failure or (f"the engine sent garbage: {exc}", "")
            self.kill()
        except (OSError, ValueError) as exc:  # a broken pipe, a line that is not UTF-8...
            self.failure = self.failure or (f"the engine sent garbage: {exc}", "")
            self.kill()
        try:
            returncode = self.popen.wait(REAP_SECONDS)
        except subprocess.TimeoutExpired:
            self.kill()
            returncode = self.popen.wait()
        # Whatever the engine's code started (a `sleep 300`, a server) is in its
        # process group: it goes with the engine, however the engine ended. What it
        # detached (setsid, double forks) and left by crashing came to us (a subreaper).
        kill_group(self.pid)
        reaper.sweep_orphans_of(self.pid)
        stdout, stderr = self.output()
        try:
            self._on_exit(self, returncode, stdout, stderr)
        finally:
            for pipe in (self._stdin, stream):
                with contextlib.suppress(OSError):
                    pipe.close()
            shutil.rmtree(self.capture, ignore_errors=True)


    def _receive(self, stream: IO[bytes]) -> dict[str, Any] | None:
        """The engine's next message, checked against its token (a long one read whole).

        An engine of a jaxviz without tokens says ``ready`` unsigned: that
        message goes through, for the client to refuse as another version.
        """
        return protocol.receive_signed(stream, self.token, unsigned_ready=not self.ready)


def kill_group(pid: int) -> None:
    """SIGKILL the process group led by ``pid`` (a child started with its own session).

    Does nothing when the group is gone. Safe after the leader was reaped: a
    group id is not given to a new process while any member of the group lives.
    """
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def _environment(python: str | None) -> dict[str, str]:
    """The engine's environment: this jaxviz first on the path when it is our interpreter."""
    env = dict(os.environ)
    if python is None:
        root = str(Path(__file__).resolve().parents[2])
        parts = [root] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
        env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(parts))
    return env
