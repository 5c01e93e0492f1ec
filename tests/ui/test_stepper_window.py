"""Step mode in the window, against the real JAX engine.

What a lecturer checks, one test each: at normalize's psum eight device panels
show eight different inputs and one output (numbers read from the panel,
colours sampled from its pixels, both against what the test computes itself
and against the device view's own colours); convolve's vmap heat maps on one
shared scale; stepping into and over nested jaxprs; running to a line; the
editor line and the pane equation lit; the device view following; the clicker
keys; a stepping that fails or is too large.
"""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QTextCursor
from PySide6.QtTest import QTest

from jaxviz.model import get_example
from jaxviz.ui.theme import style
from jaxviz.views.devices import build_scene
from tests.helpers.window import JAX_MS, close, line_of, pixel, wait_for_panes

# Not in the fast tier: the window on the real engine.
pytestmark = pytest.mark.slow


def _open(qtbot, win, example: str) -> None:
    win.open_example(example)
    wait_for_panes(qtbot, win, lambda: win.router.result is not None
                   and win.router.details is not None)


def _stepped(qtbot, win) -> None:
    controller = win.step_mode.controller
    qtbot.waitUntil(lambda: controller.result is not None and not controller.busy,
                    timeout=JAX_MS)


def _panel(win):
    return win.tools.values.view


def _source_line(win, needle: str) -> int:
    return line_of(win.editor.toPlainText(), needle) + 1


