"""A switch of examples in steps: the gallery's explanation is laid out a turn after the
rest of the switch, and only the last one asked for ever shows."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QTextBrowser

from jaxviz.model import get_example, list_examples
from jaxviz.model.sources import read_source
from tests.helpers.window import flush_events


def _rendered(markdown: str) -> str:
    """The text Qt's own Markdown reader makes of ``markdown`` (what the panel must show)."""
    browser = QTextBrowser()
    browser.setMarkdown(markdown)
    return browser.toPlainText()


@pytest.fixture
def panel(qtbot):
    from jaxviz.ui.panels.gallery import GalleryPanel

    gallery = GalleryPanel()
    qtbot.addWidget(gallery)
    gallery.show()
    return gallery


def test_the_explanation_follows_in_a_later_turn_and_the_last_asked_wins(panel):
    first, second = [ex.name for ex in list_examples()][:2]
    panel.show_explanation(first)
    panel.show_explanation(second)  # before the first one's turn came
    assert panel.title.text() == get_example(second).title  # the title at once
    assert panel.explaining
    flush_events()
    assert not panel.explaining
    assert panel.explanation.toPlainText() == _rendered(get_example(second).explanation)
    assert panel.explanation.toPlainText() != _rendered(get_example(first).explanation)


def test_until_its_turn_no_other_examples_explanation_stands_under_the_title(panel):
    first, second = [ex.name for ex in list_examples()][:2]
    panel.show_explanation(first)
    flush_events()
    assert panel.explanation.toPlainText() == _rendered(get_example(first).explanation)
    panel.show_explanation(second)
    assert panel.title.text() == get_example(second).title and panel.explaining
    assert panel.explanation.toPlainText() == ""  # the first's is gone with its title
    flush_events()
    assert panel.explanation.toPlainText() == _rendered(get_example(second).explanation)


def test_a_document_opened_before_the_explanation_showed_keeps_its_own(panel):
    name = list_examples()[0].name
    panel.show_explanation(name)
    panel.show_document("mine.py", '"""My own lecture file."""\nx = 1\n')
    flush_events()
    assert panel.title.text() == "mine.py"
    assert panel.explanation.toPlainText() == "My own lecture file."


def test_selecting_an_example_explains_it_once_settled(panel):
    names = [ex.name for ex in list_examples()]
    for name in (names[3], names[1]):
        panel.select(name)
    flush_events()
    assert panel.list.currentItem().text().startswith("2. ")
    assert panel.explanation.toPlainText() == _rendered(get_example(names[1]).explanation)


@pytest.mark.slow  # the window with its engine
def test_a_switch_overtaken_by_another_shows_the_second_and_keeps_an_edit(qtbot, window):
    window.open_example("normalize")
    window.open_example("convolve")  # before normalize's steps ran
    typed = "# typed while the switch settles\n"
    window.editor.textCursor().insertText(typed)
    flush_events()
    qtbot.waitUntil(lambda: not window.gallery.explaining, timeout=5000)  # its own turns
    expected = typed + read_source(get_example("convolve").path)
    assert window.editor.toPlainText() == expected
    assert window.gallery.explanation.toPlainText() == \
        _rendered(get_example("convolve").explanation)
    assert window.gallery.list.currentItem().data(Qt.ItemDataRole.UserRole) == "convolve"
