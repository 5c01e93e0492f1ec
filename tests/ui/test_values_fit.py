"""The Values tab at 1280x720 with the side panels shown (issue 27).

Stepping normalize's pmap variant there, the step that matters -- ``div``, each
device's x divided by the psum -- had its output row cut at the tab's foot (the
device columns 322 px high in a 296-px view, on Xvfb at 1280x720 as here offscreen).
Every step's outputs are now wholly in view when the step is shown.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QRect

from tests.helpers.window import (
    JAX_MS,
    flush_events,
    projector_window,
    start_stepping,
    wait_for_panes,
)

pytestmark = pytest.mark.slow  # steps on the shared engine


def _outputs_in_view(panel) -> list[tuple[str, QRect, QRect]]:
    """(column, outputs' rectangle, viewport) for every shown column whose outputs are
    cut at the top or the foot of the scroller's viewport."""
    viewport = panel.scroller.viewport()
    cut = []
    for column in panel.columns:
        if column.isHidden() or column.outputs.isHidden():
            continue
        top_left = column.outputs.mapTo(viewport, QPoint(0, 0))
        rect = QRect(top_left, column.outputs.size())
        view = viewport.rect()
        if rect.top() < view.top() or rect.bottom() > view.bottom():  # (across: it scrolls)
            cut.append((column.header.text(), rect, viewport.rect()))
    return cut


@pytest.mark.parametrize("zoom", [0, 1])
def test_the_outputs_of_every_step_are_in_view_at_1280x720(qtbot, make_window, zoom):
    win = projector_window(make_window, zoom)
    try:
        win.open_example("normalize")
        wait_for_panes(qtbot, win, lambda: win.router.details is not None)
        controller = start_stepping(qtbot, win, "pmap")
        panel = win.tools.values.view
        seen = []
        for _ in range(len(controller.result.steps)):
            qtbot.waitUntil(lambda: panel.model is not None and not panel.filling)
            flush_events()
            seen.append(panel.model.heading)
            assert _outputs_in_view(panel) == [], (panel.model.heading, zoom)
            index = panel.model.index
            if index >= panel.model.count - 1:
                break
            win.step_mode.move("next")
            qtbot.waitUntil(lambda i=index: panel.model.index == i + 1, timeout=JAX_MS)
        assert "div" in seen  # the step that was cut
    finally:
        if win.step_mode.active:
            win.step_mode.controller.stop()
        win.set_zoom(0)
        win.session.stop()
