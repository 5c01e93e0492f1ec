"""A big text loads without repainting its view more than it must (issue 28: no stalled frame
while a train step loads), and settles to what it shows when put in at once.

* A very long line (a sharded train step's ``in_shardings=...``: 6,187 characters) is
  coloured near the columns in view, and wherever the view is scrolled sideways; what the
  view shows there is coloured as Pygments' lexer reads the line.
* A big text's lines added below the view, or inside a folded region, do not repaint it;
  the view ends as a view given the whole text at once.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QFontMetricsF

from jaxviz.ui.text import highlighters
from jaxviz.ui.text.code_view import CodeView
from jaxviz.ui.text.highlighters import jaxpr_highlighter, lex_spans, lexers
from jaxviz.ui.theme import style

#: A jaxpr line of about 6,000 characters: 400 typed variables.
LONG = "    " + " ".join(f"x{k}:f32[{k},8]" for k in range(400))


def _text(lines: int) -> str:
    return "\n".join(["{ lambda ; a:f32[]. let", LONG]
                     + [f"    b{k}:f32[] = sin a" for k in range(lines)] + ["  in (a,) }"])


def _view(qtbot, width: int = 600) -> CodeView:
    lexers().make("jaxpr")
    view = CodeView(jaxpr_highlighter, marks_column=False)
    qtbot.addWidget(view)
    view.resize(width, 400)
    view.show()
    return view


def _shown_columns(view: CodeView) -> range:
    width = QFontMetricsF(view.font()).horizontalAdvance(" ")
    first = int(view.horizontalScrollBar().value() / width)
    return range(first, first + int(view.viewport().width() / width))


def _check_coloured_in_view(view: CodeView, line: int) -> int:
    """Every token the lexer colours on ``line`` within the columns in view has its colour
    there in the line's layout; returns how many were checked."""
    text = view.document().findBlockByNumber(line).text()
    spans, _ends = lex_spans(lexers().make("jaxpr"), text)
    formats = {(r.start, r.length): r.format.foreground().color().name()
               for r in view.document().findBlockByNumber(line).layout().formats()}
    shown = _shown_columns(view)
    checked = 0
    for col, length, ttype in spans[0]:
        colour = style.style_for(ttype)
        if colour is None or col < shown.start or col + length > shown.stop:
            continue
        assert formats.get((col, length)) == colour[0].lower(), (col, text[col:col + length])
        checked += 1
    return checked


