"""The pane layouts' names, on their own so that the window's first stage (its frame,
painted before its parts are imported) can name them without the window state."""

from __future__ import annotations

#: The pane layout showing two chosen variants (:attr:`WindowState.two_panes`), wide.
TWO_PANES = "two panes"
#: The pane layouts: the visible panes fitted (tabs when too narrow), side by side,
#: tabs, or two chosen variants side by side whatever the visible panes are.
PANE_LAYOUTS = ("auto", "side by side", "tabs", TWO_PANES)
