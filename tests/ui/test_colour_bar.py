"""The Values panel's colour bar, painted: the heat maps' colours on their shared scale.

Its pixels are sampled against pyqtgraph's own colour maps (viridis, and CET-D1 for
values of both signs) at the bar's ends and middle; its ticks are round values within
the scale, 1, 2 or 5 times a power of ten apart.
"""

from __future__ import annotations

import math

import pyqtgraph as pg
import pytest

from jaxviz.ui.stepper.cells import Scale
from jaxviz.ui.stepper.colour_bar import ColourBar, ticks
from tests.helpers.window import close, pixel


@pytest.mark.parametrize("low, high, length", [(1.0, 4.0, 232), (-0.37, 0.37, 232),
                                               (0.0, 1e-6, 120), (-250.0, 1300.0, 300)])
def test_ticks_are_round_values_within_the_scale(low, high, length):
    found = ticks(low, high, length)
    assert 2 <= len(found) <= length // 34 + 1
    assert all(low - 1e-12 <= t <= high + 1e-12 for t in found)
    steps = {round(b - a, 15) for a, b in zip(found, found[1:])}
    assert len({round(s / min(steps), 6) for s in steps}) == 1  # evenly spaced
    step = min(steps)
    mantissa = step / 10 ** math.floor(math.log10(step))
    assert any(math.isclose(mantissa, m) for m in (1, 2, 5))


def test_ticks_of_an_empty_range_are_its_one_value():
    assert ticks(2.0, 2.0, 200) == [2.0]


@pytest.mark.parametrize("scale, colour_map", [(Scale(1.0, 4.0, False), "viridis"),
                                                (Scale(-3.0, 3.0, True), "CET-D1")])
def test_the_bar_is_the_colour_map_high_at_the_top(qtbot, scale, colour_map):
    bar = ColourBar()
    qtbot.addWidget(bar)
    bar.resize(110, 288)
    bar.set_scale(scale)
    assert bar.levels() == scale.levels
    rect = bar.bar_rect()
    reference = pg.colormap.get(colour_map)
    x = int(rect.center().x())
    for fraction in (0.03, 0.5, 0.97):  # of the way up from the bottom
        y = int(rect.bottom() - fraction * rect.height())
        expected = reference.map(fraction, mode="qcolor")
        assert close(pixel(bar, x, y), expected, 12), (colour_map, fraction)
    assert not close(pixel(bar, x, int(rect.top()) + 3), pixel(bar, x, int(rect.bottom()) - 3))
