"""Issue 16's pictures: the window on real screens (Xvfb + openbox), 1366x768 and 1920x1080.

    .venv/bin/python scripts/one_state_screenshots.py [OUT_DIR]     # default docs/images

For each screen, a maximized window on the real engine, example:convolve:

* ``one_state_side_panels_WxH.png``: the gallery and the arguments shown (Ctrl+B);
* ``one_state_shortcuts_WxH.png``: the shortcut list (F1) on that screen;
* ``one_state_devices_zoom_WxH.png``: the Devices tab at zoom +3 (Ctrl+= three times);
* ``one_state_timing_WxH.png``: the Timing tab after a small run, with a banner.

Needs Xvfb and openbox (``scripts/setup.sh --test`` installs them).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

SCREENS = ((1366, 768), (1920, 1080))


def child(width: int, height: int, out_dir: Path) -> int:
    """In the virtual screen's environment: take the pictures of one screen."""
    from PySide6.QtGui import QGuiApplication

    from scripts.scripted import close_window, open_window, settle

    home = tempfile.mkdtemp(prefix="jaxviz-one-state-")
    app, window, engine = open_window(home, size=(width, height), side_panels=True)
    window.showMaximized()
    window.open_example("convolve")
    settle(app, lambda: window.router.details is not None and not window.session.pending,
           timeout=300)

    def shot(name: str, wait: float = 1.0) -> None:
        end = __import__("time").monotonic() + wait
        settle(app, lambda: __import__("time").monotonic() > end)
        QGuiApplication.primaryScreen().grabWindow(0).save(
            str(out_dir / f"one_state_{name}_{width}x{height}.png"))

    for dock in (window.docks["Gallery"], window.docks["Arguments"]):
        dock.show()
    shot("side_panels", 2.0)
    dialog = window.show_shortcuts()
    shot("shortcuts")
    dialog.close()
    window.show_tool(window.tools.devices)
    settle(app, lambda: window.tools.devices.view is not None
           and bool(window.tools.devices.view.phases))
    for _ in range(3):
        window.zoom_by(1)
    view = window.tools.devices.view
    view.pause()
    view.seek(5)
    shot("devices_zoom", 2.0)
    window.set_zoom(0)
    window.open_example("async_dispatch")
    settle(app, lambda: window.router.result is not None and not window.session.pending,
           timeout=300)
    window.show_tool(window.tools.timing)
    timing = window.tools.timing.view
    timing.controls.set_checked(["jit"])
    timing.controls.runs.setValue(6)
    timing.controls.pipeline.setValue(4)
    timing.run_timing()
    settle(app, lambda: not timing.running, timeout=300)
    timing.plots.show_kind("timeline")
    timing.banner.show_message("Copied the timeline plot (1280×720) to the clipboard.", "info")
    shot("timing", 2.0)
    close_window(window, engine)
    return 0


def main(out_dir: Path) -> int:
    from scripts.scripted import virtual_screen

    out_dir.mkdir(parents=True, exist_ok=True)
    for width, height in SCREENS:
        home = tempfile.mkdtemp(prefix="jaxviz-one-state-shots-")
        with virtual_screen(width, height) as env:
            env = dict(env, XDG_CONFIG_HOME=os.path.join(home, "config"),
                       XDG_DATA_HOME=os.path.join(home, "data"))
            out = subprocess.run([sys.executable, __file__, "--child", str(width), str(height),
                                  str(out_dir)], env=env, capture_output=True, text=True,
                                 timeout=900, check=False)
        if out.returncode != 0:
            print(f"{width}x{height}: failed\n{out.stderr}", file=sys.stderr)
            return 1
        print(f"{width}x{height}: done")
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        sys.exit(child(int(sys.argv[2]), int(sys.argv[3]), Path(sys.argv[4])))
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("docs/images")))
