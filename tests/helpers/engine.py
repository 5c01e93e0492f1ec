"""Real engine processes for the engine tests: bounded waits, an event recorder, requests
tracing a small ``def f(x)``, and whether a process is alive."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from jaxviz.model import Target, TraceRequest
from jaxviz.model.engine import EngineEvent

#: Upper bound for anything that needs a (re)started engine.
READY_S = 90.0



class Events:
    """Records the client's events (from its callback thread) and waits for them."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self.seen: list[EngineEvent] = []

    def __call__(self, event: EngineEvent) -> None:
        with self._cond:
            self.seen.append(event)
            self._cond.notify_all()

    def kinds(self) -> list[str]:
        return [e.kind for e in list(self.seen)]

    def clear(self) -> None:
        with self._cond:
            self.seen.clear()

    def wait_for(self, kind: str, count: int = 1, timeout: float = READY_S) -> EngineEvent:
        """Wait until ``count`` events of ``kind`` were seen; return the last of them."""
        with self._cond:
            ok = self._cond.wait_for(lambda: len(self._of(kind)) >= count, timeout)
            assert ok, f"fewer than {count} {kind!r} events within {timeout} s: {self.kinds()}"
            return self._of(kind)[count - 1]

    def _of(self, kind: str) -> list[EngineEvent]:
        return [e for e in self.seen if e.kind == kind]



def trace(body: str, args: str = "f32[3]", variants: tuple[str, ...] = ("plain",),
          header: str = "", want: tuple[str, ...] = ("jaxpr",)) -> TraceRequest:
    """A request tracing ``def f(x): <body>`` (``header`` goes before it)."""
    lines = "".join(f"    {line}\n" for line in body.splitlines())
    source = f"import os, sys, time\nimport jax, jax.numpy as jnp\n{header}\ndef f(x):\n{lines}"
    return TraceRequest(target=Target(source, "<test:engine_f.py>", "f"), args=args,
                        variants=list(variants), want=list(want))



def wait_for_file(path: Path, timeout: float = READY_S) -> None:
    """Wait until user code running in the engine has created ``path``."""
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert time.monotonic() < deadline, f"the engine never created {path}"
        time.sleep(0.02)


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")
