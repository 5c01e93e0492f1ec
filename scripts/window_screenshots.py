"""The README's pictures of the main window, taken from a real screen.

    .venv/bin/python scripts/window_screenshots.py [OUT_DIR]      # default docs/images

Each picture is a first run of ``jaxviz`` (fresh settings) on its own Xvfb screen with
openbox managing the window, as on a lecture laptop: the screen is captured once the
window has settled and shows the engine's result (a window smaller than the screen is
cut out of it, its frame included).

* ``main_window.png``: 1920x1080, example:convolve;
* ``main_window_1366x768.png``: a 1366x768 laptop (the projector layout);
* ``main_window_1280x720.png``: a 1280x720 projector;
* ``main_window_devices_1280x720.png``: example:data_parallel on the 1280x720
  projector with the Devices tab in front, held at its psum (phase 5).

Needs Xvfb and openbox (``scripts/setup.sh --test`` installs them).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from PIL import Image

from scripts.scripted import virtual_screen

#: (file name, screen size, what `jaxviz` is given, the tool dock's tab in front,
#: its phase).
SHOTS = (
    ("main_window.png", (1920, 1080), [], "", 0),
    ("main_window_1366x768.png", (1366, 768), [], "", 0),
    ("main_window_1280x720.png", (1280, 720), [], "", 0),
    ("main_window_devices_1280x720.png", (1280, 720), ["example:data_parallel"], "Devices", 5),
)


def main(out_dir: Path) -> int:
    out_dir.mkdir(parents=True, exist_ok=True)
    for name, (width, height), args, tab, phase in SHOTS:
        home = tempfile.mkdtemp(prefix="jaxviz-window-shots-")
        path = out_dir / name
        with virtual_screen(width, height) as env:
            env = dict(env, XDG_CONFIG_HOME=os.path.join(home, "config"),
                       XDG_DATA_HOME=os.path.join(home, "data"))
            command = [sys.executable, "-m", "scripts.scripted", "--shot", str(path),
                       "--wait-result", *(["--tab", tab, "--phase", str(phase)] if tab else []),
                       "--", *args]
            out = subprocess.run(command, env=env, capture_output=True, text=True,
                                 timeout=600, check=False)
        if out.returncode != 0 or not out.stdout.strip():
            print(f"{name}: failed\n{out.stderr}", file=sys.stderr)
            return 1
        report = json.loads(out.stdout.splitlines()[-1])
        if not report["maximized"]:  # the window alone (its frame included), not the desktop
            x, y, w, h = report["frame"]
            with Image.open(path) as screen:
                screen.crop((x, y, x + w, y + h)).save(path)
        print(f"{path}: {width}x{height}, window frame {report['frame']}, "
              f"panes {', '.join(report['panes'])}; {report['status']}")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("docs/images")))
