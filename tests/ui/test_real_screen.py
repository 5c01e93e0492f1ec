"""`jaxviz` on a real screen: Xvfb with a window manager (openbox), as a lecture laptop
has one. The offscreen platform resizes freely; a real screen does not, and its window
manager adds a frame. Each case starts `jaxviz` in its own process (the platform is
chosen when Qt starts) and reads back where the window went twice: from Qt
(scripted.window_geometry) and from the X server (xwininfo, xprop)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import pytest

from scripts.scripted import VIRTUAL_SCREEN_TOOLS, virtual_screen

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("Xvfb") is None,
                       reason="Xvfb is not installed (Debian: xvfb; scripts/setup.sh installs it)"),
]


@contextmanager
def jaxviz_on(env: dict[str, str], home: Path, *args: str):
    """`jaxviz ARGS` with its settings under ``home``; yields its report once it has settled
    (the window stays open until the block ends)."""
    env = dict(env, XDG_CONFIG_HOME=str(home / "config"), XDG_DATA_HOME=str(home / "data"))
    child = subprocess.Popen(
        [sys.executable, "-m", "scripts.scripted", "--hold", "--", *args],
        env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True)
    try:
        line = child.stdout.readline()
        assert line, f"jaxviz reported nothing: {child.stderr.read()}"
        yield json.loads(line)
        child.stdin.write("\n")
        child.stdin.flush()
        assert child.wait(timeout=120) == 0, child.stderr.read()
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()


def x_frame(env: dict[str, str], window_id: int) -> tuple[int, int, int, int]:
    """The window's frame as the X server has it (window manager's decorations included),
    in physical pixels: ``(x, y, width, height)``."""
    out = subprocess.run(["xwininfo", "-frame", "-id", str(window_id)], env=env,
                         capture_output=True, text=True, check=True, timeout=30).stdout
    value = {key: int(re.search(rf"{key}:\s+(-?\d+)", out).group(1)) for key in
             ("Absolute upper-left X", "Absolute upper-left Y", "Width", "Height")}
    return tuple(value.values())  # type: ignore[return-value]


def x_title(env: dict[str, str], window_id: int) -> str:
    out = subprocess.run(["xprop", "-id", str(window_id), "_NET_WM_NAME"], env=env,
                         capture_output=True, text=True, check=True, timeout=30).stdout
    return out.split("=", 1)[1].strip().strip('"')


def inside(outer, inner, slack: int = 0) -> bool:
    ox, oy, ow, oh = outer
    x, y, w, h = inner
    return x >= ox - slack and y >= oy - slack and x + w <= ox + ow + slack \
        and y + h <= oy + oh + slack


def assert_whole_window_on_screen(report: dict, slack: int = 0) -> None:
    """Frame, menu bar, status bar and every dock shown lie on the screen (Qt's view)."""
    screen = report["available"]
    assert inside(screen, report["frame"], slack), report
    for part in ("menu_bar", "status_bar"):
        assert report[part] is not None and inside(screen, report[part], slack), (part, report)
    tools = report["docks"]["Console · Devices · Timing"]
    assert tools is not None and inside(screen, tools, slack) and tools[3] >= 100, report
    for name, rect in report["docks"].items():
        assert rect is None or inside(screen, rect, slack), (name, report)


@pytest.fixture(scope="module")
def tools_present():
    missing = [t for t in (*VIRTUAL_SCREEN_TOOLS, "xwininfo", "xprop", "xdotool")
               if not shutil.which(t)]
    if missing:
        pytest.fail(f"{', '.join(missing)} missing: scripts/setup.sh --test installs openbox, "
                    f"x11-utils and xdotool")


def test_the_first_window_on_a_1280x720_projector_fits_it_with_its_docks(tools_present,
                                                                           tmp_path):
    with virtual_screen(1280, 720) as env, jaxviz_on(env, tmp_path) as report:
        assert report["settled"], report
        assert report["available"] == [0, 0, 1280, 720] and report["scale"] == 1
        assert_whole_window_on_screen(report)
        assert report["maximized"] and report["panes"] == ["plain", "vmap"]
        # The editor and two panes take the width; the side panels wait for Ctrl+B.
        assert report["docks"]["Gallery"] is None and report["docks"]["Arguments"] is None
        # The X server agrees: the frame openbox drew is on the screen, the title is plain.
        assert inside((0, 0, 1280, 720), x_frame(env, report["window_id"]))
        assert x_title(env, report["window_id"]) == "convolve — jaxviz"


def test_2560x1440_at_scale_2_gets_the_projector_layout_on_screen(tools_present, tmp_path):
    with virtual_screen(2560, 1440) as env:
        env = dict(env, QT_SCALE_FACTOR="2")
        with jaxviz_on(env, tmp_path) as report:
            assert report["scale"] == 2 and report["available"] == [0, 0, 1280, 720]
            # Qt rounds the frame's half pixels (a 19-pixel title bar is 9.5 logical ones).
            assert_whole_window_on_screen(report, slack=1)
            assert report["maximized"] and report["panes"] == ["plain", "vmap"]
            assert inside((0, 0, 2560, 1440), x_frame(env, report["window_id"]))


def test_a_window_remembered_on_a_large_screen_fits_the_projector(tools_present, tmp_path):
    with virtual_screen(2560, 1440) as env, jaxviz_on(env, tmp_path) as desk:
        assert not desk["maximized"]
        assert_whole_window_on_screen(desk)
        # The planned 2048x1224 frame (80 % of the screen), centred, give or take the
        # title bar openbox drew (the size is set before the window manager frames it).
        x, y, width, height = desk["frame"]
        assert abs(width - 2048) <= 4 and abs(height - 1224) <= 32
        assert abs(x - (2560 - width) // 2) <= 2 and abs(y - (1440 - height) // 2) <= 32
    # Next lecture, the same account on a 1280x720 projector: the remembered window is
    # put on that screen whole.
    with virtual_screen(1280, 720) as env, jaxviz_on(env, tmp_path) as projector:
        assert_whole_window_on_screen(projector)
        assert inside((0, 0, 1280, 720), x_frame(env, projector["window_id"]))


def test_the_zoom_keys_zoom_on_a_real_keyboard(tools_present, tmp_path):
    """Ctrl+=, Ctrl++ (Ctrl+Shift+= on a US keymap), Ctrl+keypad + each zoom in, as X key
    presses to the focused window (xdotool); the zoom is remembered (read back from the
    settings file after the window closed)."""
    keys = ["ctrl+equal", "ctrl+plus", "ctrl+shift+equal", "ctrl+KP_Add", "ctrl+minus"]
    with virtual_screen(1280, 720) as env, jaxviz_on(env, tmp_path) as report:
        subprocess.run(["xdotool", "windowactivate", "--sync", str(report["window_id"])],
                       env=env, check=True, timeout=30)
        # at a person's pace (a key every 150 ms): at 50 ms on a loaded machine one of the
        # five was once not applied (zoom 4, not 3)
        subprocess.run(["xdotool", "key", "--delay", "150", *keys], env=env, check=True,
                       timeout=30)
    conf = (tmp_path / "config" / "jaxviz" / "jaxviz.conf").read_text()
    assert re.search(r"^zoom=3$", conf, re.MULTILINE), conf
