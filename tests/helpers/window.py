"""Helpers for the GUI tests: waiting for results, sampling pixels, finding lines."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QCoreApplication, QEvent, QPoint
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QWidget

#: Bound for anything that waits for JAX (engine start, a trace, a restart), in ms.
JAX_MS = 120_000


def on_screen(widget: QWidget) -> QImage:
    """What ``widget`` shows on screen now (in the screen's pixels): its window's pixels
    after Qt has painted the regions marked for repaint -- ``grab()`` would paint it all
    anew, hiding a region that was never marked, or one marked but held back."""
    window = widget.window()
    corner = widget.mapTo(window, QPoint(0, 0))
    shot = window.screen().grabWindow(window.winId()).toImage()
    ratio = shot.width() / max(1, window.width())
    return shot.copy(int(corner.x() * ratio), int(corner.y() * ratio),
                     int(widget.width() * ratio), int(widget.height() * ratio))


def flush_events(rounds: int = 5) -> None:
    """Deliver the events already posted (layout requests, deferred resizes, zero timers,
    queued signals, widgets' ``deleteLater``) and those they post in turn: the state the next
    paint shows, reached without waiting on the clock. ``widget.grab()`` then paints
    synchronously."""
    app = QCoreApplication.instance()
    for _ in range(rounds):
        QCoreApplication.sendPostedEvents()
        app.processEvents()
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


def wait_for_panes(qtbot, win, check=None, timeout: int = JAX_MS) -> None:
    """Wait until the window has no request under way, every pane has what it was given
    (a pane not shown gets it a turn or two later) and ``check()`` holds."""
    qtbot.waitUntil(lambda: not win.session.pending and not win.area.filling
                    and (check is None or check()),
                    timeout=timeout)


def pixel(widget: QWidget, x: int, y: int) -> QColor:
    """The colour of one pixel of a widget as it is painted now."""
    return widget.grab().toImage().pixelColor(x, y)


def close(a: QColor, b: QColor, tolerance: int = 12) -> bool:
    """Whether two colours are the same up to rounding in blending."""
    return all(abs(p - q) <= tolerance for p, q in zip(a.getRgb()[:3], b.getRgb()[:3]))


def line_of(text: str, needle: str) -> int:
    """The 0-based number of the first line of ``text`` containing ``needle``."""
    for n, line in enumerate(text.split("\n")):
        if needle in line:
            return n
    raise AssertionError(f"{needle!r} not in text")


def devices_tab(qtbot, win, example: str, size: tuple[int, int] = (1280, 720)):
    """Open ``example`` in the window at ``size`` and show its Devices tab; the device view,
    once it shows the storyboard's phases and the dock has grown for it."""
    win.resize(*size)
    win.open_example(example)
    wait_for_panes(qtbot, win, lambda: win.router.details is not None)
    win.tools.setCurrentWidget(win.tools.devices)
    qtbot.waitUntil(lambda: win.tools.devices.view is not None
                    and bool(win.tools.devices.view.phases), timeout=JAX_MS)
    view = win.tools.devices.view
    # shown, and the dock grew for it (the canvas may be taller than the view: it scrolls)
    qtbot.waitUntil(lambda: view.isVisible() and view.scroller.viewport().height() > 200)
    return view


def projector_window(make_window, zoom: int = 0):
    """A window as on a 1280x720 projector with the gallery and arguments shown (Ctrl+B) as
    wide as they are planned for that screen, at ``zoom``."""
    from PySide6.QtCore import Qt

    from jaxviz.views.window.screen_fit import Rect, plan_window

    win = make_window(1280, 690)
    for name in ("Gallery", "Arguments"):
        win.docks[name].show()
    side = plan_window(Rect(0, 0, 1280, 720)).side_width
    win.resizeDocks([win.docks["Gallery"]], [side], Qt.Orientation.Horizontal)
    win.set_zoom(zoom)
    return win


def start_stepping(qtbot, win, variant: str):
    """Enter step mode on ``variant`` and wait for its steps; the step controller."""
    win.step_mode.start(variant)
    controller = win.step_mode.controller
    qtbot.waitUntil(lambda: controller.result is not None and not controller.busy,
                    timeout=JAX_MS)
    return controller


def event_loop_turns(qtbot, while_: Callable[[], bool] | None = None) -> list[int]:
    """A 0 ms timer object (it fires once a turn of the event loop, after Qt's paint): a
    list that grows by one each turn (while ``while_()`` holds, if given: the work in
    steps left the loop running), kept alive for the test."""
    from PySide6.QtCore import QTimer

    ticks: list[int] = []
    timer = QTimer()
    timer.setInterval(0)

    def tick() -> None:
        try:
            if while_ is None or while_():
                ticks.append(1)
        except RuntimeError:  # what it asks about was deleted: the test is over
            timer.stop()

    timer.timeout.connect(tick)
    timer.start()
    qtbot.turns_timer = timer
    return ticks
