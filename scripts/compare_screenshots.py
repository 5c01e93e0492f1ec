"""The README's compare-layout screenshots, taken from real screens.

    .venv/bin/python scripts/compare_screenshots.py [OUT_DIR]      # default docs/images

Each picture is a first run of ``jaxviz example:convolve`` (fresh settings) on its
own Xvfb screen with openbox managing the window (as ``scripts/window_screenshots.py``
does), maximized as a lecturer would; then View ▸ Compare Variants with the pair
below, one row clicked, and the whole screen captured:

* ``compare_convolve_vmap_1280x720.png``: a 1280x720 projector (the projector
  layout), plain -> vmap, the first dot_general clicked (its source line lit in
  the editor, what changed in words under the sides);
* ``compare_convolve_pmap_1920x1080.png``: 1920x1080 with the side panels put away
  (Ctrl+B, as the step-mode pictures), plain -> pmap: pmap's wrapper and squeezes
  added, the per-device body unchanged.

Needs Xvfb and openbox (``scripts/setup.sh --test`` installs them).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from jaxviz.ui.window.scripted import virtual_screen

#: (file name, screen size, side panels put away, example, left, right, the jaxpr text of
#: the row to click).
SHOTS = (
    ("compare_convolve_vmap_1280x720.png", (1280, 720), False, "convolve", "plain", "vmap",
     "dot_general"),
    ("compare_convolve_pmap_1920x1080.png", (1920, 1080), True, "convolve", "plain", "pmap",
     "squeeze"),
)


def shoot(out: str, put_away: str, example: str, left: str, right: str, needle: str) -> int:
    """In a process on the virtual screen: the window, the comparison, a row clicked, a shot."""
    from PySide6.QtCore import QPoint, Qt, QTimer
    from PySide6.QtGui import QGuiApplication
    from PySide6.QtTest import QTest

    from jaxviz.ui import app

    def on_shown(window) -> None:
        window.showMaximized()
        if put_away == "yes" and window.docks["Gallery"].isVisible():
            window.toggle_side_panels()
        start = time.monotonic()
        stage: list[float] = []

        def poll() -> None:
            now = time.monotonic()
            result = window.presenter.result
            view = window.area.compare
            traced = result is not None and result.function == window.state.function \
                and not window.session.pending and window.presenter.details is not None
            if traced and not stage and now - start > 2.0:  # placed and framed by openbox
                window.state.compared = (left, right)
                stage.append(now)
            elif stage and len(stage) == 1 and view.diff is not None \
                    and not window.session.pending:
                side = view.columns.right
                line = next(n for n, text in enumerate(side.toPlainText().split("\n"))
                            if needle in text)
                rect = side.line_rect(line)
                QTest.mouseClick(side.viewport(), Qt.MouseButton.LeftButton,
                                 pos=QPoint(rect.width() // 2, rect.center().y()))
                stage.append(now)
            elif len(stage) == 2 and now - stage[-1] > 1.0:  # let every view paint
                QGuiApplication.primaryScreen().grabWindow(0).save(out)
                print(json.dumps({"summary": view.summary.text(),
                                  "status": window.status_text.text(),
                                  "maximized": window.isMaximized()}), flush=True)
                window.close()
                return
            if now - start > 300:
                print(json.dumps({"error": "gave up after 300 s"}), flush=True)
                window.close()
                return
            QTimer.singleShot(100, poll)

        QTimer.singleShot(100, poll)

    return app.main([f"example:{example}"], on_shown=on_shown)


def main(out_dir: Path) -> int:
    out_dir.mkdir(parents=True, exist_ok=True)
    for name, (width, height), put_away, example, left, right, needle in SHOTS:
        home = tempfile.mkdtemp(prefix="jaxviz-compare-shots-")
        path = out_dir / name
        with virtual_screen(width, height) as env:
            env = dict(env, XDG_CONFIG_HOME=os.path.join(home, "config"),
                       XDG_DATA_HOME=os.path.join(home, "data"))
            command = [sys.executable, __file__, "--shoot", str(path),
                       "yes" if put_away else "no", example, left, right, needle]
            out = subprocess.run(command, env=env, capture_output=True, text=True,
                                 timeout=600, check=False)
        lines = out.stdout.strip().splitlines()
        report = json.loads(lines[-1]) if lines else {"error": out.stderr[-2000:]}
        if out.returncode != 0 or "error" in report:
            print(f"{name}: failed: {report.get('error')}\n{out.stderr[-2000:]}", file=sys.stderr)
            return 1
        print(f"{path}: {width}x{height} screen, maximized {report['maximized']}; "
              f"{report['summary']}; {report['status']}")
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--shoot"]:
        sys.exit(shoot(*sys.argv[2:8]))
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("docs/images")))
