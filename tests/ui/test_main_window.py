"""The main window against a real JAX engine: the issue's "done when" list, one test each."""

from __future__ import annotations

import re

import pytest
from PySide6.QtCore import QPoint, Qt, QTimer
from PySide6.QtGui import QTextCursor

from jaxviz.ui.theme import style
from tests.helpers.window import JAX_MS, close, line_of, pixel, wait_for_panes

# Not in the fast tier: the window on the real engine.
pytestmark = pytest.mark.slow


def _open_convolve(qtbot, win) -> None:
    win.open_example("convolve")
    wait_for_panes(qtbot, win, lambda: win.router.result is not None
                   and win.router.details is not None)


def _replace(editor, old: str, new: str) -> None:
    """Edit the editor's text as typing would (one undoable edit)."""
    doc = editor.document()
    found = doc.find(old)
    assert not found.isNull(), old
    found.insertText(new)


def test_opening_convolve_shows_exactly_the_engines_jaxpr(qtbot, window, shared_engine):
    _open_convolve(qtbot, window)
    shown = window.area.panes["plain"].jaxpr_view.toPlainText()
    # Ask the engine directly for the same request: the pane must hold its text verbatim.
    request = window.build_request()
    with qtbot.waitSignal(shared_engine.replied, timeout=JAX_MS,
                          check_params_cb=lambda r: r.ok and r.result.variants) as blocker:
        shared_engine.submit(request)
    expected = blocker.args[0].result.variant("plain").jaxpr_text
    assert shown == expected
    assert shown.startswith("{ lambda ; a:i32[5] b:f32[3]. let")
    assert {"plain", "vmap", "pmap", "sharded"} <= set(window.area.visible_variants)
    assert "i32[8,5]" in window.area.panes["vmap"].jaxpr_view.toPlainText()
    assert window.engine_label.text().startswith("JAX ")
    assert "8 simulated CPU devices" in window.engine_label.text()


def test_clicking_dot_general_lights_up_its_source_line(qtbot, window):
    _open_convolve(qtbot, window)
    view = window.area.panes["plain"].jaxpr_view
    eq_line = line_of(view.toPlainText(), "dot_general")
    rect = view.line_rect(eq_line)
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton,
                     pos=QPoint(rect.width() - 20, rect.center().y()))
    source = window.editor.toPlainText()
    dot_line = line_of(source, "jnp.dot(") + 1
    assert window.editor.active_line == dot_line
    assert "jnp.dot(" in source.split("\n")[dot_line - 1]
    # The editor paints that line in the strong shade of its link colour ...
    slot = window.linking.index.colour_index(dot_line)
    strong = style.link_colour(slot, strong=True)
    erect = window.editor.line_rect(dot_line - 1)
    vp = window.editor.viewport()
    assert close(pixel(vp, vp.width() - 10, erect.center().y()), strong)
    # ... and a line it did not produce is not lit up.
    other = window.editor.line_rect(line_of(source, "def convolve"))
    assert not close(pixel(vp, vp.width() - 10, other.center().y()), strong)
    # Every pane lights up the equations from the same line, e.g. vmap's dot_general.
    vmap = window.area.panes["vmap"].jaxpr_view
    vmap_dot = line_of(vmap.toPlainText(), "dot_general")
    assert vmap.line_background("active", vmap_dot) == strong
    assert vmap.line_background("active", line_of(vmap.toPlainText(), "concatenate")) is None


def test_clicking_a_source_line_lights_up_its_equations(qtbot, window):
    _open_convolve(qtbot, window)
    source = window.editor.toPlainText()
    ret_line = line_of(source, "return jnp.array")
    rect = window.editor.line_rect(ret_line)
    qtbot.mouseClick(window.editor.viewport(), Qt.MouseButton.LeftButton,
                     pos=QPoint(200, rect.center().y()))
    assert window.linking.active_line == ret_line + 1
    for variant in ("plain", "vmap", "pmap", "sharded"):
        view = window.area.panes[variant].jaxpr_view
        concat = line_of(view.toPlainText(), "concatenate")
        assert view.line_background("active", concat) is not None, variant
        assert view.line_background("active", line_of(view.toPlainText(), "dot_general")) is None


def test_editing_the_code_retraces_every_pane(qtbot, window):
    _open_convolve(qtbot, window)
    before = {v: window.area.panes[v].jaxpr_view.toPlainText()
              for v in window.area.visible_variants}
    assert not any("sin" in text for text in before.values())
    with qtbot.waitSignal(window.panesUpdated, timeout=JAX_MS):
        _replace(window.editor, "return jnp.array(output)", "return jnp.sin(jnp.array(output))")
    wait_for_panes(qtbot, window)
    for variant in window.area.visible_variants:
        text = window.area.panes[variant].jaxpr_view.toPlainText()
        assert text != before[variant], variant
        assert re.search(r"= sin ", text), variant
        assert not window.area.panes[variant].dimmed
    assert window.document.modified


