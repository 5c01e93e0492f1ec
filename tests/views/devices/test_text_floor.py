"""The device view's text floor without Qt (issue 27): on screen no text is smaller than
the window's body text; a short canvas grows (the view scrolls) rather than shrink it."""

from __future__ import annotations

import pytest

from jaxviz.views import palette
from jaxviz.views.devices import build_scene, geometry
from jaxviz.views.devices.frames import FrameBuilder
from jaxviz.views.devices.items import Box, Text, at_least
from tests.helpers.device_cases import traced

LIGHT = palette.theme("light").device_view
BODY = 20.0  # the window's body text at zoom +3 (15 pt at 96 dpi)
DOCKED = (1262, 235)  # the docked Devices tab of a 1280x720 window at zoom +3


def test_at_least_raises_small_text_and_leaves_out_a_line_with_no_room():
    items = [Text((0, 0, 100, 30), "caption", 12, "#000", wrap=True),
             Text((0, 0, 100, 30), "label", 14, "#000"),
             Text((0, 0, 100, 10), "0,1", 9, "#000"),  # a tile 10 px high: no line of 20 px
             Text((0, 0, 100, 30), "title", 26, "#000"),
             Box((0, 0, 5, 5), "#fff")]
    out = at_least(items, BODY)
    texts = {t.text: t.size for t in out if isinstance(t, Text)}
    assert texts == {"caption": BODY, "label": BODY, "title": 26}
    assert items[4] in out
    assert at_least(items, 0) == items


@pytest.mark.parametrize("example, variant", [("tensor_parallel", "sharded"),
                                              ("psum_ones", "pmap"), ("normalize", "vmap")])
def test_a_docked_canvas_draws_no_text_under_the_floor_and_grows_for_the_mesh(example,
                                                                              variant):
    scene = build_scene(traced(example, variant), variant)
    width, height = DOCKED
    need = geometry.needed_height(scene, width, BODY, min_text=BODY, start=height)
    tall = max(need, height)
    lay = geometry.fitted_geometry(scene, width, tall, 25.0, min_text=BODY)
    assert lay.unit >= BODY
    boxes = [d.rect for d in lay.devices.values()]
    assert min(r[3] for r in boxes) >= geometry.MIN_BOX_UNITS * BODY - 0.5
    assert all(r[1] >= 0 and r[1] + r[3] <= tall for r in boxes)
    x, y, w, h = lay.caption
    assert y + h <= tall
    builder = FrameBuilder(scene, lay, LIGHT)
    for phase in range(len(scene.phases)):
        texts = [t for t in builder.frame(phase, 0.5) if isinstance(t, Text)]
        assert min(t.size for t in texts) >= BODY
        assert {str(d.id) for d in scene.devices} <= {t.text for t in texts}
    if need:  # the least such height: a little less and the boxes are under a line
        short = geometry.canvas_geometry(scene, width, need - BODY, BODY, min_text=BODY)
        assert min(d.rect[3] for d in short.devices.values()) < geometry.MIN_BOX_UNITS * BODY
