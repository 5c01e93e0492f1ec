"""PySide6's per-import source check no longer keeps every module's source in memory.

PySide6 reads each module imported after Qt with ``inspect.getsource`` to see
whether it mentions "PySide6"; ``inspect`` keeps those sources in
:mod:`linecache` for good. :mod:`jaxviz.ui.feature_check` answers the same
question from the file's bytes. Checked in fresh interpreters, since this
test process imported Qt long ago.
"""

from __future__ import annotations

import sys

from tests.helpers.fresh import fresh_json

PROBE = """
import json, linecache, sys
import PySide6.QtCore
{install}
import pyqtgraph, pygments.lexers.python, jaxviz.views.palette
feature = sys.modules["PySide6.support.feature"]
kept = [f for f in linecache.cache if "pyqtgraph" in f or "pygments" in f or "jaxviz" in f]
said = {{k: v for k, v in feature.pyside_feature_dict.items()
        if k.startswith(("pyqtgraph", "pygments", "jaxviz"))}}
print(json.dumps({{"kept": len(kept), "dict": said}}))
"""


def _probe(install: str) -> dict:
    return fresh_json(PROBE.format(install=install))


def test_modules_imported_after_qt_leave_no_source_behind():
    plain = _probe("")
    fixed = _probe("import jaxviz.ui")
    assert plain["kept"] > 100  # PySide6's own check keeps them (the cost this module removes)
    assert fixed["kept"] == 0
    # and PySide6 was told the same thing about every one of those modules
    assert {name: fixed["dict"].get(name) for name in plain["dict"]} == plain["dict"]
    assert set(plain["dict"].values()) == {0, -1}  # both answers were given


def test_the_answer_is_pyside6s_own_for_every_loaded_module():
    from jaxviz.ui import feature_check

    assert feature_check.install()
    assert callable(feature_check.original)
    modules = [m for m in list(sys.modules.values()) if getattr(m, "__name__", None)]
    assert len(modules) > 200
    for module in modules:
        assert feature_check.uses_pyside(module) == feature_check.original(module), module
