"""The timing view against a real JAX engine: live plots, captions, hover, Stop, a crash.

Runs use tiny sizes and few calls. Waits are bounds, never timings; pictures
are checked by sampling pixels where the records put their markers.
"""

from __future__ import annotations

import re
import time

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest

from jaxviz.model import Target, TraceRequest
from jaxviz.model.timing import FLUSH_NS
from jaxviz.ui.plots import LIGHT
from jaxviz.ui.plots.base import log_ms
from jaxviz.views.timing.stats import CAPTIONS, caption_dispatch, fmt_ms, steady
from tests.helpers.timing_view import (
    ARGS,
    configure,
    count_colour,
    example_request,
    image_rgb,
    make_view,
    marker_pixels,
    near_colour,
    run_live,
)
from tests.helpers.window import JAX_MS

# Not in the fast tier: the window on the real engine.
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def live(qapp, shared_engine):
    view = run_live(shared_engine)
    yield view
    view.close()
    view.deleteLater()


# --------------------------------------------------------------------------- #


def test_running_fills_every_plot_with_one_point_per_call(live):
    run = live.run
    assert run.complete and run.error is None and not run.errors
    jit = run.calls_of("jit", "steady")
    assert len(jit) == 6 and len(run.calls_of("numpy", "steady")) == 6
    figs = live.plots.figures
    dispatch = figs["dispatch_vs_complete"]
    for kind, attr in (("ready", "complete_ns"), ("dispatch", "dispatch_ns")):
        data = dispatch.scatters[kind].data
        assert list(data["x"]) == [1, 2, 3, 4, 5, 6]
        assert np.allclose(data["y"], log_ms([getattr(c, attr) / 1e6 for c in jit]))
    piped = sorted(run.calls_of(phase="pipelined"), key=lambda c: c.run)
    assert len(piped) == 4
    assert np.allclose(figs["timeline"].scatters["ready"].data["x"],
                       [c.t_complete_ns / 1e6 for c in piped])
    assert len(figs["variants"].markers["ready"].data) == 2  # numpy and jit
    ready_line = figs["sweep"].series[("jit", "ready")][0]
    assert list(2 ** ready_line.xData) == pytest.approx([32, 64])


def test_captions_are_computed_from_the_records(live):
    run = live.run
    s = steady(run, "jit")
    text = live.plots.pages["dispatch_vs_complete"].caption.text()
    assert text == caption_dispatch(run)
    assert text.startswith(f"jit: calls return after {fmt_ms(s.dispatch_median)}")
    assert fmt_ms(s.complete_median) in text and "median of 6" in text
    for kind, page in live.plots.pages.items():
        assert page.caption.text() == CAPTIONS[kind](run) == page.figure.caption()


def test_the_view_says_what_ran_where_and_how_far(live):
    h = live.run.header
    info = live.info_label.text()
    assert info.startswith(f"Measured {h.date[:10]}")
    assert info.endswith(f"matmul({ARGS}) in async_dispatch.py")
    assert h.host_cpu in info and f"jax {h.jax}" in info and "8 simulated CPU devices" in info
    c = live.controls
    assert c.status.text().startswith(f"done: {len(live.run.calls)} calls in ")
    assert c.progress.value() == c.progress.maximum() == 100
    assert c.run_button.isEnabled() and not c.stop_button.isEnabled()
    # the plot tab is the user's: the run did not switch it (the first plot is shown)
    assert live.plots.current_kind() == "dispatch_vs_complete"


def test_markers_are_drawn_where_the_records_put_them(live):
    live.plots.show_kind("dispatch_vs_complete")
    settle()
    page = live.plots.pages["dispatch_vs_complete"]
    fig = page.figure
    rgb = image_rgb(page.view.grab().toImage())
    ready = marker_pixels(page.view, fig.plot, fig.scatters["ready"])
    assert len(ready) == 6
    assert all(near_colour(rgb, xy, LIGHT.ready) for xy in ready)
    dispatch = marker_pixels(page.view, fig.plot, fig.scatters["dispatch"])
    apart = [d for d, r in zip(dispatch, ready) if abs(d[1] - r[1]) > 20]
    assert all(near_colour(rgb, xy, LIGHT.dispatch, radius=2) for xy in apart)  # a narrow ▼
    assert count_colour(rgb, LIGHT.background, 0) > rgb.shape[0] * rgb.shape[1] // 2


def settle() -> None:
    """Let a tab that was just brought forward lay itself out."""
    from PySide6.QtWidgets import QApplication

    for _ in range(5):
        QApplication.processEvents()


