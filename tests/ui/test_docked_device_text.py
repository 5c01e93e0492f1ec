"""The docked device view's text at the window's zoom (issue 27, item 2).

At 1280x720 and zoom +3 the docked Devices tab drew its labels, captions and device
numbers at 9-11 px -- it shrank its text to keep the mesh in a strip some 235 px high --
while the rest of the window's text was 20 px. Now no text it draws is smaller than the
window's body text at that zoom (the application font, read from Qt); where the strip is
too short the picture scrolls instead, and every device keeps its number.
"""

from __future__ import annotations

import pytest
from PySide6.QtGui import QFontInfo, QImage, QPainter
from PySide6.QtWidgets import QApplication

from jaxviz.ui.devices.painter import ItemPainter
from jaxviz.views.devices.items import Text
from tests.helpers.window import flush_events, wait_for_panes

pytestmark = pytest.mark.slow  # traces on the shared engine


class _Recording(ItemPainter):
    """An item painter that notes the pixel size of every font it draws text with."""

    def __init__(self, family: str, floor: float):
        super().__init__(family)
        self.floor = floor
        self.sizes: set[int] = set()

    def font(self, size, bold=False, mono=False):
        f = super().font(size, bold, mono)
        self.sizes.add(f.pixelSize())
        return f


def _show(qtbot, win, example: str, variant: str):
    for name in ("Gallery", "Arguments"):  # a 1280x720 screen's layout: side panels away
        win.docks[name].hide()
    win.open_example(example)
    wait_for_panes(qtbot, win, lambda: win.state.details is not None
                   and win.state.details.function == win.state.function)
    win.show_tool(win.tools.devices)
    view = win.tools.devices.view
    qtbot.waitUntil(lambda: view is not None and view.result is not None)
    picker = win.tools.device_variant
    picker.setCurrentIndex(picker.findData(variant))
    picker.activated.emit(picker.currentIndex())
    qtbot.waitUntil(lambda: view.scene.variant == variant)
    return view


@pytest.mark.parametrize("example, variant", [("tensor_parallel", "sharded"),
                                              ("psum_ones", "pmap")])
def test_no_text_in_the_docked_device_view_is_smaller_than_the_windows(
        qtbot, make_window, example, variant):
    win = make_window(1280, 690)
    view = _show(qtbot, win, example, variant)
    try:
        for zoom in (0, 3):
            win.set_zoom(zoom)
            flush_events()
            body = QFontInfo(QApplication.font()).pixelSize()  # the window's body text
            assert body >= (20 if zoom == 3 else 16)
            canvas = view.canvas
            builder = canvas.builder()
            recording = _Recording(view.font().family(), getattr(canvas.painter, "floor", 0.0))
            for phase in range(len(view.phases)):
                items = builder.static(phase) + builder.dynamic(phase, 0.5)
                texts = [i for i in items if isinstance(i, Text)]
                small = sorted({(round(t.size, 1), t.text) for t in texts if t.size < body})
                assert not small, (zoom, phase, small[:5])
                # every device keeps its number (none left out for want of room)
                numbers = {t.text for t in texts}
                assert {str(d.id) for d in view.scene.devices} <= numbers, (zoom, phase)
                image = QImage(canvas.width(), canvas.height(), QImage.Format.Format_RGB32)
                p = QPainter(image)
                try:
                    recording.draw(p, items)
                finally:
                    p.end()
            # what Qt was asked to draw: no font under the body size (wrapped text does
            # not shrink below it either)
            assert recording.sizes and min(recording.sizes) >= body, sorted(recording.sizes)
            assert view.scroller.viewport().height() < 300  # the docked strip
            # the picture is whole: it scrolls to the caption rather than cutting it
            x, y, w, h = builder.lay.caption
            assert y + h <= canvas.height() + 0.5
            bar = view.scroller.verticalScrollBar()
            assert bar.maximum() == max(canvas.height() - view.scroller.viewport().height(), 0)
    finally:
        win.set_zoom(0)
        win.session.stop()


def test_the_maximized_device_view_does_not_scroll(qtbot, make_window):
    """F6 has the room: the picture is the view's size, nothing to scroll."""
    win = make_window(1280, 690)
    view = _show(qtbot, win, "tensor_parallel", "sharded")
    try:
        win.set_zoom(3)
        win.actions_by_name["max_devices"].trigger()
        flush_events()
        qtbot.waitUntil(lambda: view.scroller.viewport().height() > 400)
        assert view.canvas.height() == view.scroller.viewport().height()
        assert view.scroller.verticalScrollBar().maximum() == 0
    finally:
        win.set_zoom(0)
        if win.state.maximized:
            win.actions_by_name["max_devices"].trigger()
        win.session.stop()
