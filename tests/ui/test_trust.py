"""What runs, and when: the window's trust rule (README, "What runs, and when").

Examples and text typed in a new document run as they are edited; a file
opened from disk, or the source inside a timing recording, is shown and runs
only once the user presses Trace (F5) or Run in the timing view. A file run
once is remembered with its content and traces at once when it comes back
unchanged. Every file here writes a marker when its top level runs, so the
tests see from outside whether it ran.
"""

from __future__ import annotations

import stat
import time
from pathlib import Path

import pytest
from PySide6.QtWidgets import QPushButton

from jaxviz.model import Target, TraceRequest
from jaxviz.model.timing import TimingRequest, TimingRun
from jaxviz.ui.window.main_window import MainWindow
from jaxviz.ui.window.settings import Recovery
from jaxviz.views.timing.export import write_json
from tests.helpers.window import JAX_MS, flush_events, wait_for_panes

# Not in the fast tier: the window on the real engine.
pytestmark = pytest.mark.slow


def marking(marker: Path, body: str = "x * 2") -> str:
    """A file that declares its settings and leaves ``marker`` behind when it runs."""
    return (f"open({str(marker)!r}, 'a').write('ran\\n')\n\n\n"
            f"def double(x):\n    return {body}\n\n\n"
            'JAXVIZ = {"function": "double", "args": "f32[4]"}\n')


def _plain(win) -> str:
    return win.area.panes["plain"].jaxpr_view.toPlainText()


def _settle(qtbot, win) -> None:
    """Until a trace would have been sent and answered, had one been asked for: the events
    already posted are delivered (a request starts the session's debounce), then the
    session has nothing pending."""
    flush_events()
    wait_for_panes(qtbot, win)


def test_an_opened_file_declaring_settings_waits_for_trace(qtbot, window, tmp_path):
    marker = tmp_path / "ran"
    path = tmp_path / "lecture.py"
    path.write_text(marking(marker))
    window.open_file(str(path))
    _settle(qtbot, window)
    assert not marker.exists(), "opening the file ran it"
    assert "def double" in window.editor.toPlainText()        # shown
    assert window.args_panel.edits["args"].text() == "f32[4]"  # its settings read, not run
    notice = window.editor_panel.notice
    assert notice.isVisible() and "lecture.py has not run" in notice.label.text()
    assert "press Trace (F5)" in window.status_text.text()
    window.editor.textCursor().insertText("# an edit\n")  # editing is not running
    _settle(qtbot, window)
    assert not marker.exists()
    [trace] = [b for b in notice.findChildren(QPushButton) if b.text() == "Trace (run it)"]
    trace.click()
    wait_for_panes(qtbot, window, lambda: "mul" in _plain(window))
    assert marker.exists() and not notice.isVisible()
    runs = marker.read_text().count("ran")  # one per request (jaxprs, then details)
    # From now on it is the user's file: edits re-trace without asking.
    window.editor.textCursor().insertText("# another edit\n")
    qtbot.waitUntil(lambda: marker.read_text().count("ran") > runs, timeout=JAX_MS)


def test_step_mode_on_an_opened_file_waits_for_trace_too(qtbot, window, tmp_path):
    """Stepping runs the code: F9 on a file just opened says to press Trace, and runs nothing."""
    window.open_example("psum_ones")  # panes with Step buttons, from the example
    wait_for_panes(qtbot, window)
    marker = tmp_path / "ran"
    path = tmp_path / "lecture.py"
    path.write_text(marking(marker))
    window.open_file(str(path))
    _settle(qtbot, window)
    window.actions_by_name["step_mode"].trigger()
    _settle(qtbot, window)
    assert not marker.exists(), "step mode ran a file the user has not run"
    assert not window.step_mode.active
    assert window.status_text.text() == ("cannot step: lecture.py has not run yet; press "
                                         "Trace (F5) to run it, then Step")
    assert window.editor_panel.notice.isVisible()
    window.retrace()  # the user's say; now Step steps this file
    wait_for_panes(qtbot, window, lambda: "mul" in _plain(window))
    window.actions_by_name["step_mode"].trigger()
    qtbot.waitUntil(lambda: window.step_mode.active, timeout=JAX_MS)
    assert window.step_mode.controller.request.trace.target.source == path.read_text()
    window.step_mode.controller.stop()


def test_a_file_run_before_traces_at_once_unless_it_changed(qtbot, window, tmp_path,
                                                           shared_engine, settings):
    marker = tmp_path / "ran"
    path = tmp_path / "lecture.py"
    path.write_text(marking(marker))
    window.open_file(str(path))
    window.retrace()  # F5
    wait_for_panes(qtbot, window, lambda: "mul" in _plain(window))
    assert settings.trusted.knows(path, path.read_text())
    again = MainWindow(settings=settings, engine=shared_engine)
    qtbot.addWidget(again)
    again.show()
    again.start_engine()
    marker.unlink()
    again.open_file(str(path))  # the same content: it traces at once
    wait_for_panes(qtbot, again, lambda: "mul" in _plain(again))
    assert marker.exists() and not again.editor_panel.notice.isVisible()
    for win in (window, again):  # closed in jaxviz (an open, run file follows its edits)
        win.open_example("psum_ones")
    wait_for_panes(qtbot, again)
    marker.unlink()
    path.write_text(marking(marker, "x + 2"))  # changed outside jaxviz since
    again.open_file(str(path))
    _settle(qtbot, again)
    assert not marker.exists(), again.status_text.text()
    assert again.editor_panel.notice.isVisible(), again.status_text.text()
    again.document.editor.document().setModified(False)


