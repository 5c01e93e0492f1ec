"""A result's panes are filled after the turn it came in, each pane in a turn of its own
(issue 31: the result's routing, a pane's new jaxpr and that pane's first paint in one turn
were 25-35 ms), and ``panesUpdated`` says when the panes in view show it."""

from __future__ import annotations

import pytest

from tests.helpers.window import JAX_MS, event_loop_turns, wait_for_panes

# Not in the fast tier: the window on the real engine.
pytestmark = pytest.mark.slow


def test_the_panes_in_view_show_a_result_when_panes_updated_says_so(qtbot, make_window):
    window = make_window(1920, 1080)
    window.open_example("data_parallel")
    wait_for_panes(qtbot, window, lambda: window.state.details is not None)
    shown = [v for v in window.state.shown_variants() if window.area.is_shown(v)]
    assert len(shown) >= 2
    filled_when_told: list[bool] = []
    came: list[bool] = []

    def told() -> None:
        result = window.state.result
        filled_when_told.append(all(window.area.panes[v].result is result.variant(v)
                                    for v in shown))

    original = window.router.show_result

    def show_result(req, reply) -> None:  # the result's own turn: no pane filled in it
        original(req, reply)
        result = window.state.result
        came.append(not any(window.area.panes[v].result is result.variant(v) for v in shown))

    window.router.show_result = show_result
    window.panesUpdated.connect(told)
    cursor = window.editor.textCursor()
    cursor.movePosition(cursor.MoveOperation.End)
    cursor.insertText("\n# an edit\n")
    qtbot.waitUntil(lambda: bool(filled_when_told), timeout=JAX_MS)
    assert came == [True]  # nothing of the new result in a pane in the turn it came in
    assert filled_when_told == [True]  # all of it in the panes in view when told


def test_each_pane_gets_its_result_in_a_turn_of_its_own(qtbot, make_window):
    """Between two panes' fills the event loop turned (and Qt painted the first): no turn
    fills two."""
    window = make_window(1920, 1080)
    window.open_example("data_parallel")
    wait_for_panes(qtbot, window, lambda: window.state.details is not None)
    shown = [v for v in window.state.shown_variants() if window.area.is_shown(v)]
    assert len(shown) >= 2
    turns = event_loop_turns(qtbot)
    seen: list[tuple[str, int]] = []
    for variant in shown:
        pane = window.area.panes[variant]
        original = pane.show_result

        def show_result(vr, marks, original=original, variant=variant) -> None:
            seen.append((variant, len(turns)))
            original(vr, marks)

        pane.show_result = show_result
    cursor = window.editor.textCursor()
    cursor.movePosition(cursor.MoveOperation.End)
    cursor.insertText("\n# an edit\n")
    qtbot.waitUntil(lambda: len(seen) >= len(shown), timeout=JAX_MS)
    counts = [count for _variant, count in seen[:len(shown)]]
    assert all(later > earlier for earlier, later in zip(counts, counts[1:])), seen
