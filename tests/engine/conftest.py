"""Engine tests: real engine processes (no display), shared where a test does not need its own.

Every wait is bounded; the bounds are generous because the machine is small
and shared.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from jaxviz.engine import EngineClient
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


@pytest.fixture(scope="module")
def events() -> Events:
    return Events()


@pytest.fixture(scope="module")
def client(events: Events) -> Iterator[EngineClient]:
    """A 4-device engine shared by a module's tests (with a standby for fast restarts)."""
    c = EngineClient(devices=4, timeout=60.0, on_event=events)
    c.start()
    c.wait_ready(READY_S)
    yield c
    c.stop()
