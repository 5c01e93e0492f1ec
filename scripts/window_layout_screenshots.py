"""The README's pictures of the window's layouts for a projector, taken from real screens.

    .venv/bin/python scripts/window_layout_screenshots.py [OUT_DIR]      # default docs/images

Each picture is a first run of ``jaxviz example:NAME`` (fresh settings) on its own
Xvfb screen with openbox managing the window (as ``scripts/compare_screenshots.py``
does), maximized as a lecturer would, then:

* ``two_panes_{W}x{H}.png``: View ▸ Two Panes (Ctrl+Shift+2) with convolve's vmap
  on the left and pmap on the right;
* ``maximized_devices_{W}x{H}.png``: data_parallel's device view maximized (F6),
  at the end of its fourth phase.

at 1280x720 and 1920x1080. Needs Xvfb and openbox (``scripts/setup.sh --test``).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from jaxviz.ui.window.scripted import report_from_screen

SIZES = ((1280, 720), (1920, 1080))
#: (file name stem, example, what to do).
SHOTS = (("two_panes", "convolve", "two"), ("maximized_devices", "data_parallel", "devices"))


def shoot(out: str, example: str, what: str) -> int:
    """In a process on the virtual screen: the window, the layout, a shot."""
    from PySide6.QtCore import QTimer
    from PySide6.QtGui import QGuiApplication

    from jaxviz.ui import app

    def on_shown(window) -> None:
        window.showMaximized()
        start = time.monotonic()
        stage: list[float] = []

        def poll() -> None:
            now = time.monotonic()
            result = window.presenter.result
            traced = result is not None and result.function == window.state.function \
                and not window.session.pending and window.presenter.details is not None
            if traced and not stage and now - start > 2.0:  # placed and framed by openbox
                if what == "two":
                    window.state.set_two_panes(left="vmap", right="pmap")
                    window.actions_by_name["two_panes"].trigger()
                else:
                    window.actions_by_name["max_devices"].trigger()
                stage.append(now)
            elif stage and len(stage) == 1 and not window.session.pending:
                view = window.tools.devices.view
                if what == "devices" and (view is None or not view.phases):
                    QTimer.singleShot(100, poll)
                    return
                if what == "devices":
                    view.pause()
                    view.seek(3, 1.0)  # the tiles arrived on their devices
                stage.append(now)
            elif len(stage) == 2 and now - stage[-1] > 1.5:  # let every view paint
                QGuiApplication.primaryScreen().grabWindow(0).save(out)
                panes = window.area.shown_variants()
                widths = [window.area.panes[v].width() for v in panes]
                print(json.dumps({"panes": panes, "widths": widths,
                                  "area": window.area.width(),
                                  "maximized": window.state.maximized,
                                  "status": window.status_text.text()}), flush=True)
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
    for stem, example, what in SHOTS:
        for width, height in SIZES:
            path = out_dir / f"{stem}_{width}x{height}.png"
            report, stderr = report_from_screen(
                [sys.executable, __file__, "--shoot", str(path), example, what], width, height)
            if "error" in report:
                print(f"{path.name}: failed: {report['error']}\n{stderr[-2000:]}",
                      file=sys.stderr)
                return 1
            print(f"{path}: {report}")
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--shoot"]:
        sys.exit(shoot(*sys.argv[2:5]))
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("docs/images")))
