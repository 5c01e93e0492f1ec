"""pyqtgraph's copies of the Qt modules are filled on use, and give PySide6's own objects.

Checked in fresh interpreters: this test process may have imported pyqtgraph
before :mod:`jaxviz.ui` installed the hook.
"""

from __future__ import annotations

from tests.helpers.fresh import fresh_json

PROBE = """
import json, sys
{first}
import PySide6.QtCore, PySide6.QtGui, PySide6.QtWidgets
modules = {{"QtCore": PySide6.QtCore, "QtGui": PySide6.QtGui, "QtWidgets": PySide6.QtWidgets}}
listed = {{name: set(dir(module)) for name, module in modules.items()}}
import pyqtgraph as pg
from pyqtgraph import Qt
created = sum(len(module.__dict__) for module in modules.values())
restored = all(set(dir(module)) == listed[name] for name, module in modules.items())
same = all(getattr(getattr(Qt, name), attr) is getattr(module, attr)
           for name, module in modules.items() for attr in listed[name]
           if not attr.startswith("__"))
app = pg.mkQApp("probe")
plot = pg.PlotWidget(); plot.plot([1, 2, 3], [3, 1, 2]); plot.resize(200, 150)
drawn = not plot.grab().toImage().isNull()
print(json.dumps({{"created": created, "same": same, "restored": restored, "drawn": drawn,
                  "listed": sum(map(len, listed.values()))}}))
"""


def _probe(first: str) -> dict:
    return fresh_json(PROBE.format(first=first))


def test_importing_pyqtgraph_no_longer_creates_every_qt_class():
    plain = _probe("")
    lazy = _probe("import jaxviz.ui")
    assert plain["created"] >= 0.9 * plain["listed"]  # pyqtgraph's own import makes them all
    assert lazy["created"] < 0.3 * lazy["listed"]
    for run in (plain, lazy):
        assert run["same"] and run["restored"] and run["drawn"]
