"""A clicker's blank-screen keys (B, period) never edit code while step mode or a
maximized view has taken the clicker's keys from the editor (issue 27, item 6); when
neither is up, the editor types them as always."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from tests.helpers.window import JAX_MS, wait_for_panes

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
    window.step_mode.start("pmap")
    controller = window.step_mode.controller
    qtbot.waitUntil(lambda: controller.result is not None and not controller.busy,
                    timeout=JAX_MS)
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
