"""The main window driven by a script (benchmarks, screenshots), not by a person.

Call :func:`private_environment` before anything imports Qt: it picks Qt's
offscreen platform (with a 2560x1440 screen) when there is no display and points the settings and
recovery folders at a fresh temporary folder, so a script never reads or
writes the user's. Then :func:`open_window` gives a shown window on a started
engine and :func:`settle` runs the event loop until a condition holds.
:func:`virtual_screen` gives a real screen to open it on (Xvfb with a window
manager) and :func:`window_geometry` says where the window and its parts went.

Example:
    >>> home = private_environment("jaxviz-shots-")          # doctest: +SKIP
    >>> app, window, engine = open_window(home)              # doctest: +SKIP
    >>> settle(app, lambda: window.engine.info is not None)  # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from typing import Any


def offscreen_platform(folder: str, size: tuple[int, int] = (2560, 1440)) -> str:
    """``QT_QPA_PLATFORM`` for Qt's offscreen platform with one screen of ``size`` (its
    own is 800x800); the screen's description is written into ``folder``."""
    config = os.path.join(folder, "offscreen_screens.json")
    with open(config, "w", encoding="utf-8") as out:
        json.dump({"screens": [{"name": "offscreen", "x": 0, "y": 0, "width": size[0],
                                "height": size[1], "logicalDpi": 96, "dpr": 1}]}, out)
    return f"offscreen:configfile={config}"


def private_environment(prefix: str) -> str:
    """Offscreen (one 2560x1440 screen, where a window takes the size it is given)
    without a display; settings and recovery copies in a new temporary folder."""
    home = tempfile.mkdtemp(prefix=prefix)
    if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        os.environ.setdefault("QT_QPA_PLATFORM", offscreen_platform(home))
    os.environ["XDG_CONFIG_HOME"] = os.path.join(home, "config")
    os.environ["XDG_DATA_HOME"] = os.path.join(home, "data")
    return home


def open_window(home: str, devices: int = 8, size: tuple[int, int] = (1920, 1080),
                side_panels: bool = False) -> tuple[Any, Any, Any]:
    """``(app, window, engine)``: the main window shown at ``size`` on a started engine.

    Args:
        home: the folder from :func:`private_environment` (the settings file goes there).
        devices: the engine's device count.
        size: the window's size in pixels.
        side_panels: keep the gallery and arguments (else hidden, as with Ctrl+B).
    """
    from jaxviz.ui.display import prepare_qt

    prepare_qt()  # as the window's own process (before its application)
    from PySide6.QtCore import QSettings, Qt
    from PySide6.QtWidgets import QApplication

    from jaxviz.ui.qt_engine import QtEngine
    from jaxviz.ui.theme import style
    from jaxviz.ui.window.main_window import MainWindow
    from jaxviz.ui.window.settings import RememberedSettings

    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication(sys.argv[:1])
    style.apply_theme(app)
    engine = QtEngine(devices=devices, timeout=180.0)
    engine.start()
    settings = RememberedSettings(QSettings(os.path.join(home, "jaxviz.ini"),
                                            QSettings.Format.IniFormat))
    window = MainWindow(settings=settings, engine=engine)
    window.setWindowState(Qt.WindowState.WindowNoState)  # the size asked for, not the screen's
    window.resize(*size)
    window.show()
    window.start_engine()
    if not side_panels:
        window.toggle_side_panels()
    return app, window, engine


def settle(app: Any, condition: Callable[[], object], timeout: float = 180.0) -> None:
    """Run the event loop until ``condition()`` holds.

    Raises:
        TimeoutError: it did not within ``timeout`` seconds.
    """
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"gave up waiting after {timeout:g} s")
        app.processEvents()
        time.sleep(0.002)


def close_window(window: Any, engine: Any) -> None:
    """Stop the window's requests and its engine, and close it."""
    window.session.stop()
    engine.stop(wait=True)
    window.close()


def painted(app: Any, seconds: float = 0.5) -> None:
    """Run the event loop ``seconds`` longer, so every view paints what it was given."""
    until = time.monotonic() + seconds
    settle(app, lambda: time.monotonic() > until)


