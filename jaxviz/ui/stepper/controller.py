"""Step mode: one stepping of one variant, asked of the engine, and a cursor over it.

:class:`StepController` sends a :class:`~jaxviz.model.stepping.StepRequest`
through the window's :class:`~jaxviz.ui.qt_engine.QtEngine` (the engine
runs it in its own process; the reply arrives as a Qt signal, so the GUI
thread never waits), then moves a :class:`~jaxviz.views.stepper.cursor.StepCursor`
over the steps and announces every move with :attr:`StepController.stepChanged`.
What is shown where (the pane, the editor, the values panel, the device view)
is the window's business (:mod:`jaxviz.ui.window.stepping`).

Its :meth:`~StepController.step_forward` / :meth:`~StepController.step_back`
are the two calls a presenter's clicker needs.
"""

from __future__ import annotations

import dataclasses

from PySide6.QtCore import QObject, Signal

from jaxviz.model import ErrorInfo, TraceRequest
from jaxviz.model.engine import Reply
from jaxviz.model.stepping import StepRequest, StepResult
from jaxviz.ui.qt_engine import QtEngine
from jaxviz.views.stepper.cursor import StepCursor
from jaxviz.views.stepper.record_window import window_for

#: Values with at most this many elements are kept whole in the window (16 x 16 heat maps).
WINDOW_VALUE_LIMIT = 256
#: The most (estimated) megabytes a window's stepping may record: it crosses the engine pipe.
WINDOW_RECORD_LIMIT_MB = 8.0
#: Seconds a stepping may take before the engine is restarted.
STEP_TIMEOUT_S = 120.0


