"""The timing view docked in the main window: the window's engine and function, and
``jaxviz path/to/timings.json`` opening a recording straight in it."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from jaxviz.ui.text.plain import plain_tooltip
from jaxviz.views.timing.export import read_json, write_json
from jaxviz.views.timing.stats import caption_dispatch
from tests.helpers.timing_view import configure, example_request
from tests.helpers.window import JAX_MS, wait_for_panes

# Not in the fast tier: the window on the real engine.
pytestmark = pytest.mark.slow


def recording(tmp_path, engine, qtbot):
    """A small real recording, measured through the engine."""
    from jaxviz.model.timing import TimingRequest

    request = TimingRequest(trace=example_request("async_dispatch", "f32[64,64], f32[64,64]"),
                            variants=["jit"], runs=4, warmup=1, pipeline=3)
    with qtbot.waitSignal(engine.replied, timeout=JAX_MS,
                          check_params_cb=lambda r: r.ok and r.result is not None) as blocker:
        engine.submit(request)
    return write_json(blocker.args[0].result, tmp_path / "timings.json")


def test_the_docked_view_measures_the_windows_function_in_its_engine(qtbot, window):
    window.open_example("async_dispatch")
    wait_for_panes(qtbot, window, lambda: window.router.result is not None)
    window.tools.setCurrentWidget(window.tools.timing)
    view = window.tools.timing.view
    assert view is not None and view.runner.engine is window.engine
    # the tooltip is the text escaped (untrusted text is never rich text: issue 30)
    assert view.controls.target_label.toolTip() == plain_tooltip(
        "matmul(x, y) in async_dispatch.py")
    assert view.controls.checked_variants() == ["numpy", "op-by-op", "jit", "jit-sync"]
    configure(view, ["jit"], runs=3, warmup=0, pipeline=0)
    view.controls.run_button.click()
    qtbot.waitUntil(lambda: not view.running, timeout=2 * JAX_MS)
    run = view.run
    assert run.complete and run.header.function == "matmul" and run.header.args == "x, y"
    assert len(run.calls_of("jit", "steady")) == 3
    assert view.plots.pages["dispatch_vs_complete"].caption.text() == caption_dispatch(run)


def test_open_target_of_a_json_shows_it_in_the_timing_tab(qtbot, window, tmp_path,
                                                          shared_engine):
    path = recording(tmp_path, shared_engine, qtbot)
    window.open_target(str(path))
    assert window.tools.currentWidget() is window.tools.timing
    view = window.tools.timing.view
    assert view.recording == str(path) and view.runner.engine is window.engine
    assert len(view.plots.figures["dispatch_vs_complete"].scatters["ready"].data) == 4
    assert view.info_label.text().startswith("Recording timings.json, shown as recorded")


def test_jaxviz_with_a_recording_opens_it_in_the_timing_view(qtbot, tmp_path, shared_engine):
    """``jaxviz path/to/timings.json``: the command line opens the window on the recording."""
    from jaxviz.cli import opens_window
    from jaxviz.ui import app

    path = recording(tmp_path, shared_engine, qtbot)
    assert opens_window([str(path)])
    seen = {}

    def on_shown(win) -> None:
        view = win.tools.timing.view
        seen.update(tab=win.tools.currentWidget() is win.tools.timing,
                    recording=view.recording if view else None,
                    calls=len(view.run.calls) if view and view.run else 0,
                    engine=view is not None and view.runner.engine is win.engine)
        QTimer.singleShot(0, lambda: (win.close(), QApplication.instance().exit(0)))

    assert app.main([str(path)], on_shown=on_shown) == 0
    assert seen == {"tab": True, "recording": str(path),
                    "calls": len(read_json(path).calls), "engine": True}
