"""Send a timing request to the engine and fold its streamed records into a live run.

:class:`TimingRunner` never waits: it submits the request through the
window's :class:`~jaxviz.ui.qt_engine.QtEngine` and reacts to its signals,
which arrive on the GUI thread. Records are added to the run as they arrive;
the views are told at most ~10 times a second (:attr:`TimingRunner.updated`),
so a run that streams thousands of calls keeps the window smooth.

Stop cancels the request in the engine (which restarts it); records already
measured stay. A crash, a timeout or a fatal error ends the run the same way:
the run keeps every record that arrived and :attr:`TimingRunner.finished`
says what happened.
"""

from __future__ import annotations

import time

from PySide6.QtCore import QObject, QTimer, Signal

from jaxviz.model.engine import Reply
from jaxviz.model.records import ErrorInfo
from jaxviz.model.timing import (
    CallRecord,
    FirstCall,
    PipelineInfo,
    TimingHeader,
    TimingRequest,
    TimingRun,
    TimingStatus,
    VariantInfo,
)
from jaxviz.ui.qt_engine import QtEngine
from jaxviz.views.timing.options import error_banner_text

#: Records a timing request streams (anything else is not ours).
TIMING_RECORDS = (TimingHeader, VariantInfo, FirstCall, CallRecord, PipelineInfo,
                  TimingStatus, ErrorInfo)

#: Seconds a timing request may run before the engine gives up on it.
REQUEST_TIMEOUT = 900.0

#: Coalesce redraws to at most one per this many milliseconds.
REFRESH_MS = 100


class TimingRunner(QObject):
    """Runs timing requests in the engine, one at a time.

    Signals:
        started(run): a run began (an empty :class:`TimingRun` with its request).
        updated(run): records arrived (coalesced to ~10 Hz).
        status(TimingStatus): what the engine is measuring now.
        finished(run, message, ok): the run ended; ``message`` says how, ``ok``
            is False when it ended early (stopped, crashed, failed).
    """

    started = Signal(object)
    updated = Signal(object)
    status = Signal(object)
    finished = Signal(object, str, bool)

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self.engine: QtEngine | None = None
        self.run: TimingRun | None = None
        self._id: int | None = None
        self._stopping = False
        self._began = 0.0
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(REFRESH_MS)
        self._timer.timeout.connect(self._flush)

    @property
    def running(self) -> bool:
        return self._id is not None

    def set_engine(self, engine) -> None:
        """Use ``engine`` (a :class:`~jaxviz.ui.qt_engine.QtEngine`) for the next runs."""
        if engine is self.engine:
            return
        if self.engine is not None:
            for signal, slot in ((self.engine.progressed, self._on_progress),
                                 (self.engine.replied, self._on_reply)):
                signal.disconnect(slot)
        self.engine = engine
        if engine is not None:
            engine.progressed.connect(self._on_progress)
            engine.replied.connect(self._on_reply)

    def start(self, request: TimingRequest) -> TimingRun:
        """Submit ``request``; returns the (empty) run that records will fill.

        Raises:
            RuntimeError: no engine, or a run is already under way.
        """
        if self.engine is None:
            raise RuntimeError("the timing view has no JAX engine to measure with")
        if self.running:
            raise RuntimeError("a timing run is already under way: stop it first")
        self.run = TimingRun(request=request)
        self._stopping = False
        self._began = time.monotonic()
        self._id = self.engine.submit(request, timeout=REQUEST_TIMEOUT)
        self.started.emit(self.run)
        return self.run

    def stop(self) -> bool:
        """Cancel the run in the engine; the run keeps what was measured. False if idle."""
        if not self.running or self._stopping:
            return False
        self._stopping = True
        if self.engine is not None and self._id is not None:
            self.engine.cancel(self._id)  # the cancelled reply ends the run
        return True

    # ------------------------------------------------------------ engine
    def _on_progress(self, request_id: int, record: object) -> None:
        if not self.running or not isinstance(record, TIMING_RECORDS):
            return
        # -1: the record raced the id's hand-over in QtEngine.submit (ours: one request at a time)
        if request_id not in (self._id, -1) or self.run is None:
            return
        self.run.add(record)
        if isinstance(record, TimingStatus):
            self.status.emit(record)
        if not self._timer.isActive():
            self._timer.start()

    def _flush(self) -> None:
        if self.run is not None:
            self.updated.emit(self.run)

    def _on_reply(self, reply: Reply) -> None:
        if not self.running or reply.id != self._id:
            return
        self._id = None
        self._timer.stop()
        run = self.run
        assert run is not None  # running
        if reply.ok and isinstance(reply.result, TimingRun):
            # The engine's complete run: the same records, plus its fatal error if any.
            run = self.run = reply.result
        elif not reply.ok:
            run.complete = False
            if reply.error is not None and reply.error.kind != "cancelled":
                run.error = reply.error
        message, ok = self._outcome(run, reply)
        self.finished.emit(run, message, ok)

    def _outcome(self, run: TimingRun, reply: Reply) -> tuple[str, bool]:
        calls = len(run.calls)
        kept = (f"the {calls} call{'s' if calls != 1 else ''} measured before are kept"
                if calls else "no calls had been measured yet")
        took = f"{time.monotonic() - self._began:.1f} s"
        if not reply.ok:
            error = reply.error or ErrorInfo(kind="engine", message="the engine gave no reason")
            if error.kind == "cancelled" or self._stopping:
                return f"stopped after {calls} call{'s' if calls != 1 else ''}; {kept}", False
            if error.kind == "crash":
                return (f"the JAX engine crashed during the run ({error_banner_text(error)}); "
                        f"{kept}; the engine restarts"), False
            if error.kind == "timeout":
                return (f"the run took longer than {REQUEST_TIMEOUT:g} s and was ended "
                        f"({error_banner_text(error)}); {kept}"), False
            return f"the run failed: {error_banner_text(error)}; {kept}", False
        if run.error is not None:
            return f"the run failed: {error_banner_text(run.error)}; {kept}", False
        skipped = f"; {len(run.errors)} problem{'s' if len(run.errors) != 1 else ''} " \
                  f"skipped parts of it" if run.errors else ""
        return f"done: {calls} calls in {took}{skipped}", True
