"""The main window driven by a script (benchmarks, screenshots), not by a person.

Call :func:`private_environment` before anything imports Qt: it picks Qt's
offscreen platform when there is no display and points the settings and
recovery folders at a fresh temporary folder, so a script never reads or
writes the user's. Then :func:`open_window` gives a shown window on a started
engine and :func:`settle` runs the event loop until a condition holds.

Example:
    >>> home = private_environment("jaxviz-shots-")          # doctest: +SKIP
    >>> app, window, engine = open_window(home)              # doctest: +SKIP
    >>> settle(app, lambda: window.engine.info is not None)  # doctest: +SKIP
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any


def private_environment(prefix: str) -> str:
    """Offscreen without a display; settings and recovery copies in a new temporary folder."""
    if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    home = tempfile.mkdtemp(prefix=prefix)
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
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from jaxviz.ui.theme import style
    from jaxviz.ui.window.main_window import MainWindow
    from jaxviz.ui.window.qt_engine import QtEngine
    from jaxviz.ui.window.settings import Settings

    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication(sys.argv[:1])
    style.apply_theme(app)
    engine = QtEngine(devices=devices, timeout=180.0)
    engine.start()
    settings = Settings(QSettings(os.path.join(home, "jaxviz.ini"), QSettings.Format.IniFormat))
    window = MainWindow(settings=settings, engine=engine)
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
