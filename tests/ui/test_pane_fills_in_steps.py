"""A big jaxpr goes into its pane in steps (issue 28: no stalled frame while a train step
loads) and settles to what the pane shows when it puts the same jaxpr in at once.

The jaxpr comes from JAX (a function calling 60 jitted functions: 60 nested ``jit``
jaxprs, a few hundred lines); the pane is made to fill it 40 lines a step, so it takes
many turns of the event loop. What is compared: the text in the view and JAX's jaxpr text,
the lines folded away (read back from the view's blocks) in the pane filled in steps and in
one filled at once, and where a jump asked for while the text was still coming lands.
"""

from __future__ import annotations

import functools
import time

import pytest
from PySide6.QtWidgets import QApplication

from tests.helpers.sources import trace_sixty_jits

# Not in the fast tier: traces with JAX.
pytestmark = pytest.mark.slow

@pytest.fixture(scope="module")
def big_variant():
    vr = trace_sixty_jits().variant("plain")
    assert vr.ok
    return vr


def _one_step_a_turn(monkeypatch) -> None:
    """The pane's fill runs about one step per turn of the event loop (so a test can act
    between them), and 40 lines a step."""
    from jaxviz.ui.panes import jaxpr_pane
    from jaxviz.ui.sliced import SlicedJob
    from jaxviz.ui.text import code_view

    monkeypatch.setattr(code_view, "FILL_LINES", 40)
    monkeypatch.setattr(jaxpr_pane, "SlicedJob", functools.partial(SlicedJob, slice_ms=0.05))


def _pane(qtbot):
    from jaxviz.ui.panes.jaxpr_pane import JaxprPane

    pane = JaxprPane("plain")
    qtbot.addWidget(pane)
    pane.resize(700, 500)
    pane.show()
    return pane


def _hidden(view) -> list[int]:
    doc = view.document()
    return [n for n in range(doc.blockCount()) if not doc.findBlockByNumber(n).isVisible()]


def test_a_big_jaxpr_fills_in_steps_and_settles_to_the_one_shot_pane(qtbot, big_variant,
                                                                    monkeypatch):
    from jaxviz.ui.text import code_view

    vr = big_variant
    lines = vr.jaxpr_text.split("\n")
    monkeypatch.setattr(code_view, "FILL_LINES", 10_000)
    at_once = _pane(qtbot)
    at_once.show_result(vr, [])
    assert not at_once.filling  # under FILL_LINES lines: at once
    _one_step_a_turn(monkeypatch)
    stepped = _pane(qtbot)
    stepped.show_result(vr, [])
    assert stepped.filling  # show_result returned before the text was in
    seen = []
    # One pass of the event loop at a time (qtbot.waitUntil polls every 10 ms, time in
    # which a loaded machine ran the whole fill: too few counts seen, a flaky failure).
    deadline = time.monotonic() + 20
    while stepped.filling and time.monotonic() < deadline:
        QApplication.processEvents()
        seen.append(stepped.jaxpr_view.document().blockCount())
    assert not stepped.filling
    partial = [n for n in seen if n < len(lines)]
    assert len(set(partial)) > 3  # the event loop turned while it filled, lines coming
    assert stepped.jaxpr_view.toPlainText() == vr.jaxpr_text == at_once.jaxpr_view.toPlainText()
    hidden = _hidden(stepped.jaxpr_view)
    assert hidden and hidden == _hidden(at_once.jaxpr_view)
    # and to a view given the whole text, then each fold, by hand
    from jaxviz.ui.text.code_view import CodeView
    from jaxviz.ui.text.highlighters import jaxpr_highlighter
    from jaxviz.views.panes.folding import pane_folds

    by_hand = CodeView(jaxpr_highlighter)
    qtbot.addWidget(by_hand)
    regions, folded = pane_folds(vr)
    by_hand.set_text(vr.jaxpr_text)
    by_hand.set_folds(regions)
    for first in folded:
        by_hand.toggle_fold(first)
    assert hidden == _hidden(by_hand)
    # the folded lines are the inner functions' bodies (their tanh), the calls stay
    tanh = [n for n, line in enumerate(lines) if "tanh" in line]
    calls = [n for n, line in enumerate(lines) if line.strip().endswith("= jit[")]
    assert tanh and set(tanh) <= set(hidden) and not set(calls) & set(hidden)


def _filling(qtbot, monkeypatch, vr):
    """A pane that has begun filling ``vr`` one step a turn."""
    _one_step_a_turn(monkeypatch)
    pane = _pane(qtbot)
    pane.show_result(vr, [])
    return pane


def test_a_jump_to_a_far_line_while_filling_lands_on_its_equation(qtbot, big_variant,
                                                                  monkeypatch):
    vr = big_variant
    lines = vr.jaxpr_text.split("\n")
    pane = _filling(qtbot, monkeypatch, vr)
    view = pane.jaxpr_view
    qtbot.waitUntil(lambda: view.filling and view.document().blockCount() > 40, timeout=20000)
    assert pane.filling and view.document().blockCount() < len(lines) - 100
    far = max(n for n, line in enumerate(lines) if "tanh" in line)  # the last body's tanh
    assert far >= view.document().blockCount()  # not there yet
    view.reveal_line(far)  # what go-to-line (Ctrl+G) and Find do
    qtbot.waitUntil(lambda: not pane.filling, timeout=20000)
    assert view.textCursor().blockNumber() == far
    block = view.document().findBlockByNumber(far)
    assert block.isVisible() and "tanh" in block.text()
    assert far in [n for n, _top, _bottom in view.visible_lines()]
    # the rest of the folds stay: the other bodies' tanh lines are still folded away
    hidden = set(_hidden(view))
    assert any(n in hidden for n, line in enumerate(lines) if "tanh" in line and n != far)


