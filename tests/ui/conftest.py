"""GUI tests: offscreen Qt (the suite's conftest gives it one 2560x1440 screen and a
private settings/data folder), one shared JAX engine.

On that screen the first window is an ordinary 2048x1224 one, not maximized, which
tests can resize. Waits are generous (the machine has two shared cores); they bound a
test, they do not time it.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture(scope="session")
def shared_engine(qapp):
    """One engine process (8 devices) for the whole GUI suite; tests that restart it restore it."""
    from jaxviz.ui.qt_engine import QtEngine
    from jaxviz.ui.theme import style

    style.apply_theme(qapp)
    engine = QtEngine(devices=8, timeout=60.0)
    engine.start()
    yield engine
    engine.stop(wait=True)


@pytest.fixture(scope="session")
def measured_run(tmp_path_factory):
    """A small real run with every plot: pmap matmul on 4 devices (pipelined), NumPy and jit
    with a size sweep, measured by `jaxviz time` in the engine."""
    import subprocess
    import sys

    from jaxviz.views.timing.export import read_json

    out = tmp_path_factory.mktemp("run")
    proc = subprocess.run(
        [sys.executable, "-m", "jaxviz", "time", "example:batched_matmul", "--args",
         "f32[32,32], f32[32,32]", "--variants", "numpy,jit,pmap", "--runs", "4", "--warmup",
         "1", "--pipeline", "3", "--sweep", "n=16,32", "--sweep-args", "f32[n,n], f32[n,n]",
         "--devices", "4", "--no-plots", "--out", str(out)],
        capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return read_json(out / "timings.json")


@pytest.fixture
def settings(tmp_path):
    """RememberedSettings in a fresh ini file, so every test starts from the defaults."""
    from PySide6.QtCore import QSettings

    from jaxviz.ui.window.settings import RememberedSettings

    return RememberedSettings(QSettings(str(tmp_path / "jaxviz.ini"), QSettings.Format.IniFormat))


@pytest.fixture(autouse=True)
def no_modal_dialogs(monkeypatch):
    """A modal dialog would wait forever offscreen: record it and answer "Discard"/OK."""
    from PySide6.QtWidgets import QMessageBox

    asked: list[str] = []

    def answer(default):
        def fake(_parent, title, text, *args, **kwargs):
            asked.append(f"{title}: {text}")
            return default
        return fake

    monkeypatch.setattr(QMessageBox, "question", answer(QMessageBox.StandardButton.Discard))
    monkeypatch.setattr(QMessageBox, "warning", answer(QMessageBox.StandardButton.Ok))
    monkeypatch.setattr(QMessageBox, "information", answer(QMessageBox.StandardButton.Ok))
    return asked


@pytest.fixture
def make_window(qtbot, shared_engine, settings, tmp_path, monkeypatch):
    """Makes shown main windows on the shared engine, all with the test's settings file
    (a second one starts from what the first remembered); recovery copies under tmp_path."""
    from PySide6.QtCore import Qt

    from jaxviz.ui.window import settings as settings_module
    from jaxviz.ui.window.main_window import MainWindow

    monkeypatch.setattr(settings_module, "recovery_dir", lambda: tmp_path / "recovery")

    def make(width: int = 1600, height: int = 950):
        win = MainWindow(settings=settings, engine=shared_engine)
        qtbot.addWidget(win)
        # The size tests expect, whatever the screen's plan said (maximized on a small one).
        win.setWindowState(Qt.WindowState.WindowNoState)
        win.resize(width, height)
        win.show()
        qtbot.waitExposed(win)
        win.start_engine()
        return win

    return make


@pytest.fixture
def window(make_window) -> Iterator:
    """A shown main window on the shared engine, 1600x950, recovery copies under tmp_path."""
    win = make_window()
    yield win
    win.session.stop()
    win.document.editor.document().setModified(False)


@pytest.fixture(autouse=True)
def unzoomed_application_font():
    """Every test starts at zoom 0: a test that zoomed the window leaves the application's
    font larger (the zoom is application-wide), which would change the next test's layout."""
    yield
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    if app is not None and app.property("jaxviz_themed"):
        from jaxviz.ui.theme import style

        app.setFont(style.ui_font(0))
