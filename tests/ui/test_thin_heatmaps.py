"""Heat maps of thin arrays in the Values tab (issue 27, item 3): f32[1,32] is a band at
least 32 px high, not a strip of a few pixels, and each cell is painted in its value's
colour on the step's scale (sampled from the widget)."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtGui import QFont

from jaxviz.ui.stepper.cells import DEVICE_HEATMAP_SIDE, HEATMAP_SIDE, HeatMap, Scale
from tests.helpers.window import close


@pytest.mark.parametrize("side", [HEATMAP_SIDE, DEVICE_HEATMAP_SIDE])
@pytest.mark.parametrize("shape", [(1, 32), (32, 1), (2, 64)])
def test_a_thin_array_is_a_band_with_its_values_colours(qtbot, side, shape):
    values = np.linspace(-3.0, 5.0, shape[0] * shape[1]).reshape(shape)
    scale = Scale(float(values.min()), float(values.max()), diverging=True)
    heat = HeatMap()
    qtbot.addWidget(heat)
    heat.show_matrix(values.tolist(), scale, QFont(), side)
    heat.show()
    qtbot.waitExposed(heat)
    assert min(heat.width(), heat.height()) >= 32, (heat.width(), heat.height())
    assert max(heat.width(), heat.height()) <= max(side, 4 * max(shape))  # 4 px cells at least
    image = heat.grab().toImage()
    cell_w, cell_h = heat.width() / shape[1], heat.height() / shape[0]
    for r, c in [(0, 0), (shape[0] - 1, shape[1] - 1), (shape[0] // 2, shape[1] // 2)]:
        x, y = int((c + 0.5) * cell_w), int((r + 0.5) * cell_h)
        got = image.pixelColor(x, y)
        assert close(got, scale.colour(values[r, c]), tolerance=20), (r, c, got.name())