def test_a_new_result_while_filling_replaces_the_fill(qtbot, big_variant, monkeypatch):
    from jaxviz.model import VariantResult

    pane = _filling(qtbot, monkeypatch, big_variant)
    qtbot.waitUntil(lambda: pane.jaxpr_view.document().blockCount() > 40, timeout=20000)
    pane.jaxpr_view.reveal_line(600)  # a jump that waits for its line: dropped with the fill
    assert pane.filling
    small = VariantResult("plain", jaxpr_text="{ lambda ; a:f32[]. let b:f32[] = sin a in (b,) }")
    pane.show_result(small, [])
    assert not pane.filling and pane.jaxpr_view.toPlainText() == small.jaxpr_text
    qtbot.wait(100)  # the old fill's steps do not come back
    assert pane.jaxpr_view.toPlainText() == small.jaxpr_text
    assert pane.jaxpr_view.textCursor().blockNumber() == 0


def test_go_to_line_asked_before_the_first_lines_came_lands_too(qtbot, big_variant,
                                                               monkeypatch):
    vr = big_variant
    lines = vr.jaxpr_text.split("\n")
    pane = _filling(qtbot, monkeypatch, vr)
    far = len(lines) - 3
    pane.jaxpr_view.reveal_line(far)  # the folds are still being read: no line is there
    qtbot.waitUntil(lambda: not pane.filling, timeout=20000)
    assert pane.jaxpr_view.textCursor().blockNumber() == far
    assert pane.jaxpr_view.textCursor().block().text() == lines[far]


def test_a_big_vmap_panes_marks_come_after_its_text_and_equal_the_one_shot_marks(
        qtbot, monkeypatch):
    """The vmap pane's marks are read off a diff against the plain jaxpr (hundreds of ms for
    a train step): made in the fill's steps, after the text is on screen, and the same as
    the marks made in one go. The marks say what JAX did: every ``tanh`` of the vmap jaxpr
    gained the batch axis (JAX's vmap jaxpr types it f32[8,3,4,4], the plain one f32[3,4,4])."""
    from jaxviz.views.compare.changes import marks_for, marks_steps

    result = trace_sixty_jits(["plain", "vmap"], args="f32[3,4,4], f32[4,4]", in_axes="0, None")
    vr = result.variant("vmap")
    assert vr.ok and result.variant("plain").ok
    one_go = marks_for(result, "vmap")
    _one_step_a_turn(monkeypatch)
    from jaxviz.ui.panes.jaxpr_pane import JaxprPane

    pane = JaxprPane("vmap")
    qtbot.addWidget(pane)
    pane.resize(700, 500)
    pane.show()
    pane.show_result(vr, marks_steps(result, "vmap"))
    text_before_marks = []
    qtbot.waitUntil(lambda: text_before_marks.append(
        (pane.jaxpr_view.toPlainText() == vr.jaxpr_text, pane.jaxpr_view.marks))
        or not pane.filling, timeout=30000)
    assert any(whole and not marks for whole, marks in text_before_marks)
    assert pane.jaxpr_view.marks == one_go
    lines = vr.jaxpr_text.split("\n")
    tanh = {n for n, line in enumerate(lines) if "= tanh" in line}
    batched = {m.start for m in one_go if m.kind == "batched"}
    assert tanh and tanh <= batched
    assert all(":f32[8,3,4,4] = tanh" in lines[n] for n in tanh)
    assert all(":f32[3,4,4] = tanh" in line for line in
               result.variant("plain").jaxpr_text.split("\n") if "= tanh" in line)


def test_a_jaxpr_shown_at_once_sizes_its_gutter_once(qtbot, big_variant, monkeypatch):
    """A jaxpr shown at once whose marks are made in steps (a vmap pane's): the gutter
    takes its width once, not narrowed for no marks and widened again (Qt lays the whole
    text out at each change of width)."""
    from jaxviz.ui.text import code_view
    from jaxviz.views.compare.changes import Mark

    monkeypatch.setattr(code_view, "FILL_LINES", 10_000)  # this jaxpr: at once
    pane = _pane(qtbot)
    marks = [Mark("batched", 1, 2, "batched")]

    def marks_steps():
        yield
        return list(marks)

    pane.show_result(big_variant, list(marks))
    widths: list[int] = []
    view = pane.jaxpr_view
    original = view.setViewportMargins
    monkeypatch.setattr(view, "setViewportMargins",
                        lambda *m: (widths.append(m[0]), original(*m)))
    pane.show_result(big_variant, marks_steps())
    assert widths == [] and view.marks == marks  # the same width throughout
