"""Big texts reach the screen in steps and settle to what a small text shows at once (issues
28 and 31): a big result's source links, a long text's colours, folded lines.

The results here are built by hand (thousands of equations, each on its own jaxpr line, from
one of 40 source lines), so that the expected colour of every jaxpr line is read off the
records: the source line its equation came from, and that line's colour in the editor.
"""

from __future__ import annotations

import pytest

from jaxviz.model import Equation, SourceSpan, TraceResult, VariantResult, VarInfo

F = "/x/big.py"
SOURCE_LINES = 40


def _big_result(n: int) -> TraceResult:
    """``n`` equations; jaxpr line ``k + 1`` is equation ``k``, from source line
    ``k % 40 + 1``."""
    text = "\n".join(["{ lambda ; a:f32[]. let"]
                     + [f"    b{k}:f32[] = sin a" for k in range(n)] + ["  in (a,) }"])
    equations = [Equation("sin", {}, [], [VarInfo(f"b{k}", [], "f32")],
                          SourceSpan(F, k % SOURCE_LINES + 1, 1, k % SOURCE_LINES + 1, 9),
                          k + 1, k + 1, []) for k in range(n)]
    return TraceResult("f", F, variants=[VariantResult("plain", jaxpr_text=text,
                                                       equations=equations)])


def _source_line(text_line: int) -> int:
    return (text_line - 1) % SOURCE_LINES + 1


@pytest.fixture
def linked(qtbot):
    from jaxviz.ui.panes.area import JaxprArea
    from jaxviz.ui.panes.linking import LinkController
    from jaxviz.ui.text.editor import CodeEditor

    area = JaxprArea()
    area.set_visible_variants(["plain"])
    area.resize(900, 600)
    editor = CodeEditor()
    editor.setPlainText("\n".join(f"x{k} = sin(x)" for k in range(SOURCE_LINES)))
    for widget in (area, editor):
        qtbot.addWidget(widget)
        widget.show()
    return area, editor, LinkController(editor, area)


def _pixel_right(view, line: int):
    image = view.viewport().grab().toImage()
    return image.pixelColor(view.viewport().width() - 12, view.line_rect(line).center().y())


def test_a_big_results_links_come_in_steps_and_colour_each_line_as_its_source_line(
        qtbot, linked):
    from jaxviz.ui.panes import linking
    from jaxviz.ui.text import text_base

    area, editor, links = linked
    result = _big_result(3000)
    assert linking.BIG_LINES < 3000 and text_base.SELECTIONS_AT_ONCE < 3000
    area.panes["plain"].show_result(result.variants[0], [])
    links.set_result(result)
    view = area.panes["plain"].jaxpr_view
    assert links.indexing and links.index is None  # in steps: nothing coloured yet
    assert view.line_background("link", 5) is None
    qtbot.waitUntil(lambda: not links.indexing and not area.panes["plain"].filling,
                    timeout=20000)
    assert links.index is not None and links.index.source_lines == list(range(1, 41))
    for bar in (0, view.verticalScrollBar().maximum() // 2):
        view.verticalScrollBar().setValue(bar)
        shown = [n for n, _top, _bottom in view.visible_lines()][1:-1]
        assert len(shown) > 5
        for n in shown:
            if 1 <= n <= 3000:  # an equation's line: its source line's colour, on screen
                source = editor.line_background("link", _source_line(n) - 1)
                assert source is not None and view.line_background("link", n) == source, n
                assert _pixel_right(view, n) == source, n
    # Qt holds the ranges near the view, not one per line
    assert len(view.extraSelections()) < 3000


def test_a_jump_to_a_far_line_of_a_big_result_lands_on_its_equations(qtbot, linked):
    area, editor, links = linked
    result = _big_result(3000)
    area.panes["plain"].show_result(result.variants[0], [])
    links.set_result(result)
    qtbot.waitUntil(lambda: not links.indexing and not area.panes["plain"].filling,
                    timeout=20000)
    view = area.panes["plain"].jaxpr_view
    view.scroll_to_line(2990)  # far down: the first lines of source line 7 are far above
    links.select_source_line(7)
    first = min(n for n in range(1, 3001) if _source_line(n) == 7)
    shown = [n for n, _top, _bottom in view.visible_lines()]
    assert first in shown
    strong = view.line_background("active", first)
    assert strong is not None and _pixel_right(view, first) == strong
    assert view.document().findBlockByNumber(first).text().strip() == "b6:f32[] = sin a"


def _formats(view, n: int):
    return [(r.start, r.length, r.format.foreground().color().name())
            for r in view.document().findBlockByNumber(n).layout().formats()]


def test_a_folded_long_text_is_coloured_without_losing_its_folded_lines_layout(qtbot):
    """Colouring a long text leaves its folded lines' layouts alone (Qt lays out again every
    folded line a paint passes that has none), colours them when they are unfolded, and
    every line ends with the formats Qt's own per-line highlighting gives it."""
    from jaxviz.ui.text.code_view import CodeView
    from jaxviz.ui.text.highlighters import jaxpr_highlighter, lexers

    lexers().make("jaxpr")
    text = _big_result(2000).variants[0].jaxpr_text
    chunked, plain = CodeView(jaxpr_highlighter), CodeView(jaxpr_highlighter)
    plain.highlighter.chunked = False  # Qt's own highlighting of every line, at once
    for view in (chunked, plain):
        qtbot.addWidget(view)
        view.resize(600, 400)
        view.show()
    chunked.set_text(text)
    plain.set_text(text)
    chunked.set_folds([(3, 1990)])
    chunked.toggle_fold(3)
    assert chunked.is_folded(3)
    qtbot.waitUntil(lambda: not chunked.highlighter.lexing, timeout=60000)
    chunked.viewport().grab()  # painted: the folded lines it passes are laid out
    qtbot.waitUntil(lambda: not chunked._unlaid, timeout=20000)
    hidden = [chunked.document().findBlockByNumber(n) for n in range(4, 1990)]
    assert not any(b.isVisible() for b in hidden)
    assert all(b.layout().lineCount() > 0 for b in hidden)  # still laid out, once coloured
    for n in (0, 1, 2, 3, 1990, 2000):  # the shown lines: coloured as Qt colours them
        assert _formats(chunked, n) == _formats(plain, n), n
    chunked.toggle_fold(3)  # unfolded: its lines get their colours over the next turns
    qtbot.waitUntil(lambda: _formats(chunked, 1000) != [], timeout=20000)
    qtbot.waitUntil(lambda: all(_formats(chunked, n) == _formats(plain, n)
                                for n in (4, 500, 1000, 1989)), timeout=20000)
    assert _formats(plain, 1000)  # (the lines do have colours)