class StepController(QObject):
    """Step mode's state: the stepping asked for, its result, and where the cursor is.

    Signals:
        stepChanged(int): the cursor moved to this step (also when a stepping arrives).
        modeChanged(bool, str): step mode went on or off, for this variant.
        busyChanged(bool, str): a stepping is being computed (what, for the status bar).
        failed(object): the stepping failed: an :class:`~jaxviz.model.ErrorInfo`.
        refused(str): a move could not be made, and why.
    """

    stepChanged = Signal(int)
    modeChanged = Signal(bool, str)
    busyChanged = Signal(bool, str)
    failed = Signal(object)
    refused = Signal(str)

    def __init__(self, engine: QtEngine, parent: QObject | None = None,
                 value_limit: int = WINDOW_VALUE_LIMIT,
                 record_limit_mb: float = WINDOW_RECORD_LIMIT_MB) -> None:
        super().__init__(parent)
        self.engine = engine
        self.value_limit = value_limit
        self.record_limit_mb = record_limit_mb
        self.active = False
        self.variant = ""
        self.request: StepRequest | None = None
        self.result: StepResult | None = None
        self.cursor: StepCursor | None = None
        self._inflight: int | None = None
        self._then: tuple[int | None, int | None] = (None, None)  # (index to keep, line)
        engine.replied.connect(self._on_reply)

    # ------------------------------------------------------------- the mode
    def start(self, trace: TraceRequest, variant: str, summary: bool = False,
              keep_index: int | None = None, to_line: int | None = None) -> None:
        """Step ``variant`` of what ``trace`` describes (step mode goes on).

        Args:
            trace: the window's trace request (target and settings).
            variant: the variant to step.
            summary: keep statistics only (for programs too large to record).
            keep_index: the step to show when it arrives (else the first).
            to_line: then run to the first equation from this source line.
        """
        self.cancel()
        record_from, record_steps = window_for(keep_index or 0)  # values around the cursor
        self.request = StepRequest(trace=dataclasses.replace(trace, want=["jaxpr"]),
                                   variant=variant, value_limit=self.value_limit,
                                   summary=summary, record_limit_mb=self.record_limit_mb,
                                   record_from=record_from, record_steps=record_steps)
        self._then = (keep_index, to_line)
        was = (self.active, self.variant)
        self.active, self.variant = True, variant
        if was != (True, variant):
            self.modeChanged.emit(True, variant)
        self._inflight = self.engine.submit(self.request, timeout=STEP_TIMEOUT_S)
        self.busyChanged.emit(True, f"stepping {trace.target.function} ({variant}) in the "
                                    f"JAX engine…")

    def restart(self, trace: TraceRequest | None = None, summary: bool | None = None) -> None:
        """Step again (new code or settings, or summary mode), keeping the cursor's place."""
        if not self.active or self.request is None:
            return
        index = self.cursor.index if self.cursor is not None else None
        self.start(trace or self.request.trace, self.variant,
                   self.request.summary if summary is None else summary, keep_index=index)

    def stop(self) -> None:
        """Leave step mode."""
        self.cancel()
        if self.active:
            variant = self.variant
            self.active, self.result, self.cursor = False, None, None
            self.modeChanged.emit(False, variant)

    def cancel(self) -> None:
        """Drop the stepping being computed (the engine restarts if it was running it)."""
        if self._inflight is not None:
            self.engine.cancel(self._inflight)
            self._inflight = None
            self.busyChanged.emit(False, "")

    @property
    def busy(self) -> bool:
        return self._inflight is not None

    # ---------------------------------------------------------------- moves
    def step_forward(self) -> bool:
        """One step on (a clicker's "next")."""
        return self.move("next")

    def step_back(self) -> bool:
        """One step back (a clicker's "previous")."""
        return self.move("back")

    def run_to_line(self, line: int) -> bool:
        """To the next equation from a source line."""
        if self.cursor is None:
            if self.busy:
                self._then = (self._then[0], line)
                return True
            return False
        return self._moved(self.cursor.run_to_line(line))

    def move(self, name: str) -> bool:
        """Move the cursor: ``next``, ``back``, ``over`` or ``out`` (as :class:`StepCursor`)."""
        if self.cursor is None:
            return False
        moves = {"next": self.cursor.next, "back": self.cursor.back, "over": self.cursor.over,
                 "out": self.cursor.out}
        return self._moved(moves[name]())

    def go(self, index: int) -> bool:
        """To step ``index`` (0-based): a jump anywhere, recorded around it if need be."""
        if self.cursor is None:
            return False
        return self._moved(self.cursor.go(index))

    def _moved(self, moved: bool) -> bool:
        assert self.cursor is not None
        if moved:
            self.stepChanged.emit(self.cursor.index)
            self._record_around(self.cursor.index)
        elif self.cursor.problem:
            self.refused.emit(self.cursor.problem)
        return moved

    def _record_around(self, index: int) -> None:
        """Left the recorded window: ask for the values around ``index`` (the step list
        stays; the values arrive with the new stepping)."""
        if (self.result is None or self.request is None or self.busy
                or self.result.has_values(index)):
            return
        self.start(self.request.trace, self.variant, self.request.summary, keep_index=index)

    # --------------------------------------------------------------- replies
    def _on_reply(self, reply: Reply) -> None:
        if self._inflight is None or reply.id != self._inflight:
            return
        self._inflight = None
        self.busyChanged.emit(False, "")
        result = reply.result if reply.ok else None
        if not isinstance(result, StepResult):
            self.failed.emit(reply.error or ErrorInfo("engine", "the engine sent no stepping"))
            return
        if result.error is not None:
            self.failed.emit(result.error)
            return
        if not result.steps:
            self.failed.emit(ErrorInfo("trace", f"the {result.variant} jaxpr has no "
                                                f"equations to step"))
            return
        keep, line = self._then
        if keep is not None and self.cursor is not None:
            keep = self.cursor.index  # moved on while this window was recorded
        self.result = result
        self.cursor = StepCursor(result, keep or 0)
        self.stepChanged.emit(self.cursor.index)
        if line is not None:
            self.run_to_line(line)
        else:
            self._record_around(self.cursor.index)
