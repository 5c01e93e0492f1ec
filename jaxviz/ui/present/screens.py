"""Where the presentation goes: the audience's window on its screen, the presenter
console on the primary screen when there is a second one (shared by ``jaxviz present``
and the window's Present action, so neither imports the other's application code)."""

from __future__ import annotations

from jaxviz.views.present.lecture import Lecture


def show(lecture: Lecture, loader, theme: str, start: int, full_screen: bool) -> list:
    """The presentation window on the audience's screen, and the presenter console
    on the primary screen when there is a second one."""
    from PySide6.QtGui import QGuiApplication

    from jaxviz.ui.present.console import PresenterConsole
    from jaxviz.ui.present.window import PresentationWindow
    from jaxviz.views.present.presentation import ScreenInfo, choose_screens

    screens = QGuiApplication.screens()
    primary = QGuiApplication.primaryScreen()
    infos = [ScreenInfo(s.name(), s.geometry().width(), s.geometry().height(), s is primary)
             for s in screens]
    audience, console_at = choose_screens(infos)
    window = PresentationWindow(lecture, loader, theme, start)
    place(window, screens[audience] if screens else None, full_screen)
    windows: list = [window]
    if console_at is not None:
        console = PresenterConsole(window)
        place(console, screens[console_at], full_screen)
        window.left.connect(lambda _index: console.close())
        windows.append(console)
    window.activateWindow()
    window.setFocus()
    return windows


def place(widget, screen, full_screen: bool) -> None:
    """Show ``widget`` on ``screen``, full screen or in a 1280x720 window."""
    if screen is not None:
        geometry = screen.geometry()
        widget.move(geometry.topLeft())
        widget.resize(geometry.size() if full_screen else geometry.size() * 0.7)
    if full_screen:
        widget.showFullScreen()
        if screen is not None and widget.windowHandle() is not None:
            widget.windowHandle().setScreen(screen)
            widget.setGeometry(screen.geometry())
    else:
        widget.show()
