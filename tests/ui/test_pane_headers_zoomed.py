"""Pane headers at 1280x720 from zoom -2 to +3 (issue 27, item 2): the call under a pane's
name is never squeezed to a couple of letters ("co…") beside the header's buttons, and no
button is squeezed by the style either ("Co…de"); what does not fit is elided, whole in
the tooltip."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication, QLabel

from tests.helpers.window import wait_for_panes

pytestmark = pytest.mark.slow  # traces on the shared engine


@pytest.mark.parametrize("example", ["convolve", "tensor_parallel", "psum_ones"])
def test_the_call_keeps_room_to_be_read_at_every_zoom(qtbot, make_window, example):
    win = make_window(1280, 690)
    for name in ("Gallery", "Arguments"):  # a 1280x720 screen's layout: side panels away
        win.docks[name].hide()
    win.open_example(example)
    wait_for_panes(qtbot, win, lambda: win.state.result is not None
                   and win.state.result.function == win.state.function)
    try:
        for zoom in (-2, 0, 1, 2, 3):
            win.set_zoom(zoom)
            for _ in range(3):  # the panes re-lay out on resizes: let every layout settle
                QApplication.processEvents()
                win.layout().activate()
            for variant in win.state.shown_variants():
                pane = win.area.panes[variant]
                if not pane.isVisible():
                    continue
                full = pane.call.text()
                shown = QLabel.text(pane.call)  # what is painted (elided)
                assert full and pane.call.toolTip() == full
                # the whole call, or 16 of its characters before the ellipsis, or (a long
                # call in a narrow pane) the header's whole width to itself
                assert shown == full or len(shown.rstrip("…")) >= 16 \
                    or pane.call.width() >= pane.width() - 40, \
                    (zoom, variant, shown, full, pane.call.width(), pane.width())
                assert pane.call.geometry().right() <= pane.width()
                # no header button squeezed below its own size ("Copy as code" as "Co…de")
                for button in (pane.copy_button, pane.step_button):
                    assert button.width() >= button.sizeHint().width() - 1, \
                        (zoom, variant, button.text(), button.width())
    finally:
        win.set_zoom(0)
        win.session.stop()
