"""The gallery's example title at 1280x720, zoomed (issue 27, item 2).

At zoom +3 the narrow Gallery panel of a 1280x720 screen wrapped an example's bold
title over five or six lines and pushed its explanation out of sight. The title now
takes at most two lines, breaks only between words, ends in "…" when cut, and is whole
in its tooltip.
"""

from __future__ import annotations

import pytest
from PySide6.QtGui import QFont, QFontMetrics

from jaxviz.model import list_examples
from jaxviz.ui.text.title_label import TitleLabel, wrapped_lines
from tests.helpers.window import flush_events, projector_window

ELLIPSIS = "…"


def _whole_words(title: str, lines: list[str]) -> None:
    """The shown lines are the title's words in order, each whole, except one cut word
    (or none) right before a final "…"."""
    shown = " ".join(lines).split()
    words = title.split()
    cut = shown and shown[-1].endswith(ELLIPSIS)
    whole = shown[:-1] if cut else shown
    assert whole == words[:len(whole)], (title, lines)
    if cut:
        last = shown[-1][:-1]
        if last:  # a word cut at its end ("pmean…") or the whole next word
            assert words[len(whole)].startswith(last), (title, lines)
    else:
        assert whole == words, (title, lines)


@pytest.mark.parametrize("width", [60, 120, 200, 400])
def test_wrapped_lines_break_between_words_into_two_lines(qapp, width):
    font = QFont()
    font.setPixelSize(20)
    font.setBold(True)
    metrics = QFontMetrics(font)
    for example in list_examples():
        lines = wrapped_lines(example.title, metrics, width)
        assert 1 <= len(lines) <= 2
        assert all(metrics.horizontalAdvance(line) <= width for line in lines), lines
        _whole_words(example.title, lines)


def test_a_title_that_fits_is_shown_whole_without_a_tooltip(qtbot):
    label = TitleLabel()
    qtbot.addWidget(label)
    label.show()  # (a hidden widget hears of its size only when shown)
    label.resize(2000, 40)
    label.setText("psum of ones")
    assert label.lines() == ["psum of ones"] and label.toolTip() == ""
    label.setText("psum of ones counts the devices")
    label.resize(80, 40)
    lines = label.lines()
    assert len(lines) == 2 and lines[-1].endswith(ELLIPSIS), lines
    assert label.toolTip() == "psum of ones counts the devices"
    assert label.height() < 3 * label.fontMetrics().lineSpacing()


@pytest.mark.slow  # the window with its engine
def test_every_example_title_takes_at_most_two_lines_at_1280x720_zoom_3(qtbot, make_window):
    win = projector_window(make_window, 3)  # the side panels as planned for 1280x720
    try:
        flush_events()
        gallery = win.gallery
        title, body = gallery.title, gallery.explanation
        assert title.font().bold() and title.font().pointSizeF() >= 15  # zoomed with the rest
        for example in list_examples():
            gallery.show_explanation(example.name)
            flush_events()
            lines = title.lines()
            assert 1 <= len(lines) <= 2, (example.name, lines)
            metrics = title.fontMetrics()
            assert all(metrics.horizontalAdvance(line) <= title.contentsRect().width()
                       for line in lines), (example.name, lines, title.width())
            _whole_words(example.title, lines)
            cut = " ".join(" ".join(lines).split()) != example.title
            assert title.toolTip() == (example.title if cut else "")
            assert title.height() <= 2 * metrics.lineSpacing() + 12
            # the explanation under it is in view: lines of its body, not only the title
            assert body.viewport().height() >= 2 * body.fontMetrics().lineSpacing()
            assert example.explanation.split()[0].strip("`*") in body.toPlainText()
    finally:
        win.set_zoom(0)
        win.session.stop()
