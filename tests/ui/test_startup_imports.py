"""The window paints before anything it does not show is imported (issue 31).

Structural, not timed: a fresh ``jaxviz example:convolve`` process (the real entry,
``jaxviz.ui.app.main``) reports ``sys.modules`` at its window's first paint event,
before the engine starts and the example opens. The first frame is the window's
frame (staged start-up): placed as remembered, titled, saying it is starting. None
of its parts -- the editor, the panes, the gallery and arguments panels, the tool
tabs, the window state and its records, the compare layout's diff, the lecture
reader (tomllib) and the presentation, the stepper, the timing and device views, the
engine client, dialogs, Pygments' lexers -- may be among them; they are built right
after, and the same process then shows them all.
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
    from PySide6.QtWidgets import QLabel
    starting = window.findChild(QLabel, "starting")
    print("PAINTED " + json.dumps({"modules": sorted(sys.modules),
                                   "visible": window.isVisible(),
                                   "built": window.built,
                                   "says": starting.text() if starting else None}), flush=True)

def base_style():
    from PySide6.QtWidgets import QApplication
    QApplication.instance().setStyleSheet("")  # the style under the style sheet (at the end)
    return QApplication.style().name()

def shown(window):
    print("SHOWN " + json.dumps({"built": window.built,
                                 "editor_text": window.editor.toPlainText(),
                                 "panes": sorted(window.area.panes),
                                 "docks": sorted(window.docks),
                                 "menus": [a.text() for a in window.menuBar().actions()],
                                 "style": base_style()}),
          flush=True)
    os._exit(0)

sys.exit(app.main(["example:convolve"], on_painted=painted, on_shown=shown))
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
    # the window's parts, built right after the frame has painted:
    "jaxviz.ui.panels", "jaxviz.ui.panes", "jaxviz.ui.text.editor", "jaxviz.ui.compare",
    "jaxviz.ui.stepper", "jaxviz.ui.window.document", "jaxviz.ui.window.actions",
    "jaxviz.views.window.window_state", "psygnal", "jaxviz.model.records",
    "jaxviz.model.gallery", "jaxviz.ui.qt_engine",
)

#: What the first frame shows: these must be there (else the test proves nothing).
SHOWN = ("jaxviz.ui.window.main_window", "jaxviz.ui.window.layout", "jaxviz.ui.theme.style")


def _start(tmp_path: Path) -> dict[str, dict]:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(ROOT),
               XDG_CONFIG_HOME=str(tmp_path / "config"), XDG_DATA_HOME=str(tmp_path / "data"))
    out = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True,
                         timeout=180, env=env, cwd=tmp_path)
    found = {}
    for line in out.stdout.splitlines():
        word, _, data = line.partition(" ")
        if word in ("PAINTED", "SHOWN"):
            found[word] = json.loads(data)
    if set(found) != {"PAINTED", "SHOWN"}:
        pytest.fail(f"the window never painted or was never built:\n{out.stdout}\n{out.stderr}")
    return found


def test_the_first_paint_comes_before_what_it_does_not_show(tmp_path):
    found = _start(tmp_path)["PAINTED"]
    modules = set(found["modules"])
    assert found["visible"]
    assert not found["built"]  # the frame: its parts come after the paint
    assert found["says"] == "Starting jaxviz…"
    missing = [m for m in SHOWN if m not in modules]
    assert not missing, f"the first frame's own modules were not imported: {missing}"
    early = sorted(m for m in modules for heavy in NOT_BEFORE_FIRST_PAINT
                   if m == heavy or m.startswith(heavy + "."))
    assert not early, f"imported before the window's first paint: {early}"


def test_right_after_its_first_paint_the_window_has_every_part_and_opens_its_target(tmp_path):
    shown = _start(tmp_path)["SHOWN"]
    assert shown["built"]
    assert "def convolve" in shown["editor_text"]
    assert {"plain", "vmap", "pmap", "sharded"} <= set(shown["panes"])
    assert shown["docks"] == ["Arguments", "Console · Devices · Timing", "Gallery"]
    assert [m.replace("&", "") for m in shown["menus"]][:2] == ["File", "Examples"]
    assert shown["style"].lower() == "fusion"  # started with Qt's -style option


#: The child with no fallback: ``on_painted`` can only come from the window's paint event.
PAINT_ONLY_CHILD = """
import os, sys
from jaxviz.ui import app

