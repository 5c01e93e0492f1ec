"""The Values panel fills a step's columns in turns of the event loop (fast tier, no engine).

Two hand-made steps of a two-device stepping: the second refills the same two columns
one per turn (``filling`` meanwhile), ends laid out showing its own values, and a fill
that raises leaves the panel laid out (not held) and reports the error.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication

from jaxviz.model.records import VarInfo
from jaxviz.model.stepping import EvalStep, LaneValues, StepResult, Value
from jaxviz.ui.stepper.columns import ColumnWidget
from jaxviz.ui.stepper.values_panel import ValuesPanel
from tests.helpers.window import on_screen


def _stepping() -> StepResult:
    """Two steps on devices 0 and 1: ``b = sin a`` then ``c = cos b`` (made-up values)."""
    def step(n: int, primitive: str, inp: str, out: str, values: list[tuple[float, float]]):
        return EvalStep("equation", str(n), 0, primitive,
                        inputs=[VarInfo(inp, [], "f32")], outputs=[VarInfo(out, [], "f32")],
                        lanes=[LaneValues(d, [Value([], "f32", x)], [Value([], "f32", y)])
                               for d, (x, y) in enumerate(values)])
    return StepResult("f", "f.py", "pmap", devices=[0, 1], steps=[
        step(0, "sin", "a", "b", [(0.5, 0.25), (1.5, 0.75)]),
        step(1, "cos", "b", "c", [(0.25, 2.0), (0.75, 3.0)])])


def _shown(panel: ValuesPanel) -> list[tuple[str, list[str]]]:
    return [(c.header.text(), [w.text.text() for w in c.inputs.widgets + c.outputs.widgets
                               if not w.isHidden()])
            for c in panel.columns if not c.isHidden()]


@pytest.fixture
def panel(qtbot):
    widget = ValuesPanel()
    qtbot.addWidget(widget)
    widget.resize(1200, 420)
    widget.show()
    return widget


def test_a_steps_columns_are_refilled_one_per_turn_and_end_laid_out(qtbot, panel):
    result = _stepping()
    panel.show_step(result, 0)
    qtbot.waitUntil(lambda: not panel.filling)
    assert _shown(panel) == [("device 0", ["0.5", "0.25"]), ("device 1", ["1.5", "0.75"])]
    panel.show_step(result, 1)
    assert panel.model.heading == "cos" and panel.filling  # the columns: still to come
    QApplication.processEvents()  # one turn: the first column
    qtbot.waitUntil(lambda: not panel.filling)
    QApplication.processEvents()
    assert _shown(panel) == [("device 0", ["0.25", "2"]), ("device 1", ["0.75", "3"])]
    left, right = [c for c in panel.columns if not c.isHidden()]
    assert left.geometry().right() < right.geometry().left()
    assert left.geometry().top() > panel.equation.geometry().bottom()


def test_a_fill_that_raises_leaves_the_panel_laid_out_and_says_so(qtbot, panel, monkeypatch):
    result = _stepping()
    panel.show_step(result, 0)
    panel.finish()
    reported: list[BaseException] = []
    monkeypatch.setattr("sys.excepthook", lambda kind, error, tb: reported.append(error))
    original = ColumnWidget.show_column_steps

    def broken(self, column, *args):
        if column.device == 1:
            raise RuntimeError("a column that cannot be shown")
        return original(self, column, *args)

    monkeypatch.setattr(ColumnWidget, "show_column_steps", broken)
    panel.show_step(result, 1)
    qtbot.waitUntil(lambda: not panel.filling)
    assert [str(e) for e in reported] == ["a column that cannot be shown"]
    assert panel._content_box.isEnabled()  # not held off for good


def test_a_first_step_made_in_its_own_fill_ends_laid_out(qtbot, panel):
    """Eight devices' first step, shown before the panel made any column ahead: the
    columns and cells made in the fill's own turns (one a turn) end shown, side by side,
    each cell inside its column, with the step's values."""
    values = [(0.5 + d, 0.25 * d) for d in range(8)]
    result = _stepping()
    first = result.steps[0]
    first.lanes = [LaneValues(d, [Value([], "f32", x)], [Value([], "f32", y)])
                   for d, (x, y) in enumerate(values)]
    result.devices = list(range(8))
    panel.show_step(result, 0)
    qtbot.waitUntil(lambda: not panel.filling)
    QApplication.processEvents()
    expected = [(f"device {d}", [f"{x:g}", f"{y:g}"]) for d, (x, y) in enumerate(values)]
    assert _shown(panel) == expected
    shown = [c for c in panel.columns if not c.isHidden()]
    for left, right in zip(shown, shown[1:]):
        assert left.geometry().right() < right.geometry().left()
    for column in shown:
        inside = column.rect()
        for cell in column.inputs.widgets + column.outputs.widgets:
            if not cell.isHidden():
                corner = cell.mapTo(column, cell.rect().topLeft())
                assert inside.contains(corner) and cell.width() > 0 and cell.height() > 0


