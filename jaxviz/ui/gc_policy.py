"""When the window's process looks through all its objects for reference cycles: when it is idle.

CPython's cyclic collector runs each time enough objects were made. Most of its runs
look only at the young objects, but every so often a *full* pass walks every object the
process holds: with a 12-layer train step open that was 115-230 ms in one go, while the
program loaded or played (``benchmarks/bench_big_program.py`` names it).

Stepped work (:mod:`jaxviz.ui.sliced`) runs with the collector paused and, when its last
job ends, freezes what is alive (``gc.freeze``): the objects a load made are out of the
collector's sight, so the full passes that follow walk only what was made since, and the
young collections do not walk the load's objects either (76-99 ms each while the device
view played, when they did). What a freeze hides is also hidden from every later pass:
the cycles a replaced document left would stay. :func:`install` (``jaxviz.ui.app``; the
window's process only) adds the pass that frees them, when the window is idle:

* for :data:`IDLE_S` seconds no keyboard or mouse input, no stepped work (not even a
  job that began and ended between two looks: a Values panel filled at each step of a
  timer-driven walk), no trace on its way and nothing animating (views add a check
  with :func:`busy_while`), and young objects kept since the last pass;
* the first such pass after stepped work froze objects is a *deep* one: it puts the
  frozen objects back first (``gc.unfreeze``), collects, and freezes what survives; so
  is a pass after :data:`DEEP_IDLE_S` seconds idle (at most once per
  :data:`DEEP_EVERY_S`); the others walk only what was made since the last freeze.

Python's own collections go on as before. After each idle pass the C heap's free pages
go back to the system (:func:`release_free_heap`): what a timing run's transient buffers
left free (a plot's pictures cached while it streamed in) stayed resident, 5.6 MB.
"""

from __future__ import annotations

import ctypes
import gc
import sys
import time
import weakref
from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication

from jaxviz.ui import sliced

#: Seconds without input before a pass may run.
IDLE_S = 2.0
#: Seconds without input before a deep pass (frozen objects included) may run.
DEEP_IDLE_S = 30.0
#: The least time between two deep passes.
DEEP_EVERY_S = 300.0
#: How often the window is looked at for idleness (ms).
CHECK_MS = 500
#: Views say they are animating (or otherwise must not be paused) here.
busy_checks: list[Callable[[], bool]] = []


def busy_while(owner: object, attribute: str) -> None:
    """No pass while ``owner.<attribute>`` is true (a view's ``playing``); forgotten when
    ``owner`` is (the check holds it weakly)."""
    ref = weakref.ref(owner)

    def check() -> bool:
        alive = ref()
        if alive is None:
            busy_checks.remove(check)
            return False
        try:
            return bool(getattr(alive, attribute))
        except RuntimeError:  # its Qt object was deleted first
            return False

    busy_checks.append(check)

_INPUT = frozenset({QEvent.Type.KeyPress, QEvent.Type.KeyRelease, QEvent.Type.MouseButtonPress,
                    QEvent.Type.MouseButtonRelease, QEvent.Type.MouseMove, QEvent.Type.Wheel,
                    QEvent.Type.TouchBegin, QEvent.Type.TouchUpdate})


class IdleCollector(QObject):
    """Runs the full passes when the window is idle (see the module's docstring)."""

    def __init__(self, app: QApplication, clock: Callable[[], float] = time.monotonic):
        super().__init__(app)
        self._clock = clock
        self.last_input = clock()
        #: When stepped work or an animation was last seen under way (a program loading
        #: in steps leaves gaps between its jobs: a pass waits until it is over).
        self.last_busy = clock()
        self.last_deep = clock()
        self._frozen_seen = sliced.FROZEN[0]  # install() looked through those
        self._started_seen = sliced.STARTED[0]
        #: Passes run so far, and how many of them were deep (for tests and benchmarks).
        self.passes = 0
        self.deep_passes = 0
        app.installEventFilter(self)
        self.timer = QTimer(self)
        self.timer.setInterval(CHECK_MS)
        self.timer.timeout.connect(self.check)
        self.timer.start()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        if event.type() in _INPUT:
            self.last_input = self._clock()
        return False

    def busy(self) -> bool:
        """Stepped work under way or begun since the last look, or a view's check says so."""
        started, self._started_seen = self._started_seen, sliced.STARTED[0]
        return (sliced.running() or started != sliced.STARTED[0]
                or any(check() for check in list(busy_checks)))

    def check(self) -> bool:
        """Run a pass if the window is idle; True if one ran."""
        now = self._clock()
        if self.busy():
            self.last_busy = now
            return False
        quiet = now - max(self.last_input, self.last_busy)
        if quiet < IDLE_S:
            return False
        frozen_by_work = sliced.FROZEN[0] != self._frozen_seen
        deep = frozen_by_work or (quiet >= DEEP_IDLE_S and now - self.last_deep >= DEEP_EVERY_S)
        if not deep and gc.get_count()[2] == 0:  # nothing kept since the last pass
            return False
        self._frozen_seen = sliced.FROZEN[0]
        if deep:
            gc.unfreeze()
            self.last_deep = now
            self.deep_passes += 1
        gc.collect()
        gc.freeze()
        release_free_heap()
        self.passes += 1
        return True


_libc: list = []


def release_free_heap() -> bool:
    """Give the C heap's free pages back to the system (glibc's ``malloc_trim(0)``, well
    under a millisecond): freed buffers otherwise stay in the process's resident memory.
    Linux with glibc only; elsewhere, or without it, nothing (False)."""
    if not sys.platform.startswith("linux"):
        return False
    if not _libc:
        try:
            trim = ctypes.CDLL("libc.so.6").malloc_trim
        except (OSError, AttributeError):
            trim = None
        _libc.append(trim)
    if _libc[0] is None:
        return False
    _libc[0](0)
    return True


_installed: list[IdleCollector] = []


def install(app: QApplication) -> IdleCollector:
    """Add the idle passes (once per process; returns the collector)."""
    if not _installed:
        gc.collect()
        gc.freeze()  # what start-up made stays: no pass needs to walk it again
        _installed.append(IdleCollector(app))
    return _installed[0]
