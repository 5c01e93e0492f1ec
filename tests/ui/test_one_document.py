"""The window is one document: nothing on screen belongs to another function (issue 27.1).

Against the real engine: after opening an example, a file or another function, every
view shows the new document's results or says it is not traced yet; the device view's
picker names the variant on its canvas; pointing at an equation in a pane leaves the
animation alone; a maximized device view stepped and put back leaves the panes lit
for its phase; a typo fixed keeps the phase; step mode ends with its document.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from tests.helpers.window import JAX_MS, devices_tab, line_of, start_stepping, wait_for_panes

# Not in the fast tier: the window on the real engine.
pytestmark = pytest.mark.slow

SOURCE = '''import jax.numpy as jnp


def double(x):
    return x * 2.0


def shift(x):
    return x + 1.0


JAXVIZ = {"function": "double", "args": "f32[4]"}
'''


def _open(qtbot, win, example: str) -> None:
    win.open_example(example)
    wait_for_panes(qtbot, win, lambda: win.state.result is not None
                   and win.state.details is not None
                   and win.state.details.function == win.state.function)


def _nothing_of(win, function: str, qtbot) -> None:
    """No pane, link, compare layout or device view shows ``function``'s results: the panes
    in view at once (or all behind the cover while an example opens); the tabs behind once
    they have what they were given (a turn or two later, or when shown), unless the new
    result came meanwhile."""
    assert win.state.result is None and win.state.details is None
    assert function not in win.status_text.text()  # ("traced convolve in 24 ms")

    def check(variants: list[str]) -> None:
        for variant in variants:
            pane = win.area.panes[variant]
            assert pane.result is None, variant
            assert "not traced yet" in pane.jaxpr_view.toPlainText(), variant
            assert pane.call.text() == "" and not pane.copy_button.isEnabled()

    if win.area.covered:  # an example opening: every pane behind one plain cover
        assert not any(win.area.in_view(v) for v in win.area.panes)
    else:
        in_view = [v for v in win.state.shown_variants() if win.area.in_view(v)]
        assert in_view
        check(in_view)
    assert win.linking.index is None
    view = win.tools.devices.view
    if view is not None:
        assert view.result is None and view.phases == []
    assert win.tools.device_variant.count() == 0
    qtbot.waitUntil(lambda: not win.area.filling, timeout=5000)
    if win.state.result is None:
        check(win.state.shown_variants())


def test_an_example_opened_shows_nothing_of_the_last_until_it_is_traced(qtbot, window):
    _open(qtbot, window, "convolve")
    window.tools.setCurrentWidget(window.tools.devices)
    qtbot.waitUntil(lambda: bool(window.tools.devices.view.phases), timeout=JAX_MS)
    window.open_example("psum_ones")  # the trace is under way: nothing of convolve meanwhile
    _nothing_of(window, "convolve", qtbot)
    wait_for_panes(qtbot, window, lambda: window.state.details is not None)
    assert window.state.result.function == "total"
    assert all(window.area.panes[v].result is window.state.result.variant(v)
               for v in window.state.shown_variants())
    assert window.tools.devices.view.result is window.state.details


def test_a_file_not_run_yet_and_another_function_show_no_picture_of_the_last(
        qtbot, window, tmp_path):
    _open(qtbot, window, "convolve")
    path = tmp_path / "mine.py"
    path.write_text(SOURCE)
    window.open_target(f"{path}:double")
    # the trust rule: a file opened is shown, not run, until Trace -- and until then no
    # pane shows convolve under the file's title
    _nothing_of(window, "convolve", qtbot)
    window.retrace()
    wait_for_panes(qtbot, window, lambda: window.state.details is not None)
    assert "mul" in window.area.panes["plain"].jaxpr_view.toPlainText()
    window.editor_panel.functionChosen.emit("shift")
    assert window.state.function == "shift"
    _nothing_of(window, "double", qtbot)
    wait_for_panes(qtbot, window, lambda: window.state.details is not None)
    assert "add" in window.area.panes["plain"].jaxpr_view.toPlainText()


def test_a_reply_for_a_document_closed_since_is_never_shown(qtbot, window):
    _open(qtbot, window, "convolve")
    request = window.build_request()
    replies: list = []
    window.session.resultReady.connect(lambda req, reply: replies.append((req, reply)))
    window.session.trace(request)
    qtbot.waitUntil(lambda: bool(replies), timeout=JAX_MS)
    window.open_example("normalize")
    window.router.show_result(*replies[0])  # arriving late, after the switch
    assert window.state.result is None
    assert "conv" not in window.area.panes["plain"].jaxpr_view.toPlainText()


def test_the_device_picker_names_the_variant_its_canvas_shows_even_a_failed_one(qapp):
    from jaxviz.model import ErrorInfo, TraceResult, VariantResult
    from jaxviz.ui.panels.tool_tabs import ToolTabs
    from jaxviz.views.window.window_state import WindowState

    state = WindowState(visible_variants=["plain", "pmap"])
    tabs = ToolTabs(state)
    state.details = TraceResult("f", "<editor:f.py>", variants=[
        VariantResult("plain", jaxpr_text="{ lambda ; a. let  in (a,) }"),
        VariantResult("pmap", error=ErrorInfo("trace", "pmap needs a leading axis of 8"))])
    tabs.show_details("pmap")
    assert tabs.device_variant.currentData() == "pmap"
    assert "pmap" in tabs.device_variant.currentText()
    assert [tabs.device_variant.itemData(i) for i in range(tabs.device_variant.count())] \
        == ["plain", "pmap"]


def test_pointing_at_an_equation_in_another_pane_leaves_the_animation(qtbot, window):
    view = devices_tab(qtbot, window, "psum_ones", size=(1600, 950))
    shown = view.scene.variant
    other = next(v for v in window.state.shown_variants() if v != shown)
    view.step(1)
    phase = view.current_phase
    window.area.panes[other].lineClicked.emit(other, 1)
    assert view.scene.variant == shown and view.current_phase == phase
    window.tools.setCurrentWidget(window.tools.console)
    window.area.panes[other].lineClicked.emit(other, 1)  # not on screen: a click focuses
    assert window.state.focused_variant == other


def test_a_maximized_device_view_stepped_and_put_back_lights_its_own_phase(qtbot, window):
    view = devices_tab(qtbot, window, "psum_ones", size=(1600, 950))
    psum = next(n for n, p in enumerate(view.phases) if p.highlights)
    view.seek(psum)
    assert window.linking.phase_lines  # the panes light psum's equation
    window.maximizer.toggle("devices")
    view.seek(len(view.phases) - 1)
    window.maximizer.restore()
    assert window.tools.currentWidget() is window.tools.devices
    wanted = {}
    for variant, first, last in view.phases[view.current_phase].highlights:
        wanted.setdefault(variant, []).extend(range(first, last + 1))
    lit = {v: lines for v, lines in window.linking.phase_lines.items() if v in window.area.panes}
    assert lit == {v: lines for v, lines in wanted.items() if v in window.area.panes}


def test_a_typo_fixed_keeps_the_device_views_phase(qtbot, window):
    view = devices_tab(qtbot, window, "psum_ones", size=(1600, 950))
    view.seek(2)
    details = window.state.details
    line = line_of(window.editor.toPlainText(), "return lax.psum")
    cursor = window.editor.textCursor()
    cursor.movePosition(cursor.MoveOperation.Start)
    cursor.movePosition(cursor.MoveOperation.Down, n=line)
    cursor.movePosition(cursor.MoveOperation.EndOfLine)
    window.editor.setTextCursor(cursor)
    window.editor.insertPlainText(" + undefined_name")  # a NameError in every variant
    shown = window.state.shown_variants()
    wait_for_panes(qtbot, window, lambda: all(window.area.panes[v].error_text for v in shown))
    window.editor.undo()
    wait_for_panes(qtbot, window, lambda: window.state.details is not details
                   and window.state.details is not None
                   and not any(window.area.panes[v].error_text for v in shown))
    assert view.current_phase == 2 and view.phases


def test_step_mode_ends_with_its_document_and_its_panel_cannot_be_left_twice(qtbot, window):
    _open(qtbot, window, "psum_ones")
    controller = start_stepping(qtbot, window, "pmap")
    panel = window.tools.values.view
    assert panel.stop_button.isEnabled()
    controller.stop()
    assert not panel.stop_button.isEnabled()
    assert not any(b.isEnabled() for b in panel.buttons.values())
    start_stepping(qtbot, window, "pmap")
    window.open_example("normalize")
    assert not window.step_mode.active and not panel.stop_button.isEnabled()
    assert "pmap" not in panel.banner.text() and "stepped last" not in panel.banner.text()
    assert window.state.function in panel.banner.text()
    QTest.keyClick(window, Qt.Key.Key_Escape)  # nothing to leave: no error


@pytest.mark.parametrize("zoom", [-2, -1, 0, 1, 2, 3])
def test_a_third_pane_at_1280x720_goes_to_tabs_and_the_window_stays_on_screen(
        qtbot, make_window, zoom):
    """batched_matmul with plain, vmap and pmap at 1280x720: the panes' headers side by
    side would need more than the screen (the window grew to 1472 px at zoom 0)."""
    win = make_window(1280, 690)
    for name in ("Gallery", "Arguments"):  # a 1280x720 screen's layout: side panels away
        win.docks[name].hide()
    win.set_zoom(zoom)
    win.open_example("batched_matmul")
    win.state.visible_variants = ["plain", "vmap", "pmap"]
    for _ in range(3):  # the panes re-lay out on resizes: let every layout settle
        win.resize(1280, 690)
        QApplication.processEvents()
        win.layout().activate()
        QApplication.processEvents()
    assert win.width() <= 1280 and win.minimumSizeHint().width() <= 1280, win.width()
    if win.area.effective_mode() == "side by side":
        panes = [win.area.panes[v] for v in win.state.shown_variants()]
        assert all(p.width() >= p.minimumSizeHint().width() for p in panes)
    win.set_zoom(0)


def test_tab_leaves_a_jaxpr_pane(qtbot, window):
    _open(qtbot, window, "convolve")
    window.activateWindow()
    view = window.area.panes["plain"].jaxpr_view
    view.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is view)
    QTest.keyClick(view, Qt.Key.Key_Tab)
    assert QApplication.focusWidget() is not view
    view.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is view)
    QTest.keyClick(view, Qt.Key.Key_Backtab, Qt.KeyboardModifier.ShiftModifier)
    assert QApplication.focusWidget() is not view


def test_in_step_mode_a_clickers_keys_step_and_never_edit_the_code(qtbot, window):
    _open(qtbot, window, "psum_ones")
    controller = start_stepping(qtbot, window, "pmap")
    window.activateWindow()
    window.editor.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is window.editor)
    text, at = window.editor.toPlainText(), controller.cursor.index
    for key in (Qt.Key.Key_Space, Qt.Key.Key_Right, Qt.Key.Key_PageDown):
        QTest.keyClick(window.editor, key)
    assert window.editor.toPlainText() == text
    qtbot.waitUntil(lambda: controller.cursor.index > at, timeout=JAX_MS)
    controller.stop()
    QTest.keyClick(window.editor, Qt.Key.Key_Space)  # step mode off: the editor types
    assert window.editor.toPlainText() != text
    window.editor.undo()


def test_documents_never_traced_each_say_their_own_function_is_not_traced(
        qtbot, window, tmp_path):
    """Two files opened in a row and another function, none traced (a file opened is shown,
    not run, until Trace): each time, the panes and the device view say that the function
    now open is not traced yet -- not the last document's function."""
    first, second = tmp_path / "first.py", tmp_path / "second.py"
    first.write_text(SOURCE)
    second.write_text(SOURCE.replace("double", "halve").replace("x * 2.0", "x / 2.0"))
    window.tools.setCurrentWidget(window.tools.devices)

    def says(function: str) -> None:
        qtbot.waitUntil(lambda: not window.area.filling and not window.area.covered,
                        timeout=5000)
        assert window.state.result is None and window.state.function == function
        for variant in window.state.shown_variants():
            text = window.area.panes[variant].jaxpr_view.toPlainText()
            assert f"{function} is not traced yet" in text, (variant, text)
        view = window.tools.devices.view
        if view is not None:
            assert view.result is None
            assert view.scene.error == f"{function} is not traced yet (Trace, F5, traces it)."

    window.open_target(f"{first}:double")
    says("double")
    window.open_target(f"{second}:halve")
    says("halve")
    window.editor_panel.functionChosen.emit("shift")
    says("shift")


