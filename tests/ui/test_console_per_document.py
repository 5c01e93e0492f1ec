"""The Console shows only what the current document printed (issue 27, item 1), and the
tool dock is titled after the tab it shows."""

from __future__ import annotations

import pytest

from tests.helpers.window import wait_for_panes

pytestmark = pytest.mark.slow  # traces on the shared engine

SOURCE = '''import jax.numpy as jnp


def noisy(x):
    print("traced noisy with", x.shape)
    return jnp.sin(x)


JAXVIZ = {"function": "noisy", "args": "f32[4]"}
'''


def test_what_a_file_printed_is_not_shown_under_the_next_document(qtbot, window, tmp_path):
    path = tmp_path / "noisy.py"
    path.write_text(SOURCE)
    window.open_target(str(path))
    window.retrace()  # the trust rule: an opened file runs when the user says so
    wait_for_panes(qtbot, window, lambda: window.state.details is not None)
    console = window.tools.console
    qtbot.waitUntil(lambda: "traced noisy with (4,)" in console.toPlainText())
    window.open_example("convolve")
    assert "noisy" not in console.toPlainText()
    assert window.tools.tabText(window.tools.indexOf(console)) == "Console"
    wait_for_panes(qtbot, window, lambda: window.state.details is not None
                   and window.state.details.function == "convolve")
    assert "noisy" not in console.toPlainText()
    assert "convolve" in console.placeholderText()


def test_a_run_once_of_a_closed_document_does_not_print_under_the_next(qtbot, window,
                                                                       tmp_path):
    path = tmp_path / "noisy.py"
    path.write_text(SOURCE)
    window.open_target(str(path))
    window.retrace()
    wait_for_panes(qtbot, window, lambda: window.state.details is not None)
    finished: list[str] = []
    window.run_once.finished.connect(finished.append)
    assert window.run_once.run(window.build_request(), "plain") is not None
    window.open_example("convolve")  # before the run's answer comes
    qtbot.waitUntil(lambda: bool(finished), timeout=120_000)
    assert "noisy" not in window.tools.console.toPlainText()


def test_the_tool_dock_is_titled_after_the_tab_it_shows(window):
    dock = window.docks["Console · Devices · Timing"]
    for widget, name in ((window.tools.devices, "Devices"), (window.tools.timing, "Timing"),
                         (window.tools.console, "Console")):
        window.show_tool(widget)
        assert dock.windowTitle() == name
        # the View menu's entry still shows and hides the whole dock, named for all of it
        assert "Devices" in dock.toggleViewAction().text() \
            and "Timing" in dock.toggleViewAction().text()
