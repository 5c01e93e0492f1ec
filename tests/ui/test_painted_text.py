"""The Values tab's painted labels: what they draw, their size, and the copy they offer.

The values' names, types and numbers are painted by :class:`PaintedText` (QLabels cost a
step of eight devices about 4.7 ms of paints alone). These check the pixels it draws and
the room it asks for against Qt's own font metrics, and that a value can still be
copied as written.
"""

from __future__ import annotations

from PySide6.QtGui import QColor, QFont, QFontMetrics, QGuiApplication
from PySide6.QtWidgets import QWidget

from jaxviz.ui.text.painted import PaintedText
from jaxviz.views import palette
from tests.helpers.window import close


def _inked(widget: QWidget, colour: QColor | None = None, tolerance: int = 60):
    """The (x, y) of the pixels not the background's (of ``colour`` if given)."""
    image = widget.grab().toImage()
    background = image.pixelColor(image.width() - 1, image.height() - 1)
    found = []
    for y in range(image.height()):
        for x in range(image.width()):
            c = image.pixelColor(x, y)
            if colour is not None:
                if close(c, colour, tolerance):
                    found.append((x, y))
            elif c != background:
                found.append((x, y))
    return found


def test_lines_are_drawn_as_written_in_room_the_font_measures(qtbot):
    text = PaintedText()
    qtbot.addWidget(text)
    font = QFont(text.font())
    font.setPointSize(14)
    text.setFont(font)
    written = "<b>[0 1 2]</b>\n[3 4 5]"  # never HTML
    text.setText(written)
    assert text.text() == written
    metrics = QFontMetrics(font)
    hint = text.sizeHint()
    assert hint.width() == max(metrics.horizontalAdvance(line)
                               for line in written.split("\n")) + 1
    assert hint.height() == 2 * metrics.lineSpacing()
    text.resize(hint)
    text.show()
    qtbot.waitExposed(text)
    inked = _inked(text)
    assert inked
    # both lines are drawn: ink in the upper and the lower line's band, across the text
    assert any(y < metrics.lineSpacing() for _, y in inked)
    assert any(y >= metrics.lineSpacing() for _, y in inked)
    assert max(x for x, _ in inked) > hint.width() * 3 // 4


def test_a_title_draws_the_name_in_ink_and_the_type_muted(qtbot):
    title = PaintedText()
    qtbot.addWidget(title)
    title.set_runs([("x", True, None), (" f32[4,8]", False, palette.MUTED_INK)])
    assert title.text() == "x f32[4,8]"
    title.resize(title.sizeHint())
    title.show()
    qtbot.waitExposed(title)
    bold = QFont(title.font())
    bold.setBold(True)
    name_width = QFontMetrics(bold).horizontalAdvance("x")
    muted = _inked(title, QColor(palette.MUTED_INK), tolerance=12)
    # the type's pixels are muted and right of the name (the name's antialiased edges may
    # pass for muted here and there); the name's are the text colour
    right = [x for x, _ in muted if x >= name_width - 1]
    assert len(right) >= 20 and len(right) >= 10 * (len(muted) - len(right))
    ink = title.palette().windowText().color()
    assert [p for p in _inked(title, ink, tolerance=40) if p[0] < name_width]


def test_a_new_text_of_the_same_size_asks_no_layout_for_room(qtbot):
    text = PaintedText()
    qtbot.addWidget(text)
    text.setText("1.25")
    hint = text.sizeHint()
    requests = []
    text.updateGeometry = lambda: requests.append(1)  # type: ignore[method-assign]
    text.setText("1.25")  # the same: nothing at all
    text.setText("9.75")  # another of the same width
    same = QFontMetrics(text.font()).horizontalAdvance("9.75") + 1 == hint.width()
    assert requests == ([] if same else [1])
    text.setText("123456.75")
    assert requests and text.sizeHint().width() > hint.width()


def test_a_value_cell_copies_its_value_as_written(qtbot):
    from jaxviz.ui.stepper.cells import CellWidget
    from jaxviz.views.stepper.panel import Cell

    widget = CellWidget()
    qtbot.addWidget(widget)
    cell = Cell(role="out", name="y", type="f32[3]", kind="numbers", text="[1. 2. 3.]")
    widget.show_cell(cell, None)
    assert widget.title.text() == "y f32[3]" and widget.text.text() == "[1. 2. 3.]"
    [copy] = [a for a in widget.actions() if a.text() == "Copy the value"]
    copy.trigger()
    assert QGuiApplication.clipboard().text() == "y f32[3]\n[1. 2. 3.]"
