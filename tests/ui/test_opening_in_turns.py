"""Opening an example is three turns of the event loop: the document at once (its code in
the editor, nothing of the last document in the panes in view), then, after Qt has
painted that, its panes laid out, then its trace asked for (issue 31: one turn of all
was two frames long)."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication

from tests.helpers.window import wait_for_panes

# Not in the fast tier: the window on the real engine.
pytestmark = pytest.mark.slow


def test_the_code_shows_first_and_the_panes_are_laid_out_in_the_next_turn(qtbot, window):
    from jaxviz.model import get_example

    window.open_example("convolve")
    wait_for_panes(qtbot, window, lambda: window.state.details is not None)
    sent = window.session.latest

    window.open_example("async_dispatch")
    declared = get_example("async_dispatch").variants
    assert window.editor.toPlainText() == window.state.source  # the new code, at once
    assert "def " in window.editor.toPlainText() and window.opening
    assert window.session.latest is sent  # not traced before its panes are laid out
    for variant in window.state.shown_variants():
        if window.area.is_shown(variant):  # nothing of convolve in view meanwhile
            assert window.area.panes[variant].result is None, variant

    window.finish_opening()  # (the timer's next turn) the panes, not yet the trace
    assert set(window.state.visible_variants) <= set(declared)
    assert window.opening and window.session.latest is sent
    qtbot.waitUntil(lambda: not window.opening, timeout=1000)
    assert window.session.latest is not sent
    assert window.session.latest.target.function == get_example("async_dispatch").function


def test_an_example_opened_before_the_last_was_laid_out_replaces_it(qtbot, window):
    from jaxviz.model import get_example

    window.open_example("convolve")
    window.open_example("psum_ones")  # no turn between: convolve's layout never happens
    generation = window.session._generation
    QApplication.processEvents()
    qtbot.waitUntil(lambda: not window.opening, timeout=1000)
    assert window.session._generation == generation + 1  # one trace: psum_ones'
    assert window.session.latest.target.function == get_example("psum_ones").function
    assert set(window.state.visible_variants) <= set(get_example("psum_ones").variants)
    wait_for_panes(qtbot, window, lambda: window.state.details is not None)
    assert window.state.result.function == get_example("psum_ones").function


def test_a_file_opened_before_the_example_was_laid_out_keeps_its_own_panes(
        qtbot, window, tmp_path):
    path = tmp_path / "own.py"
    path.write_text("import jax.numpy as jnp\n\n\ndef double(x):\n    return x * 2.0\n\n\n"
                    'JAXVIZ = {"function": "double", "args": "f32[4]", '
                    '"variants": ["plain", "jit"]}\n', encoding="utf-8")
    window.open_example("convolve")
    window.open_file(str(path))
    assert not window.opening  # convolve's layout and trace will not come after the file's
    QApplication.processEvents()
    assert window.state.visible_variants == ["plain", "jit"]
    assert window.session.latest is None  # nothing traced: not convolve, and not the file
    assert window.document.doc.function == "double"  # (its code runs when the user asks)


def test_a_window_closed_while_opening_lays_out_and_traces_nothing_after(qtbot, make_window):
    window = make_window()
    window.open_example("psum_ones")
    sent, generation = window.session.latest, window.session._generation
    assert window.opening
    window.close()
    assert not window.opening
    qtbot.wait(200)  # the turns its layout and trace would have taken
    assert window.session.latest is sent and window.session._generation == generation