def screenshots(home: str, shoot: Callable[[Any, Any, Any], None], side_panels: bool = False,
                argv: list[str] | None = None) -> int:
    """The main of a screenshot script: ``shoot(app, window, out_dir)`` on a shown window.

    Args:
        home: the folder from :func:`private_environment`.
        shoot: takes the pictures into ``out_dir`` (a :class:`pathlib.Path`: the
            script's first argument, else ``docs/images``; made if missing).
        side_panels: show the gallery and arguments.
        argv: the script's arguments (default ``sys.argv[1:]``).
    """
    from pathlib import Path

    args = sys.argv[1:] if argv is None else argv
    out_dir = Path(args[0]) if args else Path("docs/images")
    app, window, engine = open_window(home, side_panels=side_panels)
    out_dir.mkdir(parents=True, exist_ok=True)
    try:
        shoot(app, window, out_dir)
    finally:
        close_window(window, engine)
    return 0


# --------------------------------------------------------------------------- #
# A real screen: Xvfb with a window manager
# --------------------------------------------------------------------------- #

#: What a window on a virtual screen needs: the X server and a window manager.
VIRTUAL_SCREEN_TOOLS = ("Xvfb", "openbox")


@contextlib.contextmanager
def virtual_screen(width: int, height: int, depth: int = 24,
                   timeout: float = 20.0) -> Iterator[dict[str, str]]:
    """An Xvfb screen of ``width`` x ``height`` with openbox managing its windows.

    Unlike Qt's offscreen platform, a real screen has a size the window
    cannot grow past and a window manager that frames and places it. Yields
    the environment to start a window on it with (``DISPLAY``,
    ``QT_QPA_PLATFORM=xcb``); both processes end with the block.

    Raises:
        FileNotFoundError: Xvfb or openbox is not installed (``scripts/setup.sh --test``
            installs them).
        TimeoutError: the server or the window manager did not come up.
    """
    missing = [tool for tool in VIRTUAL_SCREEN_TOOLS if shutil.which(tool) is None]
    if missing:
        raise FileNotFoundError(f"{' and '.join(missing)} not installed "
                                f"(Debian: apt-get install xvfb openbox)")
    read, write = os.pipe()
    xvfb = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write), "-screen", "0", f"{width}x{height}x{depth}",
         "-nolisten", "tcp"], pass_fds=(write,), stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL)
    os.close(write)
    processes = [xvfb]
    try:
        number = _read_line(read, timeout, "Xvfb did not say which display it opened")
        env = dict(os.environ, DISPLAY=f":{number}", QT_QPA_PLATFORM="xcb")
        processes.append(subprocess.Popen(["openbox", "--sm-disable"], env=env,
                                          stdout=subprocess.DEVNULL,
                                          stderr=subprocess.DEVNULL))
        _wait_for_window_manager(env, timeout)
        yield env
    finally:
        os.close(read)
        for process in reversed(processes):
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def report_from_screen(command: list[str], width: int, height: int,
                       timeout: float = 600.0) -> tuple[dict[str, Any], str]:
    """Run ``command`` (a script taking its pictures) on a fresh virtual screen, with
    fresh settings, and read the JSON report it prints last.

    Returns:
        ``(report, stderr)``: the report is ``{"error": ...}`` when the command failed
        or printed none.
    """
    home = tempfile.mkdtemp(prefix="jaxviz-shots-")
    with virtual_screen(width, height) as env:
        env = dict(env, XDG_CONFIG_HOME=os.path.join(home, "config"),
                   XDG_DATA_HOME=os.path.join(home, "data"))
        out = subprocess.run(command, env=env, capture_output=True, text=True,
                             timeout=timeout, check=False)
    lines = out.stdout.strip().splitlines()
    try:
        report = json.loads(lines[-1]) if lines else {"error": out.stderr[-2000:]}
    except json.JSONDecodeError:
        report = {"error": lines[-1]}
    if out.returncode != 0 and "error" not in report:
        report = {"error": f"exit code {out.returncode}"}
    return report, out.stderr