@pytest.mark.parametrize("lines", [2000, 20])  # coloured in steps; by Qt's per-line pass
def test_a_very_long_line_is_coloured_wherever_the_view_is_scrolled_sideways(qtbot, lines):
    view = _view(qtbot)
    assert len(LONG) > 4 * highlighters.WIDE_LINE
    view.set_text(_text(lines))
    qtbot.waitUntil(lambda: not view.highlighter.lexing, timeout=60000)
    view.viewport().grab()  # painted (Qt learns the long line's width as it lays it out)
    assert _check_coloured_in_view(view, 1) >= 5
    # only near the view: the far end of the line is left to when it is scrolled to
    layout = view.document().findBlockByNumber(1).layout()
    assert max(r.start for r in layout.formats()) < len(LONG) // 2
    bar = view.horizontalScrollBar()
    for value in (bar.maximum() // 2, bar.maximum()):
        bar.setValue(value)
        view.viewport().grab()
        assert _check_coloured_in_view(view, 1) >= 5, value
    assert _shown_columns(view).stop >= len(LONG) - 2  # (the end of the line was checked)
    # the short lines are coloured whole, as ever
    short = view.document().findBlockByNumber(5)
    spans, _ = lex_spans(lexers().make("jaxpr"), short.text())
    assert len(short.layout().formats()) == sum(style.style_for(t) is not None
                                                for _c, _n, t in spans[0])


class _Paints(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt's name
        if event.type() == QEvent.Type.Paint:
            self.count += 1
        return False


def _fill(qtbot, view: CodeView, text: str, regions, folded) -> int:
    """Fill ``view`` with ``text`` in steps, letting it paint between them; the paints."""
    paints = _Paints()
    view.viewport().installEventFilter(paints)
    steps = view.fill_steps(text, regions, folded)
    for _ in steps:
        qtbot.wait(1)  # a turn of the event loop: pending paints are made
    qtbot.wait(20)
    view.viewport().removeEventFilter(paints)
    return paints.count


def _shown_lines(view: CodeView) -> list[str]:
    return [view.document().findBlockByNumber(n).text() for n, _t, _b in view.visible_lines()]


def test_lines_added_below_the_view_do_not_repaint_it_and_a_fill_ends_as_at_once(
        qtbot, monkeypatch):
    from jaxviz.ui.text import code_view

    monkeypatch.setattr(code_view, "FILL_LINES", 100)
    text = _text(3000)
    steps = text.count("\n") // 100 + 1
    for regions, folded in (([], []), ([(3, 2900)], [3])):
        stepped, at_once = _view(qtbot), _view(qtbot)
        paints = _fill(qtbot, stepped, text, regions, folded)
        monkeypatch.setattr(code_view, "FILL_LINES", 10**6)  # the reference: all at once
        for _ in at_once.fill_steps(text, regions, folded):
            pass
        monkeypatch.setattr(code_view, "FILL_LINES", 100)
        for view in (stepped, at_once):  # painted: the long line laid out, its width known
            view.viewport().grab()
        qtbot.wait(20)
        if not regions:  # not one paint a step: the first lines', the colours in view
            assert paints <= steps // 4, (paints, steps)  # (a fold's hidden lines are laid
        # out a few ms a paint, some paints more: CodeView.paintEvent)
        assert stepped.toPlainText() == text
        assert _shown_lines(stepped) == _shown_lines(at_once)
        assert (stepped.verticalScrollBar().maximum()
                == at_once.verticalScrollBar().maximum()), regions
        # scrolled to the end: the last lines are there, laid out and shown
        bar = stepped.verticalScrollBar()
        bar.setValue(bar.maximum())
        assert _shown_lines(stepped)[-1] == "  in (a,) }"


def test_lines_in_view_keep_their_glyphs_and_paint_as_they_would_without(qtbot, monkeypatch):
    """The lines painted keep their shaped glyphs between paints (Qt drops them by default
    and shapes a coloured line again, token by token, at every paint): what is drawn is
    the same as without, as the view is scrolled sideways (wide lines coloured anew), a
    fold opened and the text replaced."""
    from PySide6.QtGui import QImage

    text = _text(60)
    kept, plain = _view(qtbot), _view(qtbot)
    monkeypatch.setattr(plain, "_keep_glyphs_in_view", lambda: None)  # Qt's default
    for view in (kept, plain):
        for _ in view.fill_steps(text, [(3, 40)], [3]):
            pass
        qtbot.waitUntil(lambda view=view: not view.highlighter.lexing, timeout=60000)

    def same() -> None:
        shots = [v.viewport().grab().toImage().convertToFormat(QImage.Format.Format_RGB32)
                 for v in (kept, plain)]
        assert shots[0] == shots[1]

    same()
    shown = [n for n, _t, _b in kept.visible_lines()]
    assert all(kept.document().findBlockByNumber(n).layout().cacheEnabled() for n in shown)
    assert not any(plain.document().findBlockByNumber(n).layout().cacheEnabled()
                   for n in shown)
    for view in (kept, plain):  # sideways: the wide line is coloured anew near the view
        bar = view.horizontalScrollBar()
        bar.setValue(bar.maximum() // 2)
    qtbot.wait(20)
    same()
    for view in (kept, plain):
        view.toggle_fold(3)
    qtbot.wait(20)
    same()
    for view in (kept, plain):
        view.set_text(_text(30).replace("sin", "cos"))
        qtbot.waitUntil(lambda view=view: not view.highlighter.lexing, timeout=60000)
    same()


def test_a_fold_in_view_says_how_many_lines_it_hides(qtbot):
    view = _view(qtbot)
    for _ in view.fill_steps(_text(60), [(3, 40)], [3]):
        pass
    image = view.viewport().grab().toImage()
    rect = view.line_rect(3)
    block = view.document().findBlockByNumber(3)
    x = int(block.layout().lineAt(0).naturalTextWidth() + view.contentOffset().x()
            + view.document().documentMargin())
    label = style.GUTTER_TEXT.name()
    found = {image.pixelColor(px, py).name() for px in range(x, min(x + 200, image.width()))
             for py in range(rect.top(), rect.bottom())}
    assert label in found or any(_near(c, label) for c in found)


def _near(a: str, b: str) -> bool:
    return sum(abs(int(a[k:k + 2], 16) - int(b[k:k + 2], 16)) for k in (1, 3, 5)) < 40