def test_a_syntax_error_marks_its_line_and_keeps_the_code(qtbot, window):
    _open_convolve(qtbot, window)
    good = window.area.panes["plain"].jaxpr_view.toPlainText()
    cursor = window.editor.textCursor()
    cursor.movePosition(QTextCursor.MoveOperation.End)
    window.editor.setTextCursor(cursor)
    window.editor.setFocus()
    qtbot.keyClick(window.editor, Qt.Key.Key_Return)  # keyClicks cannot type "\n"
    qtbot.keyClicks(window.editor, "def broken(:")
    typed = window.editor.toPlainText()
    broken_line = line_of(typed, "def broken(:") + 1
    qtbot.waitUntil(lambda: window.editor.error_line == broken_line, timeout=JAX_MS)
    assert "SyntaxError" in window.editor.error_message
    assert window.editor.toPlainText() == typed  # nothing typed is lost
    assert "def broken(:" in window.editor.toPlainText()
    # The last good result stays visible, dimmed, with a banner.
    pane = window.area.panes["plain"]
    assert pane.jaxpr_view.toPlainText() == good
    assert pane.dimmed and "syntax error" in pane.error_text
    # The error line is painted in the error colour.
    window.editor.reveal_line(broken_line)
    rect = window.editor.line_rect(broken_line - 1)
    vp = window.editor.viewport()
    assert close(pixel(vp, vp.width() - 5, rect.center().y()), style.ERROR_BACKGROUND)
    # Fixing it clears the marker and re-traces.
    with qtbot.waitSignal(window.panesUpdated, timeout=JAX_MS):
        _replace(window.editor, "def broken(:", "def broken(): pass")
    assert window.editor.error_line == 0
    assert not pane.dimmed


def test_a_bad_spec_marks_its_field(qtbot, window):
    _open_convolve(qtbot, window)
    qtbot.waitUntil(lambda: not window.session.pending, timeout=JAX_MS)  # details arrived
    latest = window.session.latest
    field = window.args_panel.edits["args"]
    field.clear()
    qtbot.keyClicks(field, "f32[x], f32[3]")
    message = window.args_panel.field_error("args")
    assert "dimension 'x'" in message
    assert "f32[x], f32[3]\n    ^" in message  # a caret under the fault
    assert field.property("error") is True
    # The field is framed in red: sample its left border.
    border = pixel(field, 1, field.height() // 2)
    assert border.red() > 150 and border.green() < 80 and border.blue() < 80
    # Nothing is sent for a bad spec: no trace is scheduled, and one asked for now is refused.
    assert not window.session.pending
    assert window.session.trace_now() is None and not window.session.pending
    assert window.session.latest is latest
    # The fix clears the marker.
    field.clear()
    qtbot.keyClicks(field, "f32[5], f32[3]")
    assert window.args_panel.field_error("args") == ""
    assert field.property("error") is False


def test_changing_the_device_count_restarts_jax_and_pmap_follows(qtbot, window, shared_engine):
    _open_convolve(qtbot, window)
    pmap = window.area.panes["pmap"].jaxpr_view
    assert "Mesh('i': 8" in pmap.toPlainText()
    try:
        window.args_panel.devices.setValue(4)
        qtbot.waitUntil(lambda: "restarting JAX: 4" in window.engine_label.text(), timeout=5000)
        wait_for_panes(qtbot, window, lambda: "Mesh('i': 4" in pmap.toPlainText())
        assert "i32[4,5]" in pmap.toPlainText()
        qtbot.waitUntil(lambda: "4 simulated CPU devices" in window.engine_label.text(),
                        timeout=JAX_MS)
        assert window.settings.devices == 4
    finally:
        window.set_devices(8)
        qtbot.waitUntil(lambda: shared_engine.info is not None
                        and len(shared_engine.info.devices) == 8, timeout=JAX_MS)


def test_a_function_that_loops_forever_can_be_stopped(qtbot, window):
    _open_convolve(qtbot, window)
    window.document.new_untitled("def f(x):\n    while True:\n        pass\n")
    window.document.set_function("f")
    window.args_panel.set_values({"args": "f32[3]"})
    window.area.set_visible_variants(["plain"])
    window.retrace()
    qtbot.waitUntil(lambda: window.stop_button.isVisible(), timeout=JAX_MS)
    # The window stays responsive while the engine spins: timers keep firing.
    ticks = []
    timer = QTimer(interval=20)
    timer.timeout.connect(lambda: ticks.append(1))
    timer.start()
    qtbot.waitUntil(lambda: len(ticks) >= 10, timeout=10_000)  # fails if the loop is blocked
    timer.stop()
    assert window.session.running
    qtbot.mouseClick(window.stop_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not window.session.running, timeout=JAX_MS)
    assert "Stopped" in window.area.panes["plain"].error_text
    assert not window.stop_button.isVisible()
    assert "while True" in window.editor.toPlainText()
    # The restarted engine traces the next function.
    _replace(window.editor, "while True:", "return x * 2\n    while True:")
    wait_for_panes(qtbot, window, lambda: "mul" in
                   window.area.panes["plain"].jaxpr_view.toPlainText())