def failed(what: str, report: dict[str, Any], stderr: str) -> bool:
    """Say on stderr why ``what`` failed when :func:`report_from_screen`'s report is an
    error (with the end of its stderr); True then."""
    if "error" not in report:
        return False
    print(f"{what}: failed: {report['error']}\n{stderr[-3000:]}", file=sys.stderr)
    return True


def _read_line(fd: int, timeout: float, what: str) -> str:
    data = b""
    deadline = time.monotonic() + timeout
    while not data.endswith(b"\n"):
        ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        chunk = os.read(fd, 64) if ready else b""
        if not chunk:
            raise TimeoutError(what)
        data += chunk
    return data.decode().strip()


def _wait_for_window_manager(env: dict[str, str], timeout: float) -> None:
    """Until the window manager has announced itself on the root window (EWMH)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        probe = subprocess.run(["xprop", "-root", "_NET_SUPPORTING_WM_CHECK"], env=env,
                               capture_output=True, text=True, check=False)
        if probe.returncode == 0 and "window id" in probe.stdout:
            return
        time.sleep(0.1)
    raise TimeoutError("the window manager did not start")


def window_geometry(window: Any) -> dict[str, Any]:
    """Where the window and its parts are, in the screen's logical pixels (for checks
    and reports): its frame and content, each dock and the status bar (None when
    hidden), the screen's available geometry and pixel ratio, the title, the X id."""
    from PySide6.QtCore import QRect

    def global_rect(widget: Any) -> list[int] | None:
        if not widget.isVisible():
            return None
        top_left = widget.mapToGlobal(widget.rect().topLeft())
        return [top_left.x(), top_left.y(), widget.width(), widget.height()]

    def plain(rect: QRect) -> list[int]:
        return [rect.x(), rect.y(), rect.width(), rect.height()]

    screen = window.screen()
    return {
        "frame": plain(window.frameGeometry()), "content": plain(window.geometry()),
        "docks": {name: global_rect(dock) for name, dock in window.docks.items()},
        "status_bar": global_rect(window.statusBar()), "menu_bar": global_rect(window.menuBar()),
        "panes": window.area.visible_variants, "maximized": window.isMaximized(),
        "available": plain(screen.availableGeometry()), "scale": screen.devicePixelRatio(),
        "title": window.windowTitle(), "window_id": int(window.winId()),
        "minimum": [window.minimumSizeHint().width(), window.minimumSizeHint().height()],
    }


def report_when_settled(window: Any, shot: str | None = None, wait_for_result: bool = False,
                        hold: bool = False, tab: str = "", phase: int = 0,
                        timeout: float = 120.0) -> None:
    """Print :func:`window_geometry` as one JSON line once the window has settled, then close it.

    Settled: framed by the window manager, its place checked against the screens
    (after :data:`~jaxviz.ui.window.layout.SCREEN_CHECKS_MS`), unchanged for half
    a second and, with ``wait_for_result``, showing the engine's result.

    Args:
        window: the shown main window (``jaxviz.ui.app.main``'s ``on_shown``).
        shot: save a screenshot of the whole screen there (window manager's frame included).
        wait_for_result: wait for the traced result and its details too.
        hold: after printing, wait for a line on standard input before closing (so a
            caller can look at the window with other tools meanwhile).
        tab: once the result is shown, bring this tab of the tool dock to the front
            (``Devices``, ``Timing`` ...) and let it draw for two seconds.
        phase: with the Devices tab, hold the animation at this phase (1 is the first).
        timeout: report anyway after this many seconds (``"settled": false``).
    """
    from PySide6.QtCore import QSocketNotifier, QTimer
    from PySide6.QtGui import QGuiApplication

    from jaxviz.ui.window.layout import SCREEN_CHECKS_MS

    start = time.monotonic()
    earliest = start + max(SCREEN_CHECKS_MS) / 1000 + 0.5
    seen: list[Any] = []
    switched: list[float] = []

    def poll() -> None:
        now = time.monotonic()
        place = (window.frameGeometry().getRect(), window.geometry().getRect())
        seen.append(place)
        framed = place[0] != place[1]
        steady = len(seen) >= 6 and all(p == place for p in seen[-6:])
        ready = not wait_for_result or (window.router.details is not None
                                        and not window.session.pending
                                        and not window.busy_bar.isVisible())
        if ready and tab and not switched:
            tabs = window.tools
            tabs.setCurrentIndex(next(i for i in range(tabs.count()) if tabs.tabText(i) == tab))
            switched.append(now)
        view = window.tools.devices.view
        if switched and phase and view is not None and view.phases and len(switched) == 1:
            view.pause()
            view.seek(phase - 1)
            switched.append(now)
        ready = ready and (not tab or (bool(switched) and now - switched[-1] > 2.0))
        if not (framed and steady and ready and now > earliest) and now - start < timeout:
            QTimer.singleShot(100, poll)
            return
        report = dict(window_geometry(window), settled=now - start < timeout,
                      status=window.status_text.text())
        if shot:
            QGuiApplication.primaryScreen().grabWindow(0).save(shot)
        print(json.dumps(report), flush=True)
        if hold:  # the window keeps taking input (keys, clicks) until the line comes
            notifier = QSocketNotifier(sys.stdin.fileno(), QSocketNotifier.Type.Read, window)

            def release(*_args: object) -> None:
                notifier.setEnabled(False)
                sys.stdin.readline()
                window.close()

            notifier.activated.connect(release)
            return
        window.close()

    QTimer.singleShot(100, poll)


