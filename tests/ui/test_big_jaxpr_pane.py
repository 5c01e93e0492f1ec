"""A big jaxpr in a pane: nested jaxprs folded at size, Find (Ctrl+F) and go to line (Ctrl+G).

The jaxpr comes from JAX (the engine traces a function calling 60 jitted
functions: 60 nested ``jit`` jaxprs); what is folded is read back
from the text view's blocks (hidden or shown), what is found from its cursor,
and both are checked against the jaxpr text itself.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from jaxviz.views.panes.folding import BIG_JAXPR_LINES
from tests.helpers.sources import trace_sixty_jits

# Not in the fast tier: drives the window.
pytestmark = pytest.mark.slow

@pytest.fixture(scope="module")
def pane_with_big_jaxpr(qapp):
    from jaxviz.ui.panes.jaxpr_pane import JaxprPane

    result = trace_sixty_jits()
    vr = result.variant("plain")
    assert vr.ok and vr.jaxpr_text.count("\n") + 1 >= BIG_JAXPR_LINES
    pane = JaxprPane("plain")
    pane.resize(700, 500)
    pane.show()
    pane.show_result(vr, [])
    while pane.filling:  # a big jaxpr goes on screen in steps: read it once settled
        qapp.processEvents()
    return pane, vr


def _hidden(view) -> list[int]:
    doc = view.document()
    return [n for n in range(doc.blockCount()) if not doc.findBlockByNumber(n).isVisible()]


def test_the_nested_jaxprs_of_a_big_jaxpr_open_folded(pane_with_big_jaxpr):
    pane, vr = pane_with_big_jaxpr
    lines = vr.jaxpr_text.splitlines()
    hidden = set(_hidden(pane.jaxpr_view))
    pjit_lines = [n for n, line in enumerate(lines) if line.strip().endswith("= jit[")]
    assert len(pjit_lines) >= 60
    # every line of the inner function's body (its tanh) is folded away; the calls stay
    tanh = [n for n, line in enumerate(lines) if "tanh" in line]
    assert tanh and all(n in hidden for n in tanh)
    assert not any(n in hidden for n in pjit_lines)


def test_find_unfolds_and_moves_to_each_match(pane_with_big_jaxpr, qtbot):
    pane, vr = pane_with_big_jaxpr
    lines = vr.jaxpr_text.splitlines()
    view = pane.jaxpr_view
    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    assert pane.find_bar.isVisible() and pane.find_bar.mode == "find"
    qtbot.keyClicks(pane.find_bar.field, "tanh")
    first = view.textCursor().blockNumber()
    assert "tanh" in lines[first] and view.document().findBlockByNumber(first).isVisible()
    qtbot.keyClick(pane.find_bar.field, Qt.Key.Key_Return)
    second = view.textCursor().blockNumber()
    assert second > first and "tanh" in lines[second]
    expected = sum("tanh" in line for line in lines)
    assert f"{expected} lines match" in pane.find_bar.status.text()
    qtbot.keyClick(pane.find_bar.field, Qt.Key.Key_Escape)
    assert not pane.find_bar.isVisible()


def test_go_to_line_reveals_a_folded_line(pane_with_big_jaxpr, qtbot):
    pane, vr = pane_with_big_jaxpr
    view = pane.jaxpr_view
    target = max(_hidden(view))
    qtbot.keyClick(view, Qt.Key.Key_G, Qt.KeyboardModifier.ControlModifier)
    assert pane.find_bar.mode == "line"
    qtbot.keyClicks(pane.find_bar.field, str(target + 1))
    qtbot.keyClick(pane.find_bar.field, Qt.Key.Key_Return)
    assert view.textCursor().blockNumber() == target
    assert view.document().findBlockByNumber(target).isVisible()
    pane.find_bar.field.setText("999999")
    assert not pane.find_bar.go()
    assert "a line from 1 to" in pane.find_bar.status.text()