def hover(view, x: int, y: int, shown) -> None:
    """Move the mouse onto ``(x, y)`` of a GraphicsView until ``shown()`` holds.

    pyqtgraph drops mouse moves that follow each other closely (a rate limit), so
    the move is repeated, a little apart, a bounded number of times.
    """
    for attempt in range(40):
        QTest.mouseMove(view.viewport(), QPoint(x + attempt % 2, y))
        deadline = time.monotonic() + 0.06
        while time.monotonic() < deadline:
            QTest.qWait(10)
        if shown():
            return
    raise AssertionError("hovering showed nothing")


def test_hovering_a_point_shows_its_numbers(live):
    live.plots.show_kind("dispatch_vs_complete")
    settle()
    page = live.plots.pages["dispatch_vs_complete"]
    call = live.run.calls_of("jit", "steady")[2]
    x, y = marker_pixels(page.view, page.figure.plot, page.figure.scatters["ready"])[2]
    hover(page.view, x, y, lambda: live.plots.hover_text() != "")
    assert f"call 3: ready after {fmt_ms(call.complete_ns / 1e6)}" in live.plots.hover_text()
    assert page.hover.isVisible() and page.hover.font().bold()
    # the sweep's points too
    live.plots.show_kind("sweep")
    settle()
    page = live.plots.pages["sweep"]
    line = page.figure.series[("jit", "ready")][0]
    x, y = marker_pixels(page.view, page.figure.plot, line.scatter)[1]
    hover(page.view, x, y, lambda: live.plots.hover_text("sweep") != "")
    assert "n = 64: median ready after" in live.plots.hover_text("sweep")


def test_log_time_switch_redraws_the_same_calls_linearly(live):
    fig = live.plots.figures["dispatch_vs_complete"]
    jit = live.run.calls_of("jit", "steady")
    live.plots.log_time_box.setChecked(False)
    try:
        assert np.allclose(fig.scatters["ready"].data["y"], [c.complete_ns / 1e6 for c in jit])
    finally:
        live.plots.log_time_box.setChecked(True)
    assert np.allclose(fig.scatters["ready"].data["y"],
                       log_ms([c.complete_ns / 1e6 for c in jit]))


SLOW = '''
import time
import jax.numpy as jnp


def slow(x):
    time.sleep(0.03)  # op-by-op runs the Python body on every call
    return jnp.sin(x) * 2
'''

#: Each call outlasts the engine's streaming interval, so calls stream one by one; the
#: engine dies once the view has shown some (the test then creates the marker file).
CRASHING = '''
import os
import time
import jax.numpy as jnp


def crashing(x):
    if os.path.exists({marker!r}):
        os.kill(os.getpid(), 9)
    time.sleep({seconds!r})
    return jnp.sin(x)
'''


def source_request(source: str, function: str) -> TraceRequest:
    return TraceRequest(target=Target(source, f"<editor:{function}.py>", function), args="f32[8]")


def test_stop_ends_the_run_and_keeps_what_was_measured(qtbot, shared_engine):
    view = make_view(shared_engine)
    qtbot.addWidget(view)
    view.set_target(source_request(SLOW, "slow"))
    configure(view, ["op-by-op"], runs=2000, pipeline=0)
    view.controls.run_button.click()
    # the progress says what is running, from the engine's status records (sent at most
    # every 100 ms: the first steady calls can arrive before the first "call" status)
    qtbot.waitUntil(lambda: len(view.run.calls_of("op-by-op", "steady")) >= 3 and re.fullmatch(
        r"op-by-op: call \d+/2000", view.controls.status.text()) is not None, timeout=JAX_MS)
    assert view.controls.progress.maximum() == view.run.status.total == 1 + 1 + 2000
    assert 0 < view.controls.progress.value() == view.run.status.done
    assert view.controls.stop_button.isEnabled() and not view.controls.run_button.isEnabled()
    seen = len(view.run.calls)
    qtbot.mouseClick(view.controls.stop_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not view.running, timeout=JAX_MS)
    run = view.run
    assert not run.complete
    assert seen <= len(run.calls) < 2001
    kept = run.calls_of("op-by-op", "steady")
    assert [c.run for c in kept] == list(range(len(kept)))  # every call up to the stop
    data = view.plots.figures["dispatch_vs_complete"].scatters["ready"].data
    assert len(data) == len(kept)
    assert view.controls.status.text() == (f"stopped after {len(run.calls)} calls; the "
                                           f"{len(run.calls)} calls measured before are kept")
    assert view.banner.severity == "warning" and view.banner.text().startswith("Stopped after")
    assert view.plots.pages["dispatch_vs_complete"].caption.text() == caption_dispatch(run)
    # the exported data are the kept calls
    assert view.controls.run_button.isEnabled()
    assert view.export_bar.actions_by_kind["png"].isEnabled()


