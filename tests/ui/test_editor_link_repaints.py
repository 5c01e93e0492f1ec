"""The editor repaints its gutter only when its link colours or active line change (issue 28:
a big result's arrival cleared colours there were none of, a 3-8 ms repaint of the editor
in the turn every view spends on its first changes), and a new text gets them again."""

from __future__ import annotations

from PySide6.QtGui import QColor


class _Updates:
    """Counts the repaints asked of a widget (Qt's own, e.g. the caret's blinking, aside)."""

    def __init__(self, widget) -> None:
        self.count = 0
        self._update = widget.update
        widget.update = self

    def __call__(self, *args) -> None:
        self.count += 1
        self._update(*args)


def test_the_editor_repaints_its_links_only_when_they_change(qtbot):
    from jaxviz.ui.text.editor import CodeEditor

    editor = CodeEditor()
    qtbot.addWidget(editor)
    editor.setPlainText("\n".join(f"x{k} = {k}" for k in range(20)))
    editor.resize(500, 400)
    editor.show()
    qtbot.wait(30)
    paints = _Updates(editor._gutter)
    gold, blue = QColor("#f0c040"), QColor("#4060f0")

    # (counted as the calls return: the event loop's own repaints, e.g. the caret's, aside)
    editor.set_link_colours({})  # none, and none before: nothing to repaint
    editor.set_active_line(0)
    assert paints.count == 0

    editor.set_link_colours({3: gold})
    assert paints.count == 1 and editor.line_background("link", 2) == gold
    editor.set_link_colours({3: gold})  # the same again
    assert paints.count == 1

    editor.set_active_line(3, blue)
    assert paints.count == 2 and editor.line_background("active", 2) == blue
    assert editor.active_line == 3

    # a new text: the same colours are made again for its lines
    editor.setPlainText("\n".join(f"y{k} = {k}" for k in range(20)))
    editor.set_link_colours({3: gold})
    editor.set_active_line(3, blue)
    assert editor.line_background("link", 2) == gold
    assert editor.line_background("active", 2) == blue
    editor.set_active_line(0)
    assert editor.active_line == 0 and editor.line_background("active", 2) is None
