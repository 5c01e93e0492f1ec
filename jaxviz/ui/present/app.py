"""``jaxviz present`` with a display: the audience's window, and the console on a second screen."""

from __future__ import annotations

import sys
from typing import cast

from jaxviz.model.lecture import Lecture


def main(lecture: Lecture, theme: str = "light", start: int = 0, measure: bool = False,
         full_screen: bool = True, timeout: float = 120.0) -> int:
    """Present ``lecture`` until the presentation is left (Esc); returns the exit code."""
    from jaxviz.ui.app import display_problem

    problem = display_problem()
    if problem:
        print(problem.replace("open the window on", "present on"), file=sys.stderr)
        return 3
    from PySide6.QtCore import QCoreApplication, QEvent
    from PySide6.QtWidgets import QApplication

    from jaxviz.engine import EngineClient
    from jaxviz.ui.present.loading import DeckLoader, blocking_run
    from jaxviz.ui.theme import style
    from jaxviz.ui.theme.qt_guard import protect_singletons

    protect_singletons()
    app = cast(QApplication, QApplication.instance()) or QApplication(sys.argv[:1])
    app.setApplicationName("jaxviz")
    style.apply_theme(app)
    client = EngineClient(devices=lecture.devices, timeout=timeout, standby=False)
    client.start(wait=False)
    try:
        loader = DeckLoader(lecture, blocking_run(client, timeout))
        windows = show(lecture, loader, theme, start, full_screen)
        loader.load(measure=measure)
        windows[0].left.connect(lambda _index: app.quit())
        code = app.exec()
    finally:
        client.stop()
    QCoreApplication.removePostedEvents(app, QEvent.Type.Quit)
    return code


def show(lecture: Lecture, loader, theme: str, start: int, full_screen: bool) -> list:
    """The presentation window on the audience's screen, and the presenter console
    on the primary screen when there is a second one."""
    from PySide6.QtGui import QGuiApplication

    from jaxviz.model.presentation import ScreenInfo, choose_screens
    from jaxviz.ui.present.console import PresenterConsole
    from jaxviz.ui.present.window import PresentationWindow

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
