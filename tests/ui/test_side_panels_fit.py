"""The Arguments panel at 1280x720 (issue 27, item 2): its fields are never wider than the
panel shows, so no field's right end (its clear button, a spin box's arrows) is cut off
behind a sideways scroll bar, at any zoom from -2 to +3."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint
from PySide6.QtWidgets import QApplication

from tests.helpers.window import projector_window


@pytest.mark.parametrize("zoom", [-2, 0, 3])
def test_every_field_lies_inside_the_arguments_panel(qtbot, make_window, zoom):
    win = projector_window(make_window, zoom)  # side panels as planned for 1280x720
    try:
        win.open_example("tensor_parallel")  # every mesh field shown
        for _ in range(3):
            QApplication.processEvents()
            win.layout().activate()
        panel = win.args_panel
        assert win.docks["Arguments"].width() < 320  # the narrow side panel of a small screen
        viewport = panel.viewport()
        assert not panel.horizontalScrollBar().isVisible()
        inner = panel.widget()
        for field in [*panel.edits.values(), panel.batch, panel.devices]:
            if not field.isVisible():
                continue
            right = field.mapTo(inner, QPoint(field.width(), 0)).x()
            assert right <= viewport.width(), (field.objectName(), right, viewport.width())
            # and not squeezed to a few letters either
            assert field.width() >= 5 * field.fontMetrics().averageCharWidth(), \
                (field.objectName(), field.width())
    finally:
        win.set_zoom(0)
        win.session.stop()