def test_a_trace_that_fails_leaves_no_not_traced_yet_under_its_message(qtbot, window, tmp_path):
    """A file opened (not run until Trace, and with no result: said so), then traced and
    failing in every variant: each pane shown says why in its banner, and nothing in it
    says the function is not traced yet any more."""
    path = tmp_path / "boom.py"
    path.write_text('def boom(x):\n    raise ValueError("no good input")\n\n\n'
                    'JAXVIZ = {"function": "boom", "args": "f32[8]"}\n')
    window.open_target(f"{path}:boom")
    qtbot.waitUntil(lambda: not window.area.filling and not window.area.covered, timeout=5000)
    shown = window.state.shown_variants()
    for variant in shown:  # not run until Trace: said twice, both true
        pane = window.area.panes[variant]
        assert "boom is not traced yet" in pane.jaxpr_view.toPlainText(), variant
        assert pane.error_text == ("⚠ Not run yet: boom.py waits for Trace (F5); it has no "
                                   "result yet."), variant
    window.retrace()
    wait_for_panes(qtbot, window, lambda: window.state.details is not None)
    qtbot.waitUntil(lambda: not window.area.filling, timeout=5000)
    for variant in shown:
        pane = window.area.panes[variant]
        assert "no good input" in pane.error_text, variant
        assert "not traced yet" not in pane.jaxpr_view.toPlainText(), variant
