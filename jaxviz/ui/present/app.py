"""``jaxviz present`` with a display: the audience's window, and the console on a second screen."""

from __future__ import annotations

import sys
from typing import cast

from jaxviz.ui.present.screens import show
from jaxviz.views.present.lecture import Lecture


def main(lecture: Lecture, theme: str = "light", start: int = 0, measure: bool = False,
         full_screen: bool = True, timeout: float = 120.0) -> int:
    """Present ``lecture`` until the presentation is left (Esc); returns the exit code."""
    from jaxviz.ui.display import display_problem, prepare_qt

    problem = display_problem()
    if problem:
        print(problem.replace("open the window on", "present on"), file=sys.stderr)
        return 3
    prepare_qt()
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
