"""The marks' legend in a pane's header is never cut off mid-count: with room, each kind
with its words and count; in a narrow pane (a tab at 1280x720), each glyph with its count,
the words in the tooltip (fast tier, no engine)."""

from __future__ import annotations

import re

from jaxviz.ui.panes.jaxpr_pane import JaxprPane
from jaxviz.views.compare.changes import Mark


def _plain(rich: str) -> str:
    return re.sub(r"<[^>]+>", "", rich).replace("&nbsp;", " ")


def _marks() -> list[Mark]:
    return [Mark("wrapper", 0, 3, "runs per device"), Mark("collective", 4, 9, "psum"),
            Mark("collective", 10, 15, "psum")]


def test_a_wide_pane_says_the_words_and_a_narrow_one_the_counts(qtbot):
    pane = JaxprPane("pmap")
    qtbot.addWidget(pane)
    pane.resize(1000, 500)
    pane.show()
    qtbot.waitExposed(pane)
    pane._show_legend(_marks())
    wide = _plain(pane.legend.text())
    assert "runs per device ×1" in wide and "collective ×2" in wide
    pane.resize(300, 500)
    qtbot.waitUntil(lambda: pane.legend.width() < 300)
    narrow = _plain(pane.legend.text())
    assert "×1" in narrow and "×2" in narrow and "collective" not in narrow
    width = pane.legend.fontMetrics().horizontalAdvance(narrow)
    assert width <= pane.legend.width()  # every count on screen
    assert "runs per device ×1" in pane.legend.toolTip()
    pane.resize(1000, 500)
    qtbot.waitUntil(lambda: "collective ×2" in _plain(pane.legend.text()))
