"""The client's engine processes: the primary, an optional standby, and dying ones.

The client calls an :class:`EnginePool` while holding its own lock; only
:func:`shut_down` (which waits) is called without it. This module imports
nothing from JAX.
"""

from __future__ import annotations

from collections.abc import Callable

from jaxviz.engine.process import EngineProcess


class EnginePool:
    """Which engine process serves requests, which one stands by, which are ending.

    Args:
        python: the interpreter for new processes (None: this one).
        on_message, on_exit: handed to every :class:`EngineProcess`.
    """

    def __init__(self, python: str | None, on_message: Callable[..., None],
                 on_exit: Callable[..., None]):
        self.python = python
        self.primary: EngineProcess | None = None
        self.spare: EngineProcess | None = None
        self._on_message, self._on_exit = on_message, on_exit
        self._all: set[EngineProcess] = set()  # every process not yet reaped

    def start_primary(self, devices: int) -> EngineProcess:
        """A new primary engine: the standby if it has ``devices`` devices, else a new process.

        Raises:
            OSError: the interpreter cannot be started.
        """
        spare, self.spare = self.spare, None
        if spare is not None and spare.devices == devices:
            self.primary = spare
            return spare
        if spare is not None:
            spare.kill()
        self.primary = None
        self.primary = self._new(devices)
        return self.primary

    def keep_spare(self, devices: int) -> None:
        """Start a standby engine with ``devices`` devices, unless there is one."""
        if self.spare is None:
            try:
                self.spare = self._new(devices)
            except OSError:  # the next restart will say what is wrong
                self.spare = None

    def retire_primary(self) -> EngineProcess | None:
        """Kill the primary engine (and what it started); return it."""
        old, self.primary = self.primary, None
        if old is not None:
            old.kill()
        return old

    def exited(self, process: EngineProcess) -> str:
        """Note that ``process`` ended; return what it was: primary, spare or retired."""
        if process is self.spare:
            self.spare = None
            return "spare"
        if process is self.primary:
            self.primary = None
            return "primary"
        return "retired"

    def detach(self) -> tuple[EngineProcess | None, list[EngineProcess]]:
        """Forget every process; return the primary and all of them, for :func:`shut_down`."""
        primary, processes = self.primary, list(self._all)
        self.primary = self.spare = None
        self._all = set()
        return primary, processes

    def _new(self, devices: int) -> EngineProcess:
        self._all = {p for p in self._all if not p.reaped}
        process = EngineProcess(devices, self.python, self._on_message, self._on_exit)
        self._all.add(process)
        return process


def shut_down(primary: EngineProcess | None, processes: list[EngineProcess], graceful: bool,
              grace: float) -> None:
    """Stop detached processes: the primary by end of input if ``graceful``, others killed.

    Waits (up to about ``grace`` seconds each) until they were reaped and their
    capture files removed.
    """
    for process in processes:
        if process is primary and graceful:
            process.close(grace)  # it exits by itself at the end of its input
        else:
            process.kill()
    for process in processes:
        process.join(grace)
