"""A clicker's blank-screen keys (B, period) never edit code while step mode or a
maximized view has taken the clicker's keys from the editor (issue 27, item 6); when
neither is up, the editor types them as always."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from tests.helpers.window import JAX_MS, start_stepping, wait_for_panes

pytestmark = pytest.mark.slow  # traces and steps on the shared engine

CLICKER = (Qt.Key.Key_B, Qt.Key.Key_Period, Qt.Key.Key_Space, Qt.Key.Key_Right,
           Qt.Key.Key_PageDown, Qt.Key.Key_Left, Qt.Key.Key_PageUp)


def _press_in_editor(qtbot, window, keys) -> str:
    window.activateWindow()
    window.editor.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is window.editor)
    for key in keys:
        QTest.keyClick(window.editor, key)
    return window.editor.toPlainText()


def test_in_step_mode_b_and_period_never_type_into_the_code(qtbot, window):
    window.open_example("psum_ones")
    wait_for_panes(qtbot, window, lambda: window.state.details is not None)
    controller = start_stepping(qtbot, window, "pmap")
    text = window.editor.toPlainText()
    assert _press_in_editor(qtbot, window, CLICKER) == text
    controller.stop()
    # step mode is over: the editor is the user's again, B types a "b"
    assert _press_in_editor(qtbot, window, (Qt.Key.Key_B,)) != text
    window.editor.undo()


def test_while_a_view_fills_the_window_b_and_period_never_type_into_the_code(qtbot, window):
    window.open_example("psum_ones")
    wait_for_panes(qtbot, window, lambda: window.state.details is not None)
    window.maximizer.toggle("devices")
    try:
        text = window.editor.toPlainText()
        assert _press_in_editor(qtbot, window, (Qt.Key.Key_B, Qt.Key.Key_Period)) == text
    finally:
        window.maximizer.restore()


def test_a_clicker_in_the_editor_steps_the_docked_device_view_and_types_nothing(qtbot, window):
    """The Devices tab docked, the focus left in the code: the clicker's Page Down steps the
    animation, and from then on its Space, Right and B do too instead of typing -- until the
    presenter types a key no clicker sends, and the editor is theirs again."""
    window.open_example("psum_ones")
    wait_for_panes(qtbot, window, lambda: window.state.details is not None)
    window.show_tool(window.tools.devices)
    view = window.tools.devices.view
    qtbot.waitUntil(lambda: view is not None and view.isVisible() and bool(view.phases),
                    timeout=JAX_MS)
    start = view.current_phase
    text = window.editor.toPlainText()
    after = _press_in_editor(qtbot, window, (Qt.Key.Key_PageDown,))
    assert after == text and view.current_phase == start + 1
    after = _press_in_editor(qtbot, window, (Qt.Key.Key_Space, Qt.Key.Key_Right,
                                              Qt.Key.Key_B, Qt.Key.Key_Period))
    assert after == text  # nothing typed into the code
    assert view.current_phase == min(start + 3, len(view.phases) - 1)
    QTest.keyClick(window.editor, Qt.Key.Key_X)  # the presenter types again
    assert window.editor.toPlainText() != text
    typed = window.editor.toPlainText()
    QTest.keyClick(window.editor, Qt.Key.Key_Space)
    assert window.editor.toPlainText() != typed  # a space, typed: the editor is theirs
    window.editor.undo()
    window.editor.undo()
