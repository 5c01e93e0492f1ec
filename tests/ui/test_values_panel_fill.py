"""The Values panel's widgets, made ahead and refilled step after step (issue 31).

Stepping data_parallel's pmap variant on the real engine, every step's cells -- the
same widgets refilled, a few columns per turn of the event loop -- show that step's
values as the engine sent them (numbers, heat maps, summaries), and nothing of the
step before: a cell that drew a heat map and now holds numbers hides its heat map; a
step taken before the previous one finished filling still ends showing its own values.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QRect

from jaxviz.model.stepping import Value
from jaxviz.ui.stepper.columns import ColumnWidget
from tests.helpers.window import JAX_MS, flush_events, start_stepping, wait_for_panes

pytestmark = pytest.mark.slow  # steps on the shared engine


def _flat(items) -> list:
    if isinstance(items, list):
        return [x for item in items for x in _flat(item)]
    return [items]


def _numbers(text: str) -> list[float]:
    return [float(w) for w in re.findall(r"-?\d+(?:\.\d+)?(?:e-?\d+)?|nan|-?inf", text)]


def _assert_shows(widget, cell, value: Value, where: str) -> None:
    """One cell widget shows ``value`` (the engine's) as its model ``cell`` says, and
    nothing left over from another kind of value."""
    assert not widget.isHidden(), where
    heatmap_shown = widget.heatmap is not None and not widget.heatmap.isHidden()
    histogram_shown = widget.histogram is not None and not widget.histogram.isHidden()
    assert heatmap_shown == (cell.kind == "heatmap"), where
    assert widget.text.isHidden() == (cell.kind == "heatmap"), where
    assert histogram_shown == (cell.kind == "summary" and bool(cell.histogram)), where
    assert cell.name in widget.title.text() and cell.type in widget.title.text(), where
    exact = value.exact
    if cell.kind == "heatmap":
        np.testing.assert_array_equal(widget.heatmap.matrix, np.asarray(exact, float),
                                      err_msg=where)
        return
    assert widget.text.text() == cell.text, where
    if cell.kind == "numbers" and value.dtype[:1] in "fiu" and exact is not None:
        shown = _numbers(widget.text.text())
        expected = [float(x) for x in _flat(exact)]
        assert len(shown) == len(expected), where
        for a, b in zip(shown, expected):
            assert math.isclose(a, b, rel_tol=1e-3, abs_tol=1e-3), (where, a, b)
    elif cell.kind == "summary" and value.dtype[:1] in "fiu":
        low = value.summary.min if value.summary is not None else \
            min(float(x) for x in _flat(exact))
        assert math.isclose(_numbers(widget.text.text())[0], low, rel_tol=1e-3,
                            abs_tol=1e-3), where
        assert widget.histogram.counts == cell.histogram, where


def _assert_step_shown(panel, result, index: int) -> int:
    """The panel shows step ``index`` of ``result`` in full; the number of cells checked."""
    model = panel.model
    assert model.index == index
    step = result.steps[index]
    lanes = {lane.device: lane for lane in step.lanes}
    shown = [c for c in panel.columns if not c.isHidden()]
    assert len(shown) == len(model.columns)
    # Laid out: below the step's equation, side by side left to right, each wide enough
    # for its header, every cell inside its column.
    flush_events()
    top = panel.equation.geometry().bottom()
    for left, right in zip(shown, shown[1:]):
        assert left.geometry().right() < right.geometry().left(), index
    for column in shown:
        assert column.geometry().top() > top, (index, column.geometry())
        assert column.width() >= column.header.sizeHint().width(), index
        for cell in column.inputs.widgets + column.outputs.widgets:
            if not cell.isHidden():
                where = cell.mapTo(column, QPoint(0, 0))
                assert column.rect().contains(QRect(where, cell.size())), index
    checked = 0
    for widget, column in zip(shown, model.columns):
        assert widget.header.text() == column.title
        lane = lanes[column.device]
        for side, cells, values in ((widget.inputs, column.inputs, lane.inputs),
                                    (widget.outputs, column.outputs, lane.outputs)):
            visible = [w for w in side.widgets if not w.isHidden()]
            assert len(visible) == len(cells), (index, column.title)
            for w, cell, value in zip(visible, cells, values):
                _assert_shows(w, cell, value, f"step {index} {column.title} {cell.name}")
                checked += 1
    return checked


def _stepping_data_parallel(qtbot, window):
    """Step mode on data_parallel's pmap: its controller, the Values panel, the stepping."""
    window.open_example("data_parallel")
    wait_for_panes(qtbot, window, lambda: window.router.details is not None)
    controller = start_stepping(qtbot, window, "pmap")
    panel = window.tools.values.view
    result = controller.result
    return controller, panel, result


def test_every_step_refills_the_widgets_made_ahead_with_the_engines_values(qtbot, window):
    controller, panel, result = _stepping_data_parallel(qtbot, window)
    # Made ahead, in idle turns: a column per device, and each column's cells.
    qtbot.waitUntil(lambda: panel._pool_job is not None and not panel._pool_job.busy,
                    timeout=JAX_MS)
    devices = max(len(s.lanes) for s in result.steps)
    assert len(panel.columns) >= devices
    made = [(c, len(c.inputs.widgets), len(c.outputs.widgets)) for c in panel.columns]
    kinds: set[str] = set()
    checked = 0
    for index in range(len(result.steps)):
        controller.go(index)
        qtbot.waitUntil(lambda: not panel.filling, timeout=JAX_MS)
        checked += _assert_step_shown(panel, result, index)
        kinds |= {c.kind for col in panel.model.columns for c in col.cells}
    assert kinds >= {"numbers", "summary"}  # the same cells changed kind on the way
    assert checked > 8 * len(result.steps)
    # Stepping made no widget: every step refilled those made ahead.
    assert [(c, len(c.inputs.widgets), len(c.outputs.widgets)) for c in panel.columns] == made
    assert all(isinstance(c, ColumnWidget) for c in panel.columns)


def test_a_step_taken_while_the_last_one_fills_shows_only_its_own_values(qtbot, window):
    controller, panel, result = _stepping_data_parallel(qtbot, window)
    # Four steps in a row on the same eight devices.
    lanes = [len(s.lanes) for s in result.steps]
    first = next(i for i in range(len(lanes) - 3) if lanes[i:i + 4] == [8] * 4)
    controller.go(first)
    qtbot.waitUntil(lambda: not panel.filling, timeout=JAX_MS)
    controller.go(first + 1)
    assert panel.filling  # the same eight columns: filled a few per turn
    controller.go(first + 2)  # before that fill ended
    qtbot.waitUntil(lambda: not panel.filling, timeout=JAX_MS)
    _assert_step_shown(panel, result, first + 2)
    # finish() fills at once what is left (before a grab, or a test reading the cells).
    controller.go(first + 3)
    panel.finish()
    assert not panel.filling
    _assert_step_shown(panel, result, first + 3)