def test_a_file_saved_from_jaxviz_is_the_users_own(qtbot, window, tmp_path, settings):
    window.new_file()  # typed here: runs as it is edited
    wait_for_panes(qtbot, window, lambda: "sin" in _plain(window))
    path = tmp_path / "mine.py"
    window.document.save_to(path)
    assert settings.trusted.knows(path, path.read_text())


def test_a_recordings_source_opens_untitled_and_runs_only_on_run(qtbot, window, tmp_path):
    marker = tmp_path / "ran"
    on_disk = tmp_path / "lecture.py"
    on_disk.write_text("def double(x):\n    return x\n")  # not what the recording holds
    source = marking(marker)
    trace = TraceRequest(target=Target(source, str(on_disk), "double"), args="f32[4]")
    run = TimingRun(request=TimingRequest(trace=trace, variants=["jit"], runs=2, warmup=0,
                                          pipeline=0), complete=True)
    path = write_json(run, tmp_path / "timings.json")
    window.open_target(str(path))
    _settle(qtbot, window)
    assert not marker.exists(), "opening a recording ran its source"
    # The recorded code is in front of the user, as an untitled document that has not run.
    assert window.editor.toPlainText() == source
    assert window.document.doc.path is None and not window.document.doc.trusted
    assert window.editor_panel.file_label.text() == "untitled.py (recorded in lecture.py)"
    assert window.editor_panel.notice.isVisible()
    view = window.tools.timing.view
    assert view.recording == str(path) and view.controls.run_button.isEnabled()
    # Run on it: the user's say. It measures the code shown, and the window traces it.
    view.controls.run_button.click()
    qtbot.waitUntil(lambda: not view.running and view.run is not None
                    and view.run.header is not None, timeout=2 * JAX_MS)
    assert marker.exists()
    assert view.run.request.trace.target.source == source
    assert window.document.doc.trusted
    wait_for_panes(qtbot, window, lambda: "mul" in _plain(window))


def test_opening_a_file_that_is_not_utf8_keeps_the_window_usable(qtbot, window, tmp_path):
    window.open_example("convolve")
    wait_for_panes(qtbot, window, lambda: window.router.result is not None)
    before = window.editor.toPlainText()
    data = b"def f(x):\n    return x  # caf\xe9\n"
    (tmp_path / "latin1.py").write_bytes(data)
    window.open_file(str(tmp_path / "latin1.py"))
    status = window.status_text.text()
    assert "latin1.py: it is not UTF-8 text" in status
    assert f"offset {data.index(0xe9)}" in status and window._status_is_error
    assert window.editor.toPlainText() == before  # nothing typed is lost
    window.retrace()  # and the window still works
    wait_for_panes(qtbot, window)
    assert window.router.result.function == "convolve"


def test_a_non_utf8_file_at_start_up_still_offers_the_recovered_text(qtbot, tmp_path,
                                                                     monkeypatch):
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from jaxviz.ui import app
    from jaxviz.ui.window import settings as settings_module

    recovery = Recovery(tmp_path / "recovery")
    monkeypatch.setattr(settings_module, "recovery_dir", lambda: recovery.dir)
    recovery.save("untitled", "def mine(x):\n    return x\n", {"path": None, "example": None,
                                                                 "function": "mine"})
    (tmp_path / "latin1.py").write_bytes(b"x = '\xe9'\n")
    seen = {}

    def on_shown(win) -> None:
        seen.update(status=win.status_text.text(), notice=win.editor_panel.notice.label.text(),
                    visible=win.editor_panel.notice.isVisible())
        win.document.editor.document().setModified(False)
        QTimer.singleShot(0, lambda: (win.close(), QApplication.instance().exit(0)))

    assert app.main([str(tmp_path / "latin1.py"), "--devices", "2"], on_shown=on_shown) == 0
    assert "it is not UTF-8 text (byte 0xe9 at offset 5" in seen["status"]
    assert seen["visible"] and "were recovered" in seen["notice"]


def test_recovery_copies_are_private(tmp_path):
    folder = tmp_path / "recovery"
    folder.mkdir(mode=0o755)  # as an older jaxviz left it
    folder.chmod(0o755)
    recovery = Recovery(folder)
    path = recovery.save("untitled", "secret = 42\n", {"path": None})
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    for written in (path, path.with_suffix(".json")):
        assert stat.S_IMODE(written.stat().st_mode) == 0o600, written
    time.sleep(0.01)
    recovery.save("untitled", "secret = 43\n", {"path": None})  # overwritten: still private
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert recovery.pending()[0][1] == "secret = 43\n"
