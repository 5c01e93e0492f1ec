"""The Values tab on a real screen: normalize's pmap stepped with the side panels shown.

    .venv/bin/python -m scripts.values_walk [OUT_DIR] [WxH]   # /tmp/jaxviz-values 1280x720

On its own Xvfb screen with openbox, fresh settings, the window maximized, the side
panels shown (Ctrl+B): step mode on normalize's pmap variant, every step in turn. Each
step's screen is saved as ``stepNN_WxH.png``, and a line says how tall the columns are
against the Values tab's view and how many device columns have their outputs cut at
the top or the foot of it (issue 27: the div step's output row was cut at 1280x720).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

from scripts.scripted import failed, report_from_screen


def walk(out_dir: str, size: str) -> int:
    """In a process on the virtual screen: step, shoot and measure every step."""
    from PySide6.QtCore import QPoint, QTimer
    from PySide6.QtGui import QGuiApplication

    from jaxviz.ui import app

    records: list[dict[str, Any]] = []

    def on_shown(window: Any) -> None:
        window.showMaximized()
        state = {"stepping": False, "since": time.monotonic(), "n": 0}

        def measure() -> dict[str, Any]:
            panel = window.tools.values.view
            viewport = panel.scroller.viewport()
            cut = 0
            for column in panel.columns:
                if column.isHidden() or column.outputs.isHidden():
                    continue
                y = column.outputs.mapTo(viewport, QPoint(0, 0)).y()
                cut += y < 0 or y + column.outputs.height() > viewport.height()
            return {"status": window.status_text.text(), "cut_outputs": cut,
                    "view": [viewport.width(), viewport.height()],
                    "content": [panel._content.width(), panel._content.height()]}

        def poll() -> None:
            now = time.monotonic()
            controller = window.step_mode.controller
            if not state["stepping"]:
                if window.state.details is not None and not window.session.pending \
                        and now - state["since"] > 2:
                    if not window.docks["Gallery"].isVisible():
                        window.toggle_side_panels()
                    window.step_mode.start("pmap")
                    state["stepping"], state["since"] = True, now
            elif controller.result is not None and not controller.busy \
                    and now - state["since"] > 1.5:  # shown and painted
                n = state["n"]
                QGuiApplication.primaryScreen().grabWindow(0).save(
                    str(Path(out_dir) / f"step{n:02d}_{size}.png"))
                records.append(measure())
                state["n"] += 1
                if n + 1 >= len(controller.result.steps):
                    print(json.dumps({"records": records}), flush=True)
                    window.close()
                    return
                window.step_mode.move("next")
                state["since"] = now
            QTimer.singleShot(100, poll)

        QTimer.singleShot(100, poll)

    return app.main(["example:normalize"], on_shown=on_shown)


def main(out_dir: Path, size: str) -> int:
    out_dir.mkdir(parents=True, exist_ok=True)
    width, height = (int(n) for n in size.split("x"))
    report, stderr = report_from_screen(
        [sys.executable, "-m", "scripts.values_walk", "--walk", str(out_dir), size],
        width, height, timeout=600)
    if failed(size, report, stderr):
        return 1
    for r in report["records"]:
        print(f"{size} {r['status']:<45} view {r['view']} columns {r['content']} "
              f"outputs cut: {r['cut_outputs']}")
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--walk"]:
        sys.exit(walk(*sys.argv[2:4]))
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("/tmp/jaxviz-values"),
                  sys.argv[2] if len(sys.argv) > 2 else "1280x720"))
