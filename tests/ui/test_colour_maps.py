"""The Values panel's colour maps are pyqtgraph's, read without importing pyqtgraph: the
same colours as ``pyqtgraph.ColorMap`` (the oracle), and a step shown in a fresh process
leaves pyqtgraph unimported (issue 31: it was 145 modules, 15-18 MB, at the first step)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.helpers.fresh import fresh_json


@pytest.mark.parametrize("name", ["viridis", "CET-D1"])
def test_the_maps_give_pyqtgraphs_colours(name):
    import pyqtgraph as pg

    from jaxviz.ui.stepper.colour_maps import ColourMap

    ours, theirs = ColourMap(name), pg.colormap.get(name)
    table = ours.lookup_table(256)
    assert table.shape == (256, 3) and table.dtype == np.ubyte
    assert np.abs(table.astype(int) - theirs.getLookupTable(nPts=256).astype(int)).max() <= 1
    at = np.linspace(-0.2, 1.2, 141)  # beyond the ends: clipped, as pyqtgraph's default
    assert np.allclose(ours.floats_at(at), theirs.map(at, mode="float")[:, :3], atol=1e-6)
    for value in (0.0, 0.37, 0.5, 1.0):
        assert ours.colour(value).getRgb()[:3] == theirs.map(value, mode="qcolor").getRgb()[:3]


def test_a_step_shown_in_a_fresh_process_does_not_import_pyqtgraph():
    shown = fresh_json("""
import json, sys
import numpy as np
from PySide6.QtWidgets import QApplication
app = QApplication([])
from jaxviz.ui.stepper import cells
from jaxviz.ui.stepper.colour_bar import ColourBar
from jaxviz.ui.stepper.values_panel import ValuesPanel
panel = ValuesPanel()  # (it reads the colour tables in turns of its own)
for _ in range(20):
    app.processEvents()
scale = cells.Scale(-1.0, 1.0, True)
heat = cells.HeatMap()
heat.resize(200, 200)
heat.show_matrix(np.linspace(-1, 1, 16).reshape(4, 4).tolist(), scale, cells.numbers_font(0, False))
heat.grab()
bar = ColourBar()
bar.set_scale(scale)
bar.grab()
print(json.dumps({"pyqtgraph": "pyqtgraph" in sys.modules,
                  "colour": scale.colour(1.0).name(), "table": len(scale.lookup_table)}))
""")
    assert shown["table"] == 256 and shown["colour"].startswith("#")
    assert not shown["pyqtgraph"]
