"""Sending the window's trace requests: debounced, one at a time, in two phases.

* **Debounce.** Edits call :meth:`TraceSession.schedule`; the request goes out
  after :data:`DEBOUNCE_MS` without further edits, so typing never waits.
* **One at a time.** While a request runs, newer ones wait; only the newest
  waiting one is sent when it ends, and a reply is shown only if no newer
  request is waiting (stale answers are dropped, never shown over newer text).
* **Two phases.** First the jaxprs alone (fast: the panes update at once),
  then the same request with StableHLO, compiled HLO, costs, layouts and
  storyboards (slower: XLA compiles every variant) for the detail tabs and the
  device view.
* **Busy and Stop.** ``busyChanged`` fires when a request has run for
  :data:`BUSY_AFTER_MS`; :meth:`stop` cancels it in the engine (which
  restarts the engine process if it was running) and drops what waits.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer, Signal

from jaxviz.model import TraceRequest
from jaxviz.model.engine import Reply
from jaxviz.ui import gc_policy
from jaxviz.ui.qt_engine import QtEngine

DEBOUNCE_MS = 400
BUSY_AFTER_MS = 250
#: What each phase asks the core for.
PHASES = {"jaxpr": ["jaxpr"], "details": ["jaxpr", "hlo", "layout", "story"]}


class TraceSession(QObject):
    """Turns "the code or settings changed" into engine requests and results."""

    #: ``(request, reply)`` of phase one: the jaxprs (or the error).
    resultReady = Signal(object, object)
    #: ``(request, reply)`` of phase two: HLO, costs, layouts.
    detailsReady = Signal(object, object)
    #: ``(busy, what)``: a request has been running a while, or it ended.
    busyChanged = Signal(bool, str)

    def __init__(self, engine: QtEngine, parent: QObject | None = None,
                 debounce_ms: int = DEBOUNCE_MS, details: bool = True):
        super().__init__(parent)
        self.engine = engine
        self.details = details
        self._factory: Callable[[], TraceRequest | None] | None = None
        self._debounce = QTimer(self, singleShot=True, interval=debounce_ms)
        self._debounce.timeout.connect(self.trace_now)
        self._busy_timer = QTimer(self, singleShot=True, interval=BUSY_AFTER_MS)
        self._busy_timer.timeout.connect(self._became_busy)
        self._inflight: tuple[int, str, TraceRequest, int] | None = None  # id, phase, req, gen
        self._waiting: tuple[str, TraceRequest, int] | None = None
        self._generation = 0
        self._busy = False
        self.latest: TraceRequest | None = None
        #: Parts the detail phase asks for besides :data:`PHASES` (a view shown that needs
        #: them: the Collectives tab asks for "cost").
        self.extra_details: list[str] = []
        engine.replied.connect(self._on_reply)
        # no idle cycle collection while a result is on its way (it would delay showing it)
        gc_policy.busy_while(self, "pending")

    # ------------------------------------------------------------- requests
    def set_factory(self, factory: Callable[[], TraceRequest | None]) -> None:
        """How to build the current request (None from the factory: nothing to trace)."""
        self._factory = factory

    def schedule(self) -> None:
        """Trace after a short pause without further calls (for typing)."""
        self._debounce.start()

    def trace_now(self) -> int | None:
        """Build the current request and send it now (or as soon as the engine is free)."""
        self._debounce.stop()
        req = self._factory() if self._factory is not None else None
        if req is None:
            return None
        return self.trace(req)

    def trace(self, req: TraceRequest) -> int:
        """Send ``req`` (phase one); returns its generation number."""
        self._generation += 1
        self.latest = req
        self._queue("jaxpr", req, self._generation)
        return self._generation

    def _queue(self, phase: str, req: TraceRequest, generation: int) -> None:
        if self._inflight is None:
            self._send(phase, req, generation)
        else:
            self._waiting = (phase, req, generation)

    def _send(self, phase: str, req: TraceRequest, generation: int) -> None:
        want = list(PHASES[phase]) + (self.extra_details if phase == "details" else [])
        record = dataclasses.replace(req, want=want)
        rid = self.engine.submit(record)
        self._inflight = (rid, phase, req, generation)
        self._busy_timer.start()

    def want_details(self, part: str) -> bool:
        """Ask the detail phase for ``part`` too from now on; if the latest request's
        details went out without it, send them again. True when a request went out."""
        if part in self.extra_details:
            return False
        self.extra_details.append(part)
        if self.latest is None or not self.details:
            return False
        self._queue("details", self.latest, self._generation)
        return True

    @property
    def running(self) -> bool:
        """True while a request is in the engine."""
        return self._inflight is not None

    @property
    def pending(self) -> bool:
        """True while a request runs, waits, or is about to be sent."""
        return self._inflight is not None or self._waiting is not None or self._debounce.isActive()

    def stop(self) -> bool:
        """Cancel the running request and drop waiting ones. False when nothing ran."""
        self._debounce.stop()
        self._waiting = None
        if self._inflight is None:
            return False
        self.engine.cancel(self._inflight[0])
        return True

    def forget_inflight(self) -> None:
        """The engine restarted under the running request: stop waiting for it."""
        self._inflight = None
        self._set_busy(False, "")

    # -------------------------------------------------------------- replies
    def _on_reply(self, reply: Reply) -> None:
        if self._inflight is None or reply.id != self._inflight[0]:
            return  # a request we stopped caring about
        _rid, phase, req, generation = self._inflight
        self._inflight = None
        self._busy_timer.stop()
        current = generation == self._generation
        if self._waiting is not None:
            self._send(*self._waiting)
            self._waiting = None
        else:
            self._set_busy(False, "")
        if not current:
            return  # newer text or settings are already on their way
        if phase == "jaxpr":
            self.resultReady.emit(req, reply)
            if reply.ok and self.details and self._inflight is None:
                self._send("details", req, generation)
        else:
            self.detailsReady.emit(req, reply)

    def _became_busy(self) -> None:
        if self._inflight is not None:
            phase, req = self._inflight[1], self._inflight[2]
            what = (f"tracing {req.target.function}…" if phase == "jaxpr"
                    else f"compiling {req.target.function} (HLO, layouts)…")
            self._set_busy(True, what)

    def _set_busy(self, busy: bool, what: str) -> None:
        if busy != self._busy or busy:
            self._busy = busy
            self.busyChanged.emit(busy, what)
