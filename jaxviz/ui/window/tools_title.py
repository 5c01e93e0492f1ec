"""The tool dock is titled after the tab it shows ("Devices", "Timing", ...), not after a
fixed list of some of its tabs; its View-menu entry keeps naming all of them."""

from __future__ import annotations

from PySide6.QtWidgets import QDockWidget, QTabWidget

#: The View menu's entry for the dock (it shows and hides the whole dock).
MENU_TEXT = "Tool tabs (Console, Values, Devices, Timing, Collectives)"


def title_after_tab(dock: QDockWidget, tabs: QTabWidget) -> None:
    """Keep ``dock``'s title the current tab's name (a floating dock's window title too)."""

    def retitle(index: int) -> None:
        name = tabs.tabText(index).replace("&", "") if index >= 0 else ""
        dock.setWindowTitle(name or MENU_TEXT)
        # Qt renames the dock's toggle action after its title: keep the menu's name.
        dock.toggleViewAction().setText(MENU_TEXT)

    tabs.currentChanged.connect(retitle)
    retitle(tabs.currentIndex())
