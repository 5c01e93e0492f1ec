"""The timing view ticks variants that can run the function, and says before Run why a
ticked one cannot (issue 27.3); a banner of the last function does not stay (27.1).

Against the real engine: which variants fail is JAX's word (the window's trace of the
function), never a list kept in jaxviz.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from tests.helpers.window import JAX_MS, wait_for_panes

# Not in the fast tier: the window on the real engine.
pytestmark = pytest.mark.slow


def _timing_of(qtbot, win, example: str):
    win.open_example(example)
    wait_for_panes(qtbot, win, lambda: win.state.result is not None
                   and win.state.result.function == win.state.function)
    view = win.tools.ensure_view(win.tools.timing)
    assert view is not None
    return view


def _plain_fails(win) -> bool:
    return win.state.result.variant("plain").error is not None


@pytest.mark.parametrize("example", ["psum_ones", "normalize", "data_parallel"])
def test_a_collective_example_ticks_only_variants_that_can_bind_its_axis(
        qtbot, window, example):
    view = _timing_of(qtbot, window, example)
    assert _plain_fails(window)  # JAX: psum/pmean outside a mapped axis is unbound
    ticked = view.controls.checked_variants()
    assert ticked, "some variant is ticked"
    for variant in ticked:  # none whose trace failed
        assert variant not in ("jit", "op-by-op", "jit-sync", "loop"), ticked
    assert view.unable_ticked() == []
    assert not view.banner.text().startswith("Will not run")


def test_ticking_a_variant_that_cannot_run_says_why_before_run(qtbot, window):
    view = _timing_of(qtbot, window, "psum_ones")
    items = view.controls.variant_list
    jit = next(items.item(i) for i in range(items.count())
               if items.item(i).data(Qt.ItemDataRole.UserRole) == "jit")
    jit.setCheckState(Qt.CheckState.Checked)
    error = window.state.result.variant("plain").error.message.splitlines()[0]
    text = view.banner.text()
    assert text.startswith("Will not run") and "jit cannot run total" in text
    assert error in text and error in jit.toolTip()
    assert view.run_timing() is False  # refused: nothing to measure silently
    assert not view.running
    jit.setCheckState(Qt.CheckState.Unchecked)
    assert view.banner.text() == ""


def test_a_function_that_runs_plain_keeps_jit(qtbot, window):
    view = _timing_of(qtbot, window, "async_dispatch")
    assert not _plain_fails(window)
    assert "jit" in view.controls.checked_variants()
    assert view.unable_ticked() == []


def test_the_last_functions_banner_leaves_with_it(qtbot, window):
    view = _timing_of(qtbot, window, "psum_ones")
    view.banner.show_message("Wrote dispatch.png into /tmp", "info")  # an export's word
    window.open_example("convolve")
    wait_for_panes(qtbot, window, lambda: window.state.result is not None)
    qtbot.waitUntil(lambda: view._trace is not None
                    and view._trace.target.function == "convolve", timeout=JAX_MS)
    assert view.banner.text() == ""


def test_a_run_marked_as_another_functions_is_not_hidden_by_an_old_banner(qapp):
    from jaxviz.ui.timing.view import TimingView

    view = TimingView()
    view.banner.show_message("Wrote dispatch.png into /tmp", "info")
    view.set_stale("recording of matmul — Run to measure layer")
    assert view.banner.text() == ""