def test_an_engine_crash_keeps_the_finished_calls_and_says_so(qtbot, shared_engine, tmp_path):
    view = make_view(shared_engine)
    qtbot.addWidget(view)
    marker = tmp_path / "crash-now"
    source = CRASHING.format(marker=str(marker), seconds=1.2 * FLUSH_NS / 1e9)
    view.set_target(source_request(source, "crashing"))
    configure(view, ["op-by-op"], runs=50, warmup=1, pipeline=0)
    view.controls.run_button.click()
    qtbot.waitUntil(lambda: view.run is not None
                    and len(view.run.calls_of("op-by-op", "steady")) >= 2, timeout=JAX_MS)
    marker.touch()  # the next call kills the engine
    qtbot.waitUntil(lambda: not view.running, timeout=2 * JAX_MS)
    run = view.run
    assert not run.complete and run.error is not None and run.error.kind == "crash"
    kept = run.calls_of("op-by-op", "steady")
    assert 1 <= len(kept) < 50
    assert len(view.plots.figures["dispatch_vs_complete"].scatters["ready"].data) == len(kept)
    assert view.banner.severity == "error"
    assert view.banner.text().startswith("The JAX engine crashed during the run")
    assert f"the {len(run.calls)} calls measured before are kept" in view.banner.text()
    # the engine comes back, and the view can run again
    qtbot.waitUntil(lambda: shared_engine.state == "ready", timeout=JAX_MS)
    assert view.controls.run_button.isEnabled()


def test_bad_settings_are_marked_and_nothing_runs(qtbot, shared_engine):
    view = make_view(shared_engine)
    qtbot.addWidget(view)
    view.set_target(example_request("async_dispatch", ARGS, ["plain"]))
    configure(view, ["jit"], sweep=("n=32,big", "f32[n,n], f32[n,n]"))
    assert not view.run_timing()
    assert not view.running and view.run is None
    assert view.controls.sweep.property("error") is True
    assert "sweep size 'big' is not a whole number" in view.banner.text()
    assert view.controls.sweep.text() == "n=32,big"  # nothing typed is lost
    view.controls.set_checked([])
    view.controls.sweep_on.setChecked(False)
    assert not view.run_timing()
    assert "say which variants to time" in view.banner.text()


def test_nothing_to_measure_without_a_target_or_an_engine(qtbot):
    from jaxviz.ui.timing import TimingView

    view = TimingView()
    qtbot.addWidget(view)
    assert not view.controls.run_button.isEnabled()
    assert not view.run_timing() and "Nothing to measure yet" in view.banner.text()
    view.set_target(example_request("async_dispatch", ARGS))
    assert not view.run_timing() and "no JAX engine" in view.banner.text()
    page = view.plots.pages["timeline"]
    assert page.caption.text().startswith("Press Run with a pipeline depth above 0")


def test_full_screen_and_back_to_the_same_place(qtbot):
    from PySide6.QtWidgets import QVBoxLayout, QWidget

    from jaxviz.ui.timing import TimingView

    home = QWidget()
    qtbot.addWidget(home)
    layout = QVBoxLayout(home)
    view = TimingView()
    layout.addWidget(view)
    home.show()
    view.export_bar.full_screen_button.click()
    assert view.isWindow()
    qtbot.waitUntil(view.isFullScreen)
    assert view.export_bar.full_screen_button.text() == "⤡"
    note = layout.itemAt(0).widget()
    assert note is not view and "Esc" in note.text()
    QTest.keyClick(view, Qt.Key.Key_Escape)
    assert not view.isWindow() and view.parentWidget() is home
    assert layout.indexOf(view) == 0 and layout.count() in (1, 2)  # the note is on its way out
    qtbot.waitUntil(lambda: layout.count() == 1)
    assert view.export_bar.full_screen_button.text() == "⤢"


def test_a_function_that_fails_says_why_and_keeps_the_settings(qtbot, shared_engine):
    view = make_view(shared_engine)
    qtbot.addWidget(view)
    source = "import jax.numpy as jnp\n\n\ndef broken(x):\n    return jnp.dot(x, x[None])\n"
    view.set_target(TraceRequest(target=Target(source, "<editor:broken.py>", "broken"),
                                 args="f32[3,4]"))
    configure(view, ["jit"], runs=3, pipeline=0)
    view.controls.run_button.click()
    qtbot.waitUntil(lambda: not view.running, timeout=JAX_MS)
    assert view.banner.severity == "error"
    text = view.banner.text()
    assert text.startswith("Nothing was measured: jit, line 5: TypeError")  # variant, line
    assert "dot_general" in text
    assert view.run.calls_of("jit", "steady") == []
    assert view.controls.checked_variants() == ["jit"] and view.controls.runs.value() == 3
    assert view.controls.run_button.isEnabled()