def test_a_step_taken_while_a_column_is_half_filled_ends_showing_its_own(qtbot, panel):
    """A column fills its inputs and its outputs in separate steps: a step taken between the
    two (the fill cancelled inside the column) ends showing that step's values, each
    column laid out again (no layout left held off)."""
    result = _stepping()
    panel.show_step(result, 0)
    panel.finish()
    panel.show_step(result, 1)
    next(panel._filling)  # the first column's inputs: its outputs still to come
    shown = [c for c in panel.columns if not c.isHidden()][0]
    assert [w.text.text() for w in shown.inputs.widgets if not w.isHidden()] == ["0.25"]
    assert [w.text.text() for w in shown.outputs.widgets if not w.isHidden()] == ["0.25"]
    assert not shown.layout().isEnabled()
    panel.show_step(result, 0)  # back, before the column was done
    qtbot.waitUntil(lambda: not panel.filling)
    QApplication.processEvents()
    assert _shown(panel) == [("device 0", ["0.5", "0.25"]), ("device 1", ["1.5", "0.75"])]
    assert all(layout.isEnabled() for c in panel.columns for layout in panel._layouts(c))


def _eight_devices() -> StepResult:
    """The two steps of :func:`_stepping` on eight devices, each device's values its own."""
    result = _stepping()
    for n, step in enumerate(result.steps):
        step.lanes = [LaneValues(d, [Value([], "f32", d + 0.5 + n)],
                                 [Value([], "f32", 10.0 * d + n)]) for d in range(8)]
    result.devices = list(range(8))
    return result


def _on_screen(panel: ValuesPanel):
    """The values' area as the screen shows it now (see :func:`on_screen`)."""
    return on_screen(panel.scroller.viewport())


class _Paints(QObject):
    """Counts the paints each watched widget gets."""

    def __init__(self, widgets) -> None:
        super().__init__()
        self.count = {id(w): 0 for w in widgets}
        for widget in widgets:
            widget.installEventFilter(self)

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 - Qt's name
        if event.type() == QEvent.Type.Paint:
            self.count[id(watched)] += 1
        return False


def test_a_step_stays_whole_on_screen_until_the_next_is_filled_then_is_painted_once(
        qtbot, panel, monkeypatch):
    """Eight devices' next step, filled over several turns of the event loop: meanwhile the
    screen shows the last step whole (never a column of the new step beside the last
    step's), then the new step, each column painted once (not once filled, again laid
    out and again moved)."""
    from jaxviz.ui.stepper import values_panel

    monkeypatch.setattr(values_panel, "FILL_SLICE_MS", 0.01)  # a step a turn
    result = _eight_devices()
    panel.show_step(result, 0)
    qtbot.waitUntil(lambda: not panel.filling)
    qtbot.wait(50)
    before = _on_screen(panel)
    shown = [c for c in panel.columns if not c.isHidden()]
    assert len(shown) == 8
    paints = _Paints(shown)
    panel.show_step(result, 1)
    turns = 0
    while panel.filling:
        QApplication.processEvents()
        turns += 1
        assert _on_screen(panel) == before, f"turn {turns}: the screen changed mid-fill"
    assert turns > 2  # filled in turns, not in one
    qtbot.wait(50)
    assert _on_screen(panel) != before
    assert _shown(panel) == [(f"device {d}", [f"{d + 1.5:g}", f"{10 * d + 1:g}"])
                             for d in range(8)]
    assert [paints.count[id(c)] for c in shown] == [1] * 8
