"""The Values tab at 1280x720 with the side panels shown (issue 27).

Stepping normalize's pmap variant there, the step that matters -- ``div``, each
device's x divided by the psum -- had its output row cut at the tab's foot (the
device columns 322 px high in a 296-px view, on Xvfb at 1280x720 as here offscreen).
Every step's outputs are now wholly in view when the step is shown, and where that
scrolls the columns' coloured headers ("device 0" ...) out of the top, each shown
column's header is drawn over the top of the view at its place, in its colour.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QRect
from PySide6.QtGui import QColor

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


def _unnamed_columns(panel) -> list[str]:
    """The shown columns whose lane nobody can read: their header above the viewport and
    not drawn over its top in the lane's colour at the column's place."""
    viewport = panel.scroller.viewport()
    image = viewport.grab().toImage()
    drawn = {title: (colour, left) for title, colour, left, _ in panel.sticky.shown}
    lost = []
    for column in panel.columns:
        if column.isHidden() or column.column is None:
            continue
        if column.header.mapTo(viewport, QPoint(0, 0)).y() >= 0:
            continue  # its own header is in view
        left = column.mapTo(viewport, QPoint(0, 0)).x()
        title = column.header.text()
        seen = (panel.sticky.isVisible() and drawn.get(title) == (column.column.colour, left)
                and 0 <= left + 3 < image.width()
                and image.pixelColor(left + 3, 2) == QColor(column.column.colour))
        if not seen and left + column.width() > 0 and left < viewport.width():
            lost.append(title)
    return lost


def _each_step(qtbot, win, example: str):
    """Open ``example``, step its pmap variant and yield the Values panel at each step,
    filled and laid out (break out to stop early)."""
    win.open_example(example)
    wait_for_panes(qtbot, win, lambda: win.router.details is not None)
    controller = start_stepping(qtbot, win, "pmap")
    panel = win.tools.values.view
    for _ in range(len(controller.result.steps)):
        qtbot.waitUntil(lambda: panel.model is not None and not panel.filling)
        flush_events()
        yield panel
        index = panel.model.index
        if index >= panel.model.count - 1:
            return
        win.step_mode.move("next")
        qtbot.waitUntil(lambda i=index: panel.model.index == i + 1, timeout=JAX_MS)


@pytest.mark.parametrize("zoom", [0, 1])
def test_the_outputs_of_every_step_are_in_view_at_1280x720(qtbot, make_window, zoom):
    win = projector_window(make_window, zoom)
    try:
        seen = []
        for panel in _each_step(qtbot, win, "normalize"):
            seen.append(panel.model.heading)
            assert _outputs_in_view(panel) == [], (panel.model.heading, zoom)
            assert _unnamed_columns(panel) == [], (panel.model.heading, zoom)
        assert "div" in seen  # the step that was cut
    finally:
        if win.step_mode.active:
            win.step_mode.controller.stop()
        win.set_zoom(0)
        win.session.stop()


def test_a_step_whose_headers_scroll_out_keeps_its_lanes_named(qtbot, make_window):
    """data_parallel's pmap steps with a vector and a scalar input per device: keeping
    the outputs in view at 1280x720 scrolls the "device N" headers out of the top."""
    win = projector_window(make_window, 0)
    try:
        scrolled_out = []
        for panel in _each_step(qtbot, win, "data_parallel"):
            assert _unnamed_columns(panel) == [], panel.model.heading
            if panel.sticky.isVisible():
                scrolled_out.append(panel.model.heading)
                shown = [c for c in panel.columns if not c.isHidden()]
                titles = [title for title, *_ in panel.sticky.shown]
                assert titles == [c.header.text() for c in shown][:len(titles)]
            if len(scrolled_out) >= 2:
                break
        assert scrolled_out  # else this window showed every header and tested nothing
        panel.scroller.verticalScrollBar().setValue(0)  # scrolled back up: the real ones
        flush_events()
        assert not panel.sticky.isVisible()
    finally:
        if win.step_mode.active:
            win.step_mode.controller.stop()
        win.session.stop()
