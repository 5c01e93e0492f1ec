"""Switching examples never moves a pane to another parent, and never shows the last one's
jaxpr (issue 31: switching gallery examples stalled the window 60-170 ms a switch).

Tabs are a tab bar over the one splitter every pane lives in, so a change of layout only
shows and hides panes; a pane not shown gets its content when it is first shown (or a
turn or two later). The jaxprs compared against are the engine's -- JAX's own text.
"""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication

from jaxviz.model import list_examples, variant_label
from tests.helpers.window import wait_for_panes


def _parents(area) -> dict[str, object]:
    return {v: pane.parentWidget() for v, pane in area.panes.items()}


def test_a_layout_change_only_shows_and_hides_panes(qtbot):
    from jaxviz.ui.panes.area import JaxprArea

    area = JaxprArea()
    qtbot.addWidget(area)
    area.resize(1400, 700)
    area.show()
    before = _parents(area)
    for mode in ("tabs", "side by side", "two panes", "tabs", "auto"):
        area.set_layout_mode(mode)
        for visible in (["plain", "vmap"], ["plain", "jit", "vmap", "pmap", "sharded"],
                        ["vmap", "shard_map"]):
            area.set_visible_variants(visible)
            assert _parents(area) == before, (mode, visible)
            shown = [v for v in area.panes if area.is_shown(v)]
            if area.in_tabs():  # one pane in view: the tab in front
                assert shown == [area.front_variant()]
                assert area.tab_names() == [variant_label(v) for v in area.shown_variants()]
            else:
                assert sorted(shown) == sorted(area.shown_variants())
                assert area.tab_names() == []


def _tabbed_area(qtbot):
    """An area shown in tabs with three panes (plain, vmap, pmap)."""
    from jaxviz.ui.panes.area import JaxprArea

    area = JaxprArea()
    qtbot.addWidget(area)
    area.resize(1400, 700)
    area.show()
    area.set_layout_mode("tabs")
    area.set_visible_variants(["plain", "vmap", "pmap"])
    return area


def test_ctrl_tab_brings_the_next_pane_tab_to_the_front(qtbot):
    """What the tab widget the panes were in gave: Ctrl+Tab and Ctrl+Shift+Tab, the focus in
    the panes."""
    from PySide6.QtCore import Qt

    area = _tabbed_area(qtbot)
    qtbot.waitExposed(area)
    first, order = area.front_variant(), area.shown_variants()
    view = area.panes[first].jaxpr_view
    area.activateWindow()
    view.setFocus()
    qtbot.waitUntil(view.hasFocus, timeout=3000)  # the keys are the panes' while in them
    qtbot.keyClick(view, Qt.Key.Key_Tab, Qt.KeyboardModifier.ControlModifier)
    assert area.front_variant() == order[(order.index(first) + 1) % len(order)]
    assert [v for v in area.panes if area.is_shown(v)] == [area.front_variant()]
    assert QApplication.focusWidget() is area.panes[area.front_variant()].jaxpr_view
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Backtab,
                   Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert area.front_variant() == first


def test_a_pane_not_shown_gets_what_it_was_given_before_it_is_seen(qtbot):
    area = _tabbed_area(qtbot)
    area.show_pane("plain")
    assert not area.is_shown("pmap")
    given: list[str] = []
    area.fill("pmap", lambda pane: pane.clear("first"), fresh=True)
    area.fill("pmap", lambda pane: given.append(pane.jaxpr_view.toPlainText()))
    area.fill("pmap", lambda pane: pane.clear("second"), fresh=True)  # replaces both
    assert area.filling and given == []
    area.show_pane("pmap")  # shown: filled before it is seen, in this very call
    assert area.is_shown("pmap") and not area.is_shown("plain")
    assert area.panes["pmap"].jaxpr_view.toPlainText() == "second" and given == []
    area.fill("vmap", lambda pane: pane.clear("later"), fresh=True)
    qtbot.waitUntil(lambda: not area.filling, timeout=5000)  # a turn or two later
    assert area.panes["vmap"].jaxpr_view.toPlainText() == "later"


