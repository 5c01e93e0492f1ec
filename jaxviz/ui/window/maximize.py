"""A tool view maximized inside the window, and the tool dock undocked.

At a projector's 1280x720 the device view in its dock tab squashes the
devices into slivers. :class:`ViewMaximizer` lets the device view (F6) or the
timing view (F7) fill the window's central area -- the view's tab page, its
header row too, over the editor, panes and docks -- and the
same key again, or Esc, puts everything back exactly: the view lies on a panel
over the window's inside (menu and status bars stay) while the layout under it
is never touched; the tab comes back where it was, the tool tab that was
current and the keyboard focus too. Which view is maximized is the window state's
(:attr:`~jaxviz.views.window.window_state.WindowState.maximized`); the window follows it.

Example:
    >>> window.maximizer.toggle("devices")     # doctest: +SKIP
    >>> window.state.maximized                 # doctest: +SKIP
    'devices'
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QRect
from PySide6.QtWidgets import QApplication, QDockWidget, QMainWindow, QVBoxLayout, QWidget

from jaxviz.ui.binding import follow
from jaxviz.ui.panels.tool_tabs import ToolTabs
from jaxviz.views.window.window_state import WindowState

#: The view name -> the tool tab it lives in, by the ToolTabs attribute.
VIEW_TABS = {"devices": "devices", "timing": "timing"}


class ViewMaximizer(QObject):
    """Lays a tool view over the window's inside and back, following the state.

    The view's tab page moves onto a panel over the window's central area and
    docks (menu bar and status bar stay); the layout underneath is never touched,
    so putting the page back into its tab gives the layout back exactly.

    Args:
        window: the main window.
        tools: the tool tabs the views live in.
        tools_dock: the dock that holds the tool tabs (undocked by :meth:`set_floating`).
        state: the window state; :attr:`WindowState.maximized` says which view fills.
    """

    def __init__(self, window: QMainWindow, tools: ToolTabs, tools_dock: QDockWidget,
                 state: WindowState) -> None:
        super().__init__(window)
        self.window, self.tools = window, tools
        self.tools_dock, self.state = tools_dock, state
        #: The panel a maximized view lies on (hidden while none is).
        self.panel = QWidget(window)
        self.panel.setObjectName("maximized_view")
        self.panel.setAutoFillBackground(True)
        self._layout = QVBoxLayout(self.panel)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self.panel.hide()
        self._saved: tuple[int, str, int] | None = None
        self._page: QWidget | None = None
        self._focus: QWidget | None = None
        window.installEventFilter(self)
        follow(state, "maximized", self._follow, self)

    @property
    def active(self) -> str:
        """The view filling the central area ("" none)."""
        return self.state.maximized

    def page(self, view: str) -> QWidget:
        """The tool tab page of ``view`` (``devices``, ``timing``)."""
        page: QWidget = getattr(self.tools, VIEW_TABS[view])
        return page

    def toggle(self, view: str) -> None:
        """Maximize ``view``; if it already is, restore the layout before it."""
        self.state.set_maximized("" if self.state.maximized == view else view)

    def restore(self) -> bool:
        """Put a maximized view back (Esc); False when none was."""
        if not self.state.maximized:
            return False
        self.state.set_maximized("")
        return True

    def area(self) -> QRect:
        """The window's inside between its menu bar and its status bar."""
        window = self.window
        top = window.menuBar().geometry().bottom() + 1 if window.menuBar().isVisible() else 0
        bar = window.statusBar()
        bottom = bar.geometry().top() if bar.isVisible() else window.height()
        return QRect(0, top, window.width(), bottom - top)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        if watched is self.window and event.type() == QEvent.Type.Resize \
                and self.panel.isVisible():
            self.panel.setGeometry(self.area())
        return False

    # ------------------------------------------------------------------ moves
    def _follow(self, view: str) -> None:
        self._put_back()
        if view:
            self._take(view)

    def _take(self, view: str) -> None:
        tools, page = self.tools, self.page(view)
        index = tools.indexOf(page)
        self._saved = (tools.currentIndex(), tools.tabText(index), index)
        self._focus = QApplication.focusWidget()
        tools.ensure_view(page)  # built (and fed) the first time it is needed
        tools.blockSignals(True)  # the tab leaves and comes back: nothing changed for them
        tools.removeTab(index)
        tools.setCurrentIndex(self._saved[0] if self._saved[0] < index else
                              max(0, self._saved[0] - 1))
        tools.blockSignals(False)
        self._layout.addWidget(page)
        page.show()
        self.panel.setGeometry(self.area())
        self.panel.show()
        self.panel.raise_()
        self._page = page
        page.setFocus()
        tools.refresh_highlights()

    def _put_back(self) -> None:
        if self._page is None or self._saved is None:
            return
        current, text, index = self._saved
        page, self._page, self._saved = self._page, None, None
        self.panel.hide()
        self._layout.removeWidget(page)
        tools = self.tools
        tools.blockSignals(True)
        tools.insertTab(index, page, text)
        tools.setCurrentIndex(current)
        tools.blockSignals(False)
        if self._focus is not None:
            self._focus.setFocus()
        self._focus = None
        tools.refresh_highlights()  # the panes light the phase the view was left at

    # --------------------------------------------------------------- undock
    def set_floating(self, floating: bool) -> None:
        """Undock the tool tabs (a window of their own, on any screen) or dock them again."""
        if floating and self.state.maximized:
            self.state.set_maximized("")
        self.tools_dock.show()
        self.tools_dock.setFloating(floating)
        if floating:
            self.tools_dock.raise_()