def _module_value(example: str, name: str) -> np.ndarray:
    """A module-level ``name = jnp....`` of an example, evaluated with NumPy (not JAX)."""
    tree = ast.parse(Path(get_example(example).path).read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and [t.id for t in node.targets
                                             if isinstance(t, ast.Name)] == [name]:
            return np.asarray(eval(ast.unparse(node.value), {"jnp": np}))
    raise AssertionError(f"{example} has no {name}")


def _column_widgets(win):
    _panel(win).finish()  # the columns still being filled (a few per turn), filled now
    return [c for c in _panel(win).columns if not c.isHidden()]


def test_at_normalizes_psum_eight_device_panels_show_eight_values_become_one(qtbot, window):
    _open(qtbot, window, "normalize")
    busy: list[bool] = []
    window.step_mode.controller.busyChanged.connect(lambda on, _what: busy.append(on))
    pane = window.area.panes["pmap"]
    qtbot.mouseClick(pane.step_button, Qt.MouseButton.LeftButton)
    assert pane.busy.text() == "stepping…"  # the request runs in the engine, not here
    _stepped(qtbot, window)
    assert busy == [True, False] and pane.busy.text() == ""
    assert pane.step_button.isChecked() and window.tools.currentWidget() is window.tools.values
    # Run to the psum's line from the editor's context menu.
    line = _source_line(window, "return x / lax.psum")
    menu = window.editor.context_menu(window.editor.line_rect(line - 1).center())
    [action] = [a for a in menu.actions() if a.objectName() == "step_to_line"]
    assert action.text() == f"Step to line {line}"
    action.trigger()
    model = _panel(window).model
    assert model.heading == "psum" and model.line == line
    # What the test computes itself: the example's batched argument, split over 8 devices.
    xs = np.asarray(eval(get_example("normalize").batched_args, {"jnp": np}), np.float32)
    assert [c.device for c in model.columns] == list(range(8))
    assert [float(c.inputs[0].text) for c in model.columns] == xs.tolist()
    assert len({c.inputs[0].text for c in model.columns}) == 8
    assert [float(c.outputs[0].text) for c in model.columns] == [float(xs.sum())] * 8
    # The widgets show those numbers, under headers in the device view's colours.
    scene = build_scene(window.router.details, "pmap")
    colours = {d.id: d.colour for d in scene.devices}
    widgets = _column_widgets(window)
    assert len(widgets) == 8
    for widget, column in zip(widgets, model.columns):
        header = widget.header
        assert close(pixel(header, 4, header.height() // 2), style.qcolor(colours[column.device]))
        cells = [w for w in widget.inputs.widgets + widget.outputs.widgets if not w.isHidden()]
        assert [w.text.text() for w in cells] == [column.inputs[0].text, column.outputs[0].text]
    assert "psum combines the values of devices 0 1 2 3 4 5 6 7" in _panel(window).notes.text()
    # The editor's line and the pane's psum equation are lit.
    assert window.editor.active_line == line
    slot = window.linking.index.colour_index(line)
    vp = window.editor.viewport()
    assert close(pixel(vp, vp.width() - 10, window.editor.line_rect(line - 1).center().y()),
                 style.link_colour(slot, strong=True))
    view = pane.jaxpr_view
    psum = line_of(view.toPlainText(), "= psum[")
    assert view.line_background("active", psum) == style.PHASE_COLOUR
    assert view.line_background("active", line_of(view.toPlainText(), "= div ")) is None
    assert window.status_text.text() == f"step 4 of 8: psum, line {line} (pmap)"


def test_the_device_view_shows_the_step_and_the_step_buttons_go_into_and_over(qtbot, window):
    _open(qtbot, window, "normalize")
    window.tools.setCurrentWidget(window.tools.devices)  # the device view is open
    devices = window.tools.devices.view
    qtbot.waitUntil(lambda: bool(devices.phases), timeout=JAX_MS)
    window.step_mode.start("pmap")
    _stepped(qtbot, window)
    panel = _panel(window)
    steps = window.step_mode.controller.result.steps
    assert panel.model.heading == "enters jit" and panel.model.index == 0
    qtbot.mouseClick(panel.buttons["over"], Qt.MouseButton.LeftButton)
    assert panel.model.heading == "leaves jit" and panel.model.index == len(steps) - 1
    assert not panel.buttons["next"].isEnabled()
    qtbot.mouseClick(panel.buttons["back"], Qt.MouseButton.LeftButton)
    assert panel.model.heading == "leaves shard_map"
    window.step_mode.controller.cursor.go(0)
    qtbot.mouseClick(panel.buttons["next"], Qt.MouseButton.LeftButton)  # into the jit
    assert panel.model.heading == "enters shard_map" and panel.model.index == 1
    # The shard_map's entry: the global value, then each device's block.
    assert [c.title for c in panel.model.columns] == ["global"] + [f"device {d}"
                                                                   for d in range(8)]
    assert [c.inputs[0].text for c in panel.model.columns[1:]] == \
        [f"[{d}]" for d in range(8)]
    window.step_mode.run_to_line(_source_line(window, "return x / lax.psum"))
    assert devices.phases[devices.current_phase].kind == "collective"
    assert "psum" in devices.phases[devices.current_phase].title.lower() or \
        devices.phases[devices.current_phase].collective.primitives == ["psum"]
    qtbot.mouseClick(panel.buttons["next"], Qt.MouseButton.LeftButton)  # div: after the psum
    assert devices.phases[devices.current_phase].kind == "compute"
    qtbot.mouseClick(panel.buttons["out"], Qt.MouseButton.LeftButton)
    assert panel.model.heading == "leaves shard_map"
    # The stepper's equation stays lit in the pane (the device view's phase does not win).
    view = window.area.panes["pmap"].jaxpr_view
    sm = line_of(view.toPlainText(), "= shard_map[")
    assert view.line_background("active", sm) == style.PHASE_COLOUR
    assert view.line_background("active", sm + 1) is None  # a marker lights its first line


def test_convolve_vmap_heat_maps_share_one_scale_and_the_clicker_keys_step(qtbot, window):
    _open(qtbot, window, "convolve")
    window.area.panes["vmap"].lineClicked.emit("vmap", 1)  # the focused pane
    QTest.keyClick(window, Qt.Key.Key_F9)
    _stepped(qtbot, window)
    assert window.step_mode.controller.variant == "vmap"
    panel = _panel(window)
    assert panel.model.heading == "slice" and panel.model.index == 0
    # The clicker keys step (the pane has the keyboard), and F10/Shift+F10 too.
    window.area.panes["vmap"].jaxpr_view.setFocus()
    QTest.keyClick(window.area.panes["vmap"].jaxpr_view, Qt.Key.Key_Right)
    assert panel.model.index == 1
    QTest.keyClick(window.area.panes["vmap"].jaxpr_view, Qt.Key.Key_PageUp)
    assert panel.model.index == 0
    QTest.keyClick(window, Qt.Key.Key_F10)
    QTest.keyClick(window, Qt.Key.Key_F10)
    QTest.keyClick(window, Qt.Key.Key_F10, Qt.KeyboardModifier.ShiftModifier)
    assert panel.model.index == 1 and panel.model.heading == "dot_general"
    QTest.keyClick(window, Qt.Key.Key_F10, Qt.KeyboardModifier.ShiftModifier)
    # The first slice: x[0:3] of every example. The test's own numbers: the example's
    # x repeated along the batch axis (the settings say "x, w", in_axes 0, batch 8).
    example = get_example("convolve")
    assert (example.args, example.in_axes) == ("x, w", "0, 0")
    xs = np.stack([_module_value("convolve", "x")] * 8)
    model = panel.model
    [host] = model.columns
    [inp] = host.inputs
    [out] = host.outputs
    assert (inp.kind, out.kind) == ("heatmap", "heatmap")
    assert inp.matrix == xs.tolist() and out.matrix == xs[:, 0:3].tolist()
    assert model.scale == (float(xs.min()), float(xs.max()))
    # One scale: the colour bar's levels are every heat map's levels ...
    [column] = _column_widgets(window)
    heatmaps = [w.heatmap for w in column.inputs.widgets + column.outputs.widgets
                if not w.isHidden() and w.heatmap is not None and not w.heatmap.isHidden()]
    assert len(heatmaps) == 2
    assert panel.levels == model.scale
    assert all(h.levels == model.scale for h in heatmaps)
    # ... and a cell's pixels have its value's colour on that scale (sampled off the number).
    out_map = heatmaps[1]
    width, height = out_map.cell_size
    from jaxviz.ui.stepper.cells import Scale

    scale = Scale(*model.scale, model.diverging)
    for r, c in [(0, 0), (3, 2), (7, 1)]:
        seen = pixel(out_map, c * width + 3, r * height + 3)
        assert close(seen, scale.colour(float(xs[r, c]))), (r, c)
    assert not close(pixel(out_map, 3, 3), pixel(out_map, 2 * width + 3, 3))


def test_the_editor_keeps_its_keys_and_a_line_number_click_runs_to_it(qtbot, window):
    _open(qtbot, window, "normalize")
    window.step_mode.start("pmap")
    _stepped(qtbot, window)
    panel = _panel(window)
    # A click on the psum's line number runs there.
    line = _source_line(window, "return x / lax.psum")
    gutter = window.editor._gutter
    window.editor.setTextCursor(QTextCursor(
        window.editor.document().findBlockByNumber(line - 1)))
    window.editor.ensureCursorVisible()  # a user scrolls the line into view first
    qtbot.mouseClick(gutter, Qt.MouseButton.LeftButton,
                     pos=QPoint(8, window.editor.line_rect(line - 1).center().y()))
    assert panel.model.heading == "psum"
    # In step mode a clicker's keys step, even with the editor focused: they never edit
    # the code (issue 27.6; they used to type a space into it).
    window.editor.setFocus()
    cursor = window.editor.textCursor()
    cursor.setPosition(window.editor.document().findBlockByNumber(line - 1).position())
    window.editor.setTextCursor(cursor)
    text = window.editor.toPlainText()
    QTest.keyClick(window.editor, Qt.Key.Key_Right)
    qtbot.waitUntil(lambda: panel.model.heading != "psum", timeout=JAX_MS)
    assert window.editor.toPlainText() == text
    assert window.editor.textCursor().positionInBlock() == 0
    # Leaving step mode gives the keys back and clears the lights.
    QTest.keyClick(window, Qt.Key.Key_F9)
    assert not window.step_mode.active
    assert not window.area.panes["pmap"].step_button.isChecked()
    assert [k.toString() for k in window.actions_by_name["step_next"].shortcuts()] == ["F10"]
    view = window.area.panes["pmap"].jaxpr_view
    assert view.line_background("active", line_of(view.toPlainText(), "= psum[")) is None


FAILING = '''\
import jax
import jax.numpy as jnp


def f(x):
    y = jnp.sin(x)
    jax.debug.callback(lambda v: 1 / 0, y)
    return y * 2


JAXVIZ = {"function": "f", "args": "f32[3]", "variants": ["plain", "jit"]}
'''


def test_a_stepping_that_fails_marks_the_users_line_and_the_engine_survives(
        qtbot, window, tmp_path):
    path = tmp_path / "failing.py"
    path.write_text(FAILING)
    window.open_target(f"{path}:f")
    window.retrace()  # a file opened from disk runs once the user says so (Trace, F5)
    wait_for_panes(qtbot, window, lambda: window.router.result is not None
                   and window.router.result.function == "f")
    errors: list = []
    window.step_mode.controller.failed.connect(errors.append)
    window.step_mode.start("plain")
    qtbot.waitUntil(lambda: bool(errors), timeout=JAX_MS)
    [error] = errors
    assert "ZeroDivisionError" in error.message or "division by zero" in error.message
    assert window.editor.error_line == 7  # the callback's line
    panel = _panel(window)
    assert not panel.banner.isHidden() and "Could not step plain" in panel.banner.text()
    assert panel.summary_button.isHidden()
    assert "error" in window.status_text.text()
    # The engine lives on: the next stepping works.
    window.step_mode.controller.stop()
    window.open_example("normalize")
    wait_for_panes(qtbot, window, lambda: window.router.result is not None
                   and window.router.result.function == "normalize")
    window.step_mode.start("vmap")
    _stepped(qtbot, window)
    assert panel.model.heading == "psum"


def test_too_large_a_stepping_offers_summary_mode(qtbot, window):
    _open(qtbot, window, "normalize")
    controller = window.step_mode.controller
    controller.record_limit_mb = 0.0001
    errors: list = []
    controller.failed.connect(errors.append)
    window.step_mode.start("pmap")
    qtbot.waitUntil(lambda: bool(errors), timeout=JAX_MS)
    assert errors[0].kind == "size" and "MB" in errors[0].message
    panel = _panel(window)
    assert not panel.summary_button.isHidden()
    controller.record_limit_mb = 1.0
    qtbot.mouseClick(panel.summary_button, Qt.MouseButton.LeftButton)
    _stepped(qtbot, window)
    assert controller.request.summary
    assert all(c.kind == "summary" for col in panel.model.columns for c in col.cells)


@pytest.fixture(autouse=True)
def _leave_step_mode(window):
    yield
    window.step_mode.controller.stop()
    window.step_mode.controller.record_limit_mb = 8.0


def test_editing_the_code_in_step_mode_steps_the_new_code(qtbot, window):
    _open(qtbot, window, "normalize")
    window.step_mode.start("pmap")
    _stepped(qtbot, window)
    first = window.step_mode.controller.result
    doc = window.editor.document()
    found = doc.find("return x / lax.psum")
    found.insertText("return 2 * x / lax.psum")
    controller = window.step_mode.controller
    qtbot.waitUntil(lambda: controller.result is not first and controller.result is not None
                    and not controller.busy, timeout=JAX_MS)
    assert "mul" in [s.primitive for s in controller.result.steps]
    assert window.step_mode.active and _panel(window).model is not None
    mul = next(k for k, s in enumerate(controller.result.steps) if s.primitive == "mul")
    controller.cursor.go(mul)
    controller.stepChanged.emit(mul)
    assert [float(c.outputs[0].text) for c in _panel(window).model.columns] == \
        (2 * np.arange(8.0)).tolist()
    doc.undo()