app.PAINT_WAIT_MS = 10 ** 8  # no timer stands in for the paint

def painted(window):
    print("PAINTED", window.isVisible(), window.windowHandle().isExposed(), flush=True)
    os._exit(0)

sys.exit(app.main(["example:convolve"], on_painted=painted))
"""


def test_the_first_paint_is_seen_on_the_window_itself(tmp_path):
    """The watcher filters the window's own events (an application-wide filter made
    PySide6 wrap every event and object of the start-up); the window's paint event
    must still reach it: without the fallback timer the child reports its paint, or
    it is killed at the timeout and the test fails."""
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(ROOT),
               XDG_CONFIG_HOME=str(tmp_path / "config"), XDG_DATA_HOME=str(tmp_path / "data"))
    try:
        out = subprocess.run([sys.executable, "-c", PAINT_ONLY_CHILD], capture_output=True,
                             text=True, timeout=60, env=env, cwd=tmp_path)
    except subprocess.TimeoutExpired:
        pytest.fail("the window's first paint event never reached the watcher")
    assert "PAINTED True True" in out.stdout, out.stdout + out.stderr


#: A smooth scaling of a big image, as the Values panel's heat maps are drawn, then the
#: count of Qt's pool threads in the process ({start}: the window, or a bare application).
POOL_CHILD = """
import os, sys

def scale_and_count(*_window):
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QColor, QImage
    image = QImage(1600, 1000, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(QColor(30, 60, 90))
    image.scaled(800, 500, Qt.AspectRatioMode.IgnoreAspectRatio,
                 Qt.TransformationMode.SmoothTransformation)
    names = [open(f"/proc/self/task/{{task}}/comm").read().strip()
             for task in os.listdir("/proc/self/task")]
    print("POOLED", sum(name == "Thread (pooled)" for name in names), flush=True)
    os._exit(0)

{start}
"""


def _pooled_threads(tmp_path, start: str) -> int:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(ROOT),
               XDG_CONFIG_HOME=str(tmp_path / "config"), XDG_DATA_HOME=str(tmp_path / "data"))
    env.pop("QT_NO_GUI_THREADPOOL", None)  # the suite's own setting (conftest) is not the child's
    out = subprocess.run([sys.executable, "-c", POOL_CHILD.format(start=start)],
                         capture_output=True, text=True, timeout=60, env=env, cwd=tmp_path)
    lines = [line for line in out.stdout.splitlines() if line.startswith("POOLED ")]
    assert lines, out.stdout + out.stderr
    return int(lines[0].split()[1])


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_the_window_paints_on_its_own_thread_without_waiting_for_qts_pool(tmp_path):
    """Qt's raster engine hands big fills and scalings to a pool of threads and waits for
    them, which stalls the GUI thread while JAX holds the other cores: the window's
    process (``jaxviz.ui.app.main``) tells Qt not to (``QT_NO_GUI_THREADPOOL``)."""
    if (os.cpu_count() or 1) > 1:  # Qt makes no pool on one core: nothing to tell apart
        bare = "from PySide6.QtWidgets import QApplication\napp = QApplication([])\n" \
               "scale_and_count()"
        assert _pooled_threads(tmp_path, bare) > 0  # Qt's own way: the check can fail
    window = "from jaxviz.ui import app\n" \
             "sys.exit(app.main(['example:convolve'], on_painted=scale_and_count))"
    assert _pooled_threads(tmp_path, window) == 0
