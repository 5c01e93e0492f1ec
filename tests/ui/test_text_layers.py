"""A text view's background layers reach the screen cheaply: a read-only view paints its
whole-line layers itself, handing Qt no ranges (Qt drew and shaped a line under a range
twice: issue 31), and ranges reach Qt once per paint (issue 28: a train step's link colours
were 44 hand-overs of ~4,000 ranges each, 0.7 s on the GUI thread)."""

from __future__ import annotations

from PySide6.QtGui import QColor

from tests.helpers.window import on_screen


def _shown(qtbot, view, text: str):
    """``view`` shown at 500x300 holding ``text`` (40 lines), painted once."""
    qtbot.addWidget(view)
    view.resize(500, 300)
    view.show()
    getattr(view, "set_text", view.setPlainText)(text)
    qtbot.wait(20)
    return view


def _hand_overs(view) -> list[int]:
    """The number of ranges in each hand-over of ``view``'s layers to Qt from now on."""
    handed: list[int] = []
    original = view.setExtraSelections

    def counting(selections):
        handed.append(len(selections))
        original(selections)

    view.setExtraSelections = counting
    return handed


def test_a_read_only_views_line_layers_are_painted_without_handing_qt_ranges(qtbot):
    from jaxviz.ui.text.code_view import CodeView
    from jaxviz.ui.text.highlighters import jaxpr_highlighter

    view = _shown(qtbot, CodeView(jaxpr_highlighter),
                  "\n".join(f"  a{n}:f32[] = sin b{n}" for n in range(40)))
    handed = _hand_overs(view)
    red, blue = QColor("#ff0000"), QColor("#0000ff")
    view.set_line_backgrounds("link", {n: red for n in range(0, 40, 2)})
    view.set_line_backgrounds("active", {1: blue})
    assert view.line_background("link", 2) == red and view.line_background("active", 1) == blue
    image = view.viewport().grab().toImage()
    assert handed == []  # painted by the view: no ranges for Qt to draw each line under
    top = view.line_rect(1).center().y()
    assert image.pixelColor(view.viewport().width() - 5, top) == blue
    assert image.pixelColor(view.viewport().width() - 5, view.line_rect(2).center().y()) == red
    assert image.pixelColor(view.viewport().width() - 5, view.line_rect(3).center().y()) != red
    view.set_line_backgrounds("link", {})
    image = view.viewport().grab().toImage()
    assert image.pixelColor(view.viewport().width() - 5, view.line_rect(2).center().y()) != red
    assert handed == []


def test_the_editors_layers_are_handed_to_qt_once_and_painted(qtbot):
    """The editor's lines move as the user types: its layers stay Qt's ranges, which move
    with them, handed over once per paint."""
    from jaxviz.ui.text.editor import CodeEditor

    view = _shown(qtbot, CodeEditor(), "\n".join(f"y{n} = x * {n}" for n in range(40)))
    handed = _hand_overs(view)
    red = QColor("#ff0000")
    view.set_line_backgrounds("link", {n: red for n in range(0, 40, 2)})
    assert handed == []  # nothing handed over yet
    image = view.viewport().grab().toImage()  # a paint hands them over, once
    assert handed == [20]
    assert image.pixelColor(view.viewport().width() - 5, view.line_rect(2).center().y()) == red
    view.viewport().grab()
    assert handed == [20]  # unchanged layers are not handed over again


def test_thousands_of_line_colours_show_wherever_the_view_is_scrolled(qtbot):
    from jaxviz.ui.text import text_base
    from jaxviz.ui.text.code_view import CodeView
    from jaxviz.ui.text.highlighters import jaxpr_highlighter

    view = CodeView(jaxpr_highlighter)
    qtbot.addWidget(view)
    view.resize(500, 300)
    view.show()
    lines = 3000
    view.set_text("\n".join(f"  a{n}:f32[] = sin b{n}" for n in range(lines)))
    colours = [QColor("#ff0000"), QColor("#00aa00"), QColor("#0000ff")]
    view.set_line_backgrounds("link", {n: colours[n % 3] for n in range(lines)})
    assert lines > text_base.SELECTIONS_AT_ONCE
    bar = view.verticalScrollBar()
    for value in (0, bar.maximum() // 3, bar.maximum()):
        bar.setValue(value)
        image = view.viewport().grab().toImage()
        shown = list(view.visible_lines())
        assert len(shown) > 5
        held = len(view.extraSelections())
        assert held < lines  # Qt holds the ranges near the view, not all 3,000
        for line, top, bottom in shown[1:-1]:
            got = image.pixelColor(view.viewport().width() - 5, (top + bottom) // 2)
            assert got == colours[line % 3], (value, line)


def _on_screen(qtbot, view):
    """What ``view``'s viewport shows on screen now, pixel by pixel (its coordinates)."""
    qtbot.wait(30)
    shot = on_screen(view.viewport())
    ratio = shot.width() / max(1, view.viewport().width())
    return lambda x, y: shot.pixelColor(int(x * ratio), int(y * ratio))


def _code_view_in_window(qtbot, lines: int):
    from PySide6.QtWidgets import QVBoxLayout, QWidget

    from jaxviz.ui.text.code_view import CodeView
    from jaxviz.ui.text.highlighters import jaxpr_highlighter

    window = QWidget()
    qtbot.addWidget(window)
    layout = QVBoxLayout(window)
    view = CodeView(jaxpr_highlighter)
    layout.addWidget(view)
    window.resize(500, 300)
    window.show()
    qtbot.waitExposed(window)
    view.set_text("\n".join(f"  a{n}:f32[] = sin b{n}" for n in range(lines)))
    return window, view


def test_new_colours_of_many_lines_reach_the_screen(qtbot):
    """A new document's colours change every line in view: the whole view is repainted
    (more than a dozen lines changed), each line in its new colour."""
    _window, view = _code_view_in_window(qtbot, 40)
    red, blue = QColor("#ff0000"), QColor("#0000ff")
    view.set_line_backgrounds("link", {n: red for n in range(40)})
    pixel = _on_screen(qtbot, view)
    x = view.viewport().width() - 5
    shown = list(view.visible_lines())
    assert len(shown) > 13
    assert all(pixel(x, (top + bottom) // 2) == red for _line, top, bottom in shown[:-1])
    view.set_line_backgrounds("link", {n: blue for n in range(1, 40, 2)})
    pixel = _on_screen(qtbot, view)
    for line, top, bottom in shown[:-1]:
        got = pixel(x, (top + bottom) // 2)
        assert (got == blue) if line % 2 else (got not in (red, blue)), line


def test_a_hidden_views_new_colours_show_when_it_is_shown_again(qtbot):
    """A view out of sight (a pane behind another tab) is not walked line by line for its
    colours' repaint: shown again, it is painted whole, in the colours it has now."""
    _window, view = _code_view_in_window(qtbot, 40)
    red, green = QColor("#ff0000"), QColor("#00aa00")
    view.set_line_backgrounds("link", {n: red for n in range(0, 40, 2)})
    _on_screen(qtbot, view)
    view.hide()
    view.set_line_backgrounds("link", {n: green for n in range(0, 6)})
    view.show()
    pixel = _on_screen(qtbot, view)
    x = view.viewport().width() - 5
    for line, top, bottom in list(view.visible_lines())[:-1]:
        got = pixel(x, (top + bottom) // 2)
        assert (got == green) if line < 6 else (got != red), line
