"""Step mode records a window of steps, and a jump out of it asks for the steps around it.

The engine is a stand-in that keeps the requests and answers with made-up steppings
(the values' truth is tests/core/test_stepper_jump.py's, against JAX); what is tested
here is what the controller asks for and where its cursor stays.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from jaxviz.model import Target, TraceRequest, VarInfo
from jaxviz.model.engine import Reply
from jaxviz.model.stepping import EvalStep, LaneValues, StepResult, Value
from jaxviz.ui.stepper.controller import StepController
from jaxviz.views.stepper.panel import build_panel
from jaxviz.views.stepper.record_window import RECORD_WINDOW

STEPS = 5000


class _Engine(QObject):
    replied = Signal(object)

    def __init__(self) -> None:
        super().__init__()
        self.requests: list = []
        self.cancelled: list[int] = []

    def submit(self, record, timeout=None) -> int:
        self.requests.append(record)
        return len(self.requests)

    def cancel(self, request_id: int) -> None:
        self.cancelled.append(request_id)

    def answer(self) -> None:
        """Reply to the last request as the engine would: every step, values in its window."""
        req = self.requests[-1]
        window = req.recorded
        steps = [EvalStep("equation", str(k), 0, "sin", outputs=[VarInfo("b", [], "f32")],
                          lanes=[LaneValues(None, [], [Value([], "f32", float(k))])]
                          if window is None or k in window else [])
                 for k in range(STEPS)]
        result = StepResult("f", "f.py", req.variant, steps=steps,
                            recorded_from=window.start if window else 0,
                            recorded_to=window.stop if window and window.stop < STEPS else None)
        self.replied.emit(Reply(len(self.requests), True, result))


def _started(qtbot):
    engine = _Engine()
    controller = StepController(engine)  # type: ignore[arg-type]
    trace = TraceRequest(target=Target("", "f.py", "f"), args="f32[3]")
    controller.start(trace, "plain")
    engine.answer()
    return engine, controller


def test_the_first_stepping_records_a_window_from_the_start(qtbot):
    engine, controller = _started(qtbot)
    assert (engine.requests[0].record_from, engine.requests[0].record_steps) == (0, RECORD_WINDOW)
    assert controller.cursor is not None and controller.cursor.index == 0
    assert controller.result is not None and controller.result.has_values(0)
    for _ in range(10):  # moves inside the window ask for nothing
        assert controller.step_forward()
    assert len(engine.requests) == 1


def test_a_jump_out_of_the_window_records_around_it_and_keeps_the_cursor_there(qtbot):
    engine, controller = _started(qtbot)
    assert controller.go(4000)
    assert len(engine.requests) == 2
    again = engine.requests[1]
    assert again.record_from <= 4000 < again.record_from + again.record_steps
    assert again.record_steps == RECORD_WINDOW  # bounded, not the 4,000 steps before it
    panel = build_panel(controller.result, 4000)  # meanwhile: the step, and why no values
    assert not panel.columns and "not recorded" in panel.notes[0]
    engine.answer()
    assert controller.cursor.index == 4000
    assert controller.result.has_values(4000)
    values = build_panel(controller.result, 4000).columns
    assert values and values[0].outputs  # the value of step 4,000 itself
    assert len(engine.requests) == 2


def test_moving_on_while_a_window_is_recorded_follows_the_cursor(qtbot):
    engine, controller = _started(qtbot)
    controller.go(2000)
    controller.go(4500)  # before the window around 2,000 arrived
    engine.answer()  # the window around 2,000: the cursor stays at 4,500 and asks again
    assert controller.cursor.index == 4500
    assert engine.requests[-1].record_from <= 4500 < (engine.requests[-1].record_from
                                                       + RECORD_WINDOW)
    engine.answer()
    assert controller.result.has_values(4500) and controller.cursor.index == 4500
