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


def test_numbers_sit_on_their_cells_and_a_value_that_is_not_finite_is_left_unpainted(qtbot):
    """Large cells carry their numbers (light on dark colours, dark on light ones); NaN and
    inf get no colour of the scale, which has none for them."""
    values = np.array([[0.0, 1.0], [np.nan, 3.0]])
    scale = Scale(0.0, 3.0, diverging=False)
    heat = HeatMap()
    qtbot.addWidget(heat)
    heat.show_matrix(values.tolist(), scale, QFont(), HEATMAP_SIDE)
    heat.show()
    qtbot.waitExposed(heat)
    width, height = heat.cell_size
    assert (width, height) == (52, 52) and heat.levels == (0.0, 3.0)
    image = heat.grab().toImage()

    def at(r: int, c: int, dx: float = 0.5, dy: float = 0.5):
        return image.pixelColor(int((c + dx) * width), int((r + dy) * height))

    assert close(at(0, 1, 0.1, 0.1), scale.colour(1.0), tolerance=20)
    # the number "1" is drawn in the middle of its cell, in the contrasting ink
    middle = [image.pixelColor(x, int(0.5 * height)) for x in range(width + 4, 2 * width - 4)]
    assert any(not close(p, scale.colour(1.0), tolerance=60) for p in middle)
    nan_cell = at(1, 0, 0.1, 0.1)
    assert not any(close(nan_cell, scale.colour(v), tolerance=20) for v in np.linspace(0, 3, 50))
