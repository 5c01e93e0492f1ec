"""Starting the window: ``jaxviz [TARGET] [--devices N]``.

The window is shown first, the JAX engine process is started right after, in
the background, and the target (``example:NAME``, ``file.py``,
``file.py:function`` or a timing recording ``.json``) is opened at once: its
request waits in the engine client's queue until JAX is up. Without a target
(``jaxviz`` from the applications menu) the function open last is opened
again, or ``example:convolve`` on the first run.

Without a display the command says so in one line instead of letting Qt
print its platform-plugin dump.
"""

from __future__ import annotations

import argparse
import sys
import time
import typing
from collections.abc import Callable
from typing import TYPE_CHECKING, cast

from jaxviz.model.limits import DEVICES, argument_type
from jaxviz.ui.display import display_problem, prepare_qt

if TYPE_CHECKING:
    from PySide6.QtWidgets import QApplication, QWidget

#: Set when this module is imported: the benchmark's and the log's reference time.
IMPORTED_AT = time.perf_counter()


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> typing.NoReturn:
        self.exit(2, f"jaxviz: error: {message} (see `jaxviz --help`)\n")


def make_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="jaxviz", description="Open the jaxviz window (see `jaxviz --help` for the "
                                   "command-line subcommands).")
    parser.add_argument("target", nargs="?", help="example:NAME, path/to/file.py[:function] "
                                                  "or a timing recording .json")
    parser.add_argument("--devices", type=argument_type(DEVICES), metavar="N",
                        help="start JAX with N devices (default: as last time, 8 at first)")
    parser.add_argument("--listen", metavar="SOCKET", help=argparse.SUPPRESS)  # jaxviz.show
    return parser


def main(argv: list[str] | None = None,
         on_shown: Callable[[object], None] | None = None,
         on_painted: Callable[[object], None] | None = None) -> int:
    """Open the window and run until it closes; returns the exit code.

    The engine starts and the target opens only once the window has painted
    (its first paint event, or :data:`PAINT_WAIT_MS` at the latest), so the
    first frame never waits for them.

    Args:
        argv: the arguments after ``jaxviz``.
        on_shown: called with the window once it is on screen, the engine started
            and the target opened (benchmarks, tests).
        on_painted: called with the window at its first paint, before the engine
            starts or the target opens (the start-up benchmark, the import test).
    """
    ns = make_parser().parse_args(argv)
    problem = display_problem()
    if problem:
        print(problem, file=sys.stderr)
        return 3
    prepare_qt()
    from PySide6.QtCore import QCoreApplication, QEvent, QTimer
    from PySide6.QtWidgets import QApplication

    from jaxviz.ui.theme import style
    from jaxviz.ui.theme.qt_guard import protect_singletons

    protect_singletons()  # once, before any widget: PySide6 6.12.0 on CPython 3.11
    app = cast(QApplication, QApplication.instance())
    if app is None:
        # Fusion from the start (Qt's -style option): setting it from Python hands PySide6
        # the QStyle before the first paint, which creates its type and eleven enums.
        app = QApplication([*sys.argv[:1], "-style", "Fusion"])
        app.setProperty(style.FUSION_PROPERTY, True)
    app.setApplicationName("jaxviz")
    app.setOrganizationName("jaxviz")
    app.setApplicationDisplayName("jaxviz")
    app.setDesktopFileName("jaxviz")  # jaxviz.desktop (jaxviz --install-desktop-entry)
    style.apply_theme(app)
    app.setWindowIcon(style.app_icon())

    from jaxviz.ui.window.main_window import MainWindow

    # Staged: the frame paints first; the parts are imported and built right after.
    window = MainWindow(devices=ns.devices, staged=True)
    window.show()

    def after_painted() -> None:
        window.build()
        window.start_engine()  # JAX starts while the parts are laid out and the target opens
        # The parts are laid out (and painted) in the next turn of the event loop; the
        # target opens after that, when the panes know their room.
        QTimer.singleShot(0, after_built)

    def after_built() -> None:
        if ns.listen:  # started by jaxviz.show(): functions arrive over a private socket
            from jaxviz.ui.window.channel import ChannelServer, open_in_window

            channel = ChannelServer(ns.listen, lambda m, t: open_in_window(window, m, t),
                                    parent=window)
            problem = channel.listen()
            if problem:
                print(f"jaxviz: error: {problem}", file=sys.stderr)
        from jaxviz.ui.text.highlighters import warm_lexers

        warm_lexers()  # Pygments compiles its lexers in a thread, not on the GUI's
        try:
            if not ns.listen:  # else the first message says what to open
                window.open_target(ns.target or window.last_target())
        finally:  # whatever the target did, unsaved work from a crash is offered back
            window.offer_recovery()
            from jaxviz.ui import gc_policy

            gc_policy.install(app)  # full cycle collections wait until the window is idle
            if on_shown is not None:
                on_shown(window)

    _after_first_paint(app, window, on_painted, after_painted)
    code = app.exec()
    # Closing the last window posts a Quit event; when the QApplication outlives this
    # call (tests, benchmarks) it must not end the caller's next event loop.
    QCoreApplication.removePostedEvents(app, QEvent.Type.Quit)
    return code


#: The longest the engine and the target wait for the window's first paint (ms).
PAINT_WAIT_MS = 500


def _after_first_paint(app: QApplication, window: QWidget,
                       on_painted: Callable[[object], None] | None,
                       then: Callable[[], None]) -> None:
    """Call ``on_painted(window)`` at the window's first paint event, then ``then()``
    from the event loop; ``then`` runs after :data:`PAINT_WAIT_MS` if no paint comes
    (a minimized window)."""
    from PySide6.QtCore import QEvent, QObject, QTimer

    done = False

    def fire() -> None:
        nonlocal done
        if done:
            return
        done = True
        window.removeEventFilter(watcher)
        if on_painted is not None:
            on_painted(window)
        QTimer.singleShot(0, then)

    paint = QEvent.Type.Paint

    class FirstPaint(QObject):
        def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
            if not done and event.type() == paint:
                QTimer.singleShot(0, fire)  # after this paint has finished
            return False

    # The window's own events only (a window is painted from its background up, so
    # its paint event comes first): a filter on the application would see every
    # event of every object, and PySide6 would create a Python type, with all its
    # enums, for each kind of event and object passed to it (159 enums, 40 ms of
    # the first paint).
    watcher = FirstPaint(window)
    window.installEventFilter(watcher)
    QTimer.singleShot(PAINT_WAIT_MS, fire)
