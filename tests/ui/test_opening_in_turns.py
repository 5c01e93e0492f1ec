"""Opening an example is four turns of the event loop: the document at once (its code in
the editor, the panes behind one plain cover: nothing of the last document in view, and
no pane cleared or painted in that turn), then, after Qt has painted that, its panes laid
out behind the cover, then shown, then its trace asked for (issue 31: one turn of all was
two frames long)."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication, QWidget

from tests.helpers.window import wait_for_panes

# Not in the fast tier: the window on the real engine.
pytestmark = pytest.mark.slow


def test_the_code_shows_first_the_panes_behind_a_cover_until_laid_out(qtbot, window):
    from jaxviz.model import get_example

    window.open_example("convolve")
    wait_for_panes(qtbot, window, lambda: window.state.details is not None)
    sent = window.session.latest

    window.open_example("async_dispatch")
    declared = get_example("async_dispatch").variants
    assert window.editor.toPlainText() == window.state.source  # the new code, at once
    assert "def " in window.editor.toPlainText() and window.opening
    assert window.session.latest is sent  # not traced before its panes are laid out
    area = window.area
    cover = area.findChild(QWidget, "panes_cover")
    # nothing of convolve in view meanwhile: the area shows the cover alone, which says
    # the new document is not traced yet
    assert area.covered and cover.geometry() == area.rect()
    rgb = QImage.Format.Format_RGB32
    seen, cover_alone = (w.grab().toImage().convertToFormat(rgb) for w in (area, cover))
    assert seen == cover_alone
    assert cover.text() == window.state.not_traced()
    assert get_example("async_dispatch").function in cover.text()
    assert not any(area.in_view(v) for v in area.panes)

    window.finish_opening()  # (the timer's next turn) the panes laid out, still behind it
    assert set(window.state.visible_variants) <= set(declared)
    assert area.covered and window.opening and window.session.latest is sent
    window.finish_opening()  # (the next) shown, cleared: not yet the trace
    assert not area.covered and cover.isHidden()
    shown = [v for v in window.state.shown_variants() if area.in_view(v)]
    assert shown and all(area.panes[v].result is None for v in shown)
    assert all(window.state.not_traced() in area.panes[v].jaxpr_view.toPlainText()
               for v in shown)
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