@pytest.mark.slow
@pytest.mark.parametrize("layout", ["tabs", "side by side", "auto"])
def test_after_a_switch_every_pane_shows_the_new_examples_jaxpr(qtbot, window, layout):
    examples = {e.name: e for e in list_examples()}
    window.set_pane_layout(layout)
    parents = _parents(window.area)
    for name in ("convolve", "mlp_predict", "data_parallel", "convolve"):
        window.open_example(name)
        wait_for_panes(qtbot, window, lambda: window.state.details is not None)
        result = window.state.result
        assert result is not None and result.function == examples[name].function
        area = window.area
        for variant in area.shown_variants():
            traced = result.variant(variant)
            if traced is not None and traced.error is None:
                assert area.panes[variant].jaxpr_view.toPlainText() == traced.jaxpr_text, \
                    (name, variant)
        if area.in_tabs():
            assert area.tab_names() == [("⚠ " if area.panes[v].error_text else "")
                                        + variant_label(v) for v in area.shown_variants()]
            for variant in area.shown_variants():  # every tab, brought to the front
                area.show_pane(variant)
                assert area.is_shown(variant) and area.panes[variant].width() > 200
        assert _parents(area) == parents, name
        window.document.editor.document().setModified(False)


@pytest.mark.slow
def test_a_tab_first_shown_after_a_switch_never_shows_the_last_example(qtbot, window):
    window.set_pane_layout("tabs")
    window.open_example("mlp_predict")
    wait_for_panes(qtbot, window, lambda: window.state.details is not None)
    old = {v: window.area.panes[v].jaxpr_view.toPlainText() for v in window.area.panes}
    window.area.show_pane(window.area.shown_variants()[0])
    window.open_example("convolve")
    # the moment the new result is in: the tabs behind may not have it yet
    qtbot.waitUntil(lambda: window.state.result is not None, timeout=120_000)
    result = window.state.result
    front = window.area.front_variant()
    for variant in window.area.shown_variants():
        traced = result.variant(variant)
        window.area.show_pane(variant)  # no event processed in between
        text = window.area.panes[variant].jaxpr_view.toPlainText()
        assert traced is not None and text != old[variant] or old[variant] == traced.jaxpr_text
        if variant == front:  # in view when the result came: its own turn, after this one
            assert text in (traced.jaxpr_text, window.state.not_traced()), variant
        else:  # brought to the front: its content before it is painted
            assert text == traced.jaxpr_text, variant
    QApplication.processEvents()
    window.document.editor.document().setModified(False)


def test_a_change_of_panes_lays_each_text_out_once(qtbot):
    """Qt lays a text out again at every change of its view's width (its layout then tells
    the view to repaint all of it): a document's panes were each laid out three times (at
    no width when shown, at the splitter's shares, then a turn later at what its handles
    left of them) -- 4 ms of the switch's turn for data_parallel. Each is laid out once
    now, at the width it keeps, and the panes shown share the splitter's width equally."""
    from jaxviz.ui.panes.area import JaxprArea
    from tests.helpers.window import flush_events

    area = JaxprArea()
    qtbot.addWidget(area)
    area.resize(2400, 700)  # room for every pane's header (its minimum) at any text size
    area.show()
    area.set_layout_mode("side by side")
    text = "\n".join(f"c:f32[8] = add a{i} b{i}" for i in range(40))
    for pane in area.panes.values():
        pane.jaxpr_view.setPlainText(text)
    area.set_visible_variants(["plain", "vmap"])
    flush_events()
    layouts = {variant: 0 for variant in area.panes}
    for variant, pane in area.panes.items():
        pane.jaxpr_view.document().documentLayout().update.connect(
            lambda _rect, variant=variant: layouts.__setitem__(variant, layouts[variant] + 1))
    shown = ["plain", "vmap", "pmap", "shard_map"]
    area.set_visible_variants(shown)
    flush_events()  # what Qt posted: nothing moves any more
    for variant in shown:  # each shown anew or at a new width: laid out once, at it
        assert layouts[variant] == 1, variant
    panes = [area.panes[v].width() for v in shown]
    assert max(panes) - min(panes) <= 1  # equal shares (a pixel left over goes to one)
    assert sum(panes) > 0.95 * area.width()

    # back to two: the two kept are laid out once more each, at their new width
    layouts.update(dict.fromkeys(layouts, 0))
    area.set_visible_variants(["plain", "vmap"])
    flush_events()
    assert layouts["plain"] == layouts["vmap"] == 1
