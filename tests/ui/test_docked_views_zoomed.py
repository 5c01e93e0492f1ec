"""The docked views at 1280x720, zoomed from -2 to +3 (issue 27, item 2).

A zoomed window's docked Devices tab is a strip some 250 px high: the caption's
text grew with the zoom and, before, took the mesh's room (the device boxes got a
negative height and vanished). Each device must still be painted -- its colour
sampled from the canvas as drawn -- and the caption, however it wraps or is cut,
must be whole on hover.
"""

from __future__ import annotations

import pytest
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QApplication

from tests.helpers.window import wait_for_panes

pytestmark = pytest.mark.slow  # traces on the shared engine


def _open(qtbot, win, example: str) -> None:
    win.open_example(example)
    wait_for_panes(qtbot, win, lambda: win.state.details is not None
                   and win.state.details.function == win.state.function)


def _colour_counts(image, colours: set[str]) -> dict[str, int]:
    wanted = {QColor(c).rgb() & 0xFFFFFF: c for c in colours}
    counts = dict.fromkeys(colours, 0)
    for y in range(0, image.height(), 2):
        for x in range(0, image.width(), 2):
            hit = wanted.get(image.pixel(x, y) & 0xFFFFFF)
            if hit is not None:
                counts[hit] += 1
    return counts


@pytest.mark.parametrize("example, variant", [("tensor_parallel", "sharded"),
                                              ("psum_ones", "pmap")])
def test_every_device_is_drawn_in_the_docked_tab_at_every_zoom(qtbot, make_window, example,
                                                                variant):
    win = make_window(1280, 690)
    for name in ("Gallery", "Arguments"):  # a 1280x720 screen's layout: side panels away
        win.docks[name].hide()
    _open(qtbot, win, example)
    win.show_tool(win.tools.devices)
    view = win.tools.devices.view
    qtbot.waitUntil(lambda: view is not None and view.result is not None)
    win.tools.device_variant.setCurrentIndex(win.tools.device_variant.findData(variant))
    win.tools.device_variant.activated.emit(win.tools.device_variant.currentIndex())
    qtbot.waitUntil(lambda: view.scene.variant == variant)
    try:
        for zoom in (-2, 0, 1, 2, 3):
            win.set_zoom(zoom)
            QApplication.processEvents()
            canvas = view.canvas
            # the docked strip, not a big view (the canvas scrolls in it where it must)
            assert view.scroller.viewport().height() < 400, view.scroller.viewport().height()
            colours = {d.colour for d in view.scene.devices}
            assert len(colours) == 8
            counts = _colour_counts(canvas.grab().toImage(), colours)
            # Each device's box header is painted in its colour: 8 boxes, each visible.
            assert min(counts.values()) >= 30, (zoom, counts)
        # The caption, wrapped or cut at +3, is whole on hover.
        x, y, w, h = canvas.builder().lay.caption
        phase = view.scene.phases[view.current_phase]
        tip = canvas.caption_tip(x + w / 2, y + h / 2)
        assert phase.caption in tip and phase.title in tip
        assert canvas.caption_tip(x + w / 2, y - 5) == ""
    finally:
        win.set_zoom(0)
        win.session.stop()
