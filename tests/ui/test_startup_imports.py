"""The window paints before anything it does not show is imported (issue 31).

Structural, not timed: a fresh ``jaxviz example:convolve`` process (the real entry,
``jaxviz.ui.app.main``) reports ``sys.modules`` at its window's first paint event,
before the engine starts and the example opens. What a first frame does not show --
the compare layout's diff, the lecture reader (tomllib) and the presentation, the
stepper's Values panel, the timing and device views, the engine client, dialogs,
Pygments' lexers -- must not be among them; what it does show must be.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

# Not in the fast tier: starts the app in a subprocess.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]

CHILD = """
import json, os, sys
from jaxviz.ui import app

def painted(window):
    print("PAINTED " + json.dumps({"modules": sorted(sys.modules),
                                   "visible": window.isVisible(),
                                   "editor_text": window.editor.toPlainText()}), flush=True)
    os._exit(0)

sys.exit(app.main(["example:convolve"], on_painted=painted))
"""

#: Modules (or packages: every module under them) a first frame does not show.
NOT_BEFORE_FIRST_PAINT = (
    "jax", "jaxlib", "numpy", "pyqtgraph",              # never in the GUI, or not yet
    "tomllib", "jaxviz.views.present",                   # the lecture reader, presentation
    "jaxviz.ui.present",                                 # the presentation window
    "jaxviz.views.compare.jaxpr_diff", "jaxviz.views.compare.diff_layout",
    "jaxviz.views.compare.jaxpr_align", "jaxviz.views.compare.changes",
    "jaxviz.ui.stepper.values_panel", "jaxviz.ui.stepper.cells",
    "jaxviz.ui.timing", "jaxviz.ui.devices", "jaxviz.ui.plots",
    "jaxviz.engine",                                     # the client: started after the paint
    "jaxviz.ui.window.shortcuts_dialog",
    "pygments.lexer", "pygments.lexers", "jaxviz.views.text.lexers",  # made in a thread
)

#: What the first frame shows: these must be there (else the test proves nothing).
SHOWN = ("jaxviz.ui.window.main_window", "jaxviz.ui.panels.editor_panel",
         "jaxviz.ui.panes.jaxpr_pane", "jaxviz.ui.panels.gallery", "jaxviz.ui.panels.args")


def _first_paint(tmp_path: Path) -> dict:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(ROOT),
               XDG_CONFIG_HOME=str(tmp_path / "config"), XDG_DATA_HOME=str(tmp_path / "data"))
    out = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True,
                         timeout=180, env=env, cwd=tmp_path)
    for line in out.stdout.splitlines():
        if line.startswith("PAINTED "):
            return json.loads(line[len("PAINTED "):])
    pytest.fail(f"the window never painted:\n{out.stdout}\n{out.stderr}")


def test_the_first_paint_comes_before_what_it_does_not_show(tmp_path):
    found = _first_paint(tmp_path)
    modules = set(found["modules"])
    assert found["visible"]
    assert found["editor_text"] == ""  # the example opens after the paint, not before
    missing = [m for m in SHOWN if m not in modules]
    assert not missing, f"the first frame's own modules were not imported: {missing}"
    early = sorted(m for m in modules for heavy in NOT_BEFORE_FIRST_PAINT
                   if m == heavy or m.startswith(heavy + "."))
    assert not early, f"imported before the window's first paint: {early}"
