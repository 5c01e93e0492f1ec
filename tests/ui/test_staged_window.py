"""A window built into its shown frame (``jaxviz``'s staged start-up, issue 31) is laid out
as one built before it was shown: its docks get the planned sizes on a first run and the
remembered ones after (the docks added to a shown window were first sized from their
contents: a gallery half a 1920-px screen wide, a 700-px tool dock)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from tests.helpers.window import flush_events

pytestmark = pytest.mark.slow  # windows on the shared engine


def _layout(win) -> tuple[int, int, list[int]]:
    return (win.docks["Gallery"].width(), win.docks["Console · Devices · Timing"].height(),
            win.splitter.sizes())


def _window(qtbot, shared_engine, settings, staged: bool):
    from jaxviz.ui.window.main_window import MainWindow

    win = MainWindow(settings=settings, engine=shared_engine, staged=staged)
    qtbot.addWidget(win)
    win.setWindowState(Qt.WindowState.WindowNoState)
    win.show()
    flush_events()
    if staged:
        assert not win.built and win.isVisible()
        win.build()
    flush_events()
    qtbot.wait(50)
    flush_events()
    return win


def _close(win) -> None:
    win.document.editor.document().setModified(False)
    win.close()


def test_a_staged_window_is_laid_out_as_planned_then_as_remembered(qtbot, shared_engine,
                                                                     settings):
    plain = _window(qtbot, shared_engine, settings, staged=False)
    planned = _layout(plain)
    assert planned[0] == plain.plan.side_width  # the plan's side panels, not their contents
    _close(plain)
    settings.q.remove("window")  # forgotten: the staged window plans afresh
    staged = _window(qtbot, shared_engine, settings, staged=True)
    assert _layout(staged) == planned
    # the user widens the gallery; the next (staged) window comes back as it was left
    staged.resizeDocks([staged.docks["Gallery"]], [planned[0] + 150], Qt.Orientation.Horizontal)
    flush_events()
    left = _layout(staged)
    assert left[0] == planned[0] + 150
    _close(staged)
    again = _window(qtbot, shared_engine, settings, staged=True)
    assert _layout(again) == left
    _close(again)