def shoot_after_stages(window: Any, out: str, stages: list[Callable[[], bool]],
                       report: Callable[[], dict[str, Any]], settle: float = 1.0,
                       timeout: float = 300.0) -> None:
    """Drive a window on a virtual screen to a picture, polling every 100 ms.

    Once the window's trace of its function is in (details too) and the window
    manager has had 2 s to place and frame it, each of ``stages`` is called in turn
    until it returns True (it is done); then every view gets ``settle`` seconds to
    paint, the whole screen is saved to ``out``, ``report()`` is printed as one JSON
    line (as :func:`report_from_screen` reads it) and the window closes. After
    ``timeout`` seconds it prints ``{"error": ...}`` and closes instead.
    """
    from PySide6.QtCore import QTimer
    from PySide6.QtGui import QGuiApplication

    start = time.monotonic()
    done: list[float] = []  # when the trace came in, then when each stage was done

    def traced() -> bool:
        result = window.router.result
        return (result is not None and result.function == window.state.function
                and not window.session.pending and window.router.details is not None)

    def poll() -> None:
        now = time.monotonic()
        if not done:
            if traced() and now - start > 2.0:  # placed and framed by the window manager
                done.append(now)
        elif len(done) <= len(stages):
            if stages[len(done) - 1]():
                done.append(now)
        elif now - done[-1] > settle:  # let every view paint
            QGuiApplication.primaryScreen().grabWindow(0).save(out)
            print(json.dumps(report()), flush=True)
            window.close()
            return
        if now - start > timeout:
            print(json.dumps({"error": f"gave up after {timeout:.0f} s"}), flush=True)
            window.close()
            return
        QTimer.singleShot(100, poll)

    QTimer.singleShot(100, poll)


def _main(argv: list[str]) -> int:
    """``python -m scripts.scripted [--shot PNG] [--wait-result] [--hold] [--tab T]
    [--phase N] [-- ARGS]``:
    ``jaxviz ARGS`` in this environment, reported by :func:`report_when_settled`."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m scripts.scripted")
    parser.add_argument("--shot")
    parser.add_argument("--wait-result", action="store_true")
    parser.add_argument("--hold", action="store_true")
    parser.add_argument("--tab", default="", help="the tool dock's tab to show (Devices ...)")
    parser.add_argument("--phase", type=int, default=0, help="the Devices tab's phase (1...)")
    parser.add_argument("args", nargs="*", help="what `jaxviz` is given")
    ns = parser.parse_args(argv)
    from jaxviz.ui import app

    return app.main(ns.args, on_shown=lambda window: report_when_settled(
        window, ns.shot, ns.wait_result, ns.hold, ns.tab, ns.phase))


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
