"""A long text's lines in view are laid out by the steps that colour them, not by the paint
after (issue 28: that paint came after the steps' turn, 6-10 ms their budget could not see).

The colours are the lexer's (Pygments' jaxpr lexer, run here on its own as the oracle), the
layout the one Qt's paint makes; what the view shows is what Qt's own per-line pass shows.
"""

from __future__ import annotations


def _jaxpr(n: int) -> str:
    body = [f"    b{k}:f32[8,{k % 7 + 1}] = dot_general[dimension_numbers=(([1], [0]), ([], []))] "
            f"a w{k}" for k in range(n)]
    return "\n".join(["{ lambda ; a:f32[8,8] w:f32[8,8]. let", *body, "  in (a,) }"])


def test_the_lines_in_view_are_coloured_and_laid_out_before_the_paint(qtbot):
    from pygments.token import Text, Whitespace

    from jaxviz.ui.text import highlighters
    from jaxviz.ui.text.code_view import CodeView
    from jaxviz.ui.text.highlighters import jaxpr_highlighter
    from jaxviz.views.text.lexers import JaxprLexer

    text = _jaxpr(highlighters.LONG_LINES * 3)
    view = CodeView(jaxpr_highlighter)
    qtbot.addWidget(view)
    view.resize(700, 1000)
    view.show()
    highlighters.lexers().make("jaxpr")
    view.set_text(text)
    qtbot.waitUntil(lambda: view.viewport().grab() is not None, timeout=2000)  # laid out plain
    doc = view.document()
    # after each colouring step, before anything paints: every line in view that has its
    # formats has its layout too (Qt's paint has nothing to lay out)
    # (the lines' layouts are read, never asked for: asking Qt for a line's place lays it
    # out; which lines are in view is asked once the colouring is done)
    states: list[dict[int, tuple[bool, bool]]] = []
    apply = view.highlighter._apply

    def applied(first: int, stop: int) -> None:
        apply(first, stop)
        states.append({n: (bool(doc.findBlockByNumber(n).layout().formats()),
                           doc.findBlockByNumber(n).layout().lineCount() > 0)
                       for n in range(0, 120)})

    view.highlighter._apply = applied
    qtbot.waitUntil(lambda: not view.highlighter.lexing, timeout=20000)
    shown = [n for n, _top, _bottom in view.visible_lines()]
    assert states and all(states[-1][n][0] for n in shown)  # every line in view coloured
    unlaid = [n for state in states for n in shown if state[n][0] and not state[n][1]]
    assert not unlaid, unlaid
    assert len(shown) > highlighters.CHUNK_LINES  # (the lines in view took several steps)
    # the colours are the lexer's tokens, line by line
    lexer = JaxprLexer(stripnl=False, ensurenl=False)
    lines: list[list[tuple[int, int]]] = [[]]
    col = 0
    for _index, ttype, value in lexer.get_tokens_unprocessed(text):
        for k, part in enumerate(value.split("\n")):
            if k:
                lines.append([])
                col = 0
            if part and ttype not in (Text, Whitespace):
                lines[-1].append((col, len(part)))
            col += len(part)
    for n in shown:
        spans = [(r.start, r.length) for r in doc.findBlockByNumber(n).layout().formats()]
        assert spans and set(spans) <= set(lines[n]), n
    # and the view shows what Qt's own per-line pass shows
    at_once = CodeView(jaxpr_highlighter)
    qtbot.addWidget(at_once)
    at_once.highlighter.chunked = False
    at_once.resize(700, 1000)
    at_once.show()
    at_once.set_text(text)
    qtbot.wait(50)
    for v in (view, at_once):
        v.setCursorWidth(0)
    assert view.viewport().grab().toImage() == at_once.viewport().grab().toImage()
