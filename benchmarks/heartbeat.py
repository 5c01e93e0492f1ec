"""The event loop's heartbeat, shared by the GUI benchmarks: a 5 ms QTimer whose longest
gap between ticks is the longest event-loop stall (one frame at 60 Hz is 16.7 ms).

The benchmarks run as scripts (``python benchmarks/bench_gui.py``), so this folder is on
``sys.path`` and they import it as ``from heartbeat import Heartbeat``.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from array import array
from collections.abc import Callable


def bytecode_as_installed() -> str:
    """Import with compiled bytecode cached, as an installed jaxviz runs, in this process
    and the ones it starts; returns a line saying so for the benchmark's header.

    A machine that sets ``PYTHONDONTWRITEBYTECODE`` (this project's sandbox does) compiles
    every jaxviz module from source at every start-up and every first import -- 35 ms
    for the diff module alone -- which no user's window does. The bytecode goes to a
    cache folder of its own (``sys.pycache_prefix``), never into the repository; jaxviz's
    modules are compiled there first, the rest on their first import (the benchmarks
    start one window before timing any).
    """
    if not (sys.flags.dont_write_bytecode or os.environ.get("PYTHONDONTWRITEBYTECODE")):
        return "bytecode: Python's own cache (as installed)"
    import compileall

    prefix = os.path.join(tempfile.gettempdir(), "jaxviz-bench-pycache")
    sys.pycache_prefix = prefix
    sys.dont_write_bytecode = False
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPYCACHEPREFIX"] = prefix
    package = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                           "jaxviz")
    compileall.compile_dir(package, quiet=1)
    return (f"bytecode: cached in {prefix} (this machine sets PYTHONDONTWRITEBYTECODE; "
            f"an installed jaxviz has its bytecode)")


def fixed_workload(clock: Callable[[], float] = time.perf_counter) -> float:
    """Seconds, on ``clock``, of a fixed pure-Python workload (sorting and hashing
    strings): the unit of the benchmarks' figures that depend less on the machine."""
    words = [f"x{(n * 7919) % 100_003}" for n in range(60_000)]
    start = clock()
    for _ in range(3):
        sorted(words)
        {w: hash(w) for w in words}
    return clock() - start


def machine_speed() -> str:
    """A line for a benchmark's header and end: the thread's own CPU time for
    :func:`fixed_workload` (median of 9). A virtual machine's speed can change by half
    within an hour with nothing else running on it (its host's other guests: the load
    average does not see it, and the time the host takes is counted as the thread's):
    compare stall figures only between runs whose workload took about the same time."""
    took = sorted(fixed_workload(time.thread_time) for _ in range(9))
    return (f"machine speed: a fixed Python workload takes {took[4] * 1000:.0f} ms of CPU "
            f"(compare runs at the same speed)")


class Heartbeat:
    """A 5 ms QTimer; the longest gap between its ticks is the longest event-loop stall."""

    def __init__(self) -> None:
        from PySide6.QtCore import QTimer

        # Arrays of doubles, not lists of floats (8 bytes a tick, not 32): a whole bench_gui
        # run ticks 20,000 times, in the process whose memory it measures.
        self.gaps = array("d")
        self.all_gaps = array("d")
        #: The GUI thread's own CPU time between ticks: what a stall costs when the
        #: machine's cores are not shared (a loaded machine stretches the wall clock).
        self.cpu = array("d")
        self.worst_cpu = 0.0
        self._last = time.perf_counter()
        self._last_cpu = time.thread_time()
        self.timer = QTimer()
        self.timer.setInterval(5)
        self.timer.timeout.connect(self._tick)

    def _tick(self) -> None:
        now = time.perf_counter()
        self.gaps.append(now - self._last)
        self._last = now
        cpu = time.thread_time()
        self.cpu.append(cpu - self._last_cpu)
        self._last_cpu = cpu

    def start(self) -> None:
        del self.gaps[:]
        del self.cpu[:]
        self._last = time.perf_counter()
        self._last_cpu = time.thread_time()
        self.timer.start()

    def stop(self) -> float:
        """The longest stall (seconds beyond the 5 ms interval)."""
        self.timer.stop()
        self.all_gaps.extend(self.gaps)
        self.worst_cpu = max(self.cpu, default=0.0)
        return max((g - 0.005 for g in self.gaps), default=0.0)

    def p99(self) -> float:
        """The 99th percentile of every stall measured so far (seconds)."""
        gaps = sorted(g - 0.005 for g in self.all_gaps)
        return gaps[int(0.99 * (len(gaps) - 1))] if gaps else 0.0


class StallLog:
    """What the GUI thread was doing during each stall, by name.

    :meth:`application` makes the ``QApplication`` with its ``notify`` timed: every
    event the event loop hands to an object (a paint, a timer, a queued call) that takes
    longer than ``over_ms`` is logged with the object it went to -- the widget's class
    and name for a paint, the steps a :class:`jaxviz.ui.sliced.SlicedJob` ran for its
    timer -- and every full collection of Python's cyclic garbage collector (which walks
    every object of the process) is logged with its duration. :meth:`timed` names a
    direct call (the benchmark's own ``set_result``...).
    """

    def __init__(self, over_ms: float = 17.0) -> None:
        self.over = over_ms / 1000.0
        #: (milliseconds, name, the GUI thread's CPU milliseconds) of each stall, in order
        #: (on a loaded machine the wall clock stretches; the CPU time is the call's own).
        self.stalls: list[tuple[float, str, float]] = []
        #: Log only while this heartbeat runs (None: always): what a part's stall figure
        #: measures, not the window's construction or the waits between its measurements.
        self.during: Heartbeat | None = None
        self._gc_start = self._gc_cpu = 0.0
        import gc

        gc.callbacks.append(self._gc)

    def _gc(self, phase: str, info: dict) -> None:
        if info.get("generation") != 2:
            return
        if phase == "start":
            self._gc_start = time.perf_counter()
            self._gc_cpu = time.thread_time()
        elif self._gc_start:
            took = time.perf_counter() - self._gc_start
            if took > self.over:
                self._stall(took * 1000, "gc: full collection",
                            (time.thread_time() - self._gc_cpu) * 1000)

    def timed(self, name: str, call, *args):
        """Call ``call(*args)`` and log it under ``name`` if it took longer than the limit."""
        start, cpu = time.perf_counter(), time.thread_time()
        try:
            return call(*args)
        finally:
            took = time.perf_counter() - start
            if took > self.over:
                self._stall(took * 1000, name, (time.thread_time() - cpu) * 1000)

    def application(self, argv: list[str]):
        """A ``QApplication`` whose events are timed into this log, told what the window's
        own is (:func:`jaxviz.ui.display.prepare_qt`)."""
        from jaxviz.ui.display import prepare_qt

        prepare_qt()
        from PySide6.QtCore import QEvent
        from PySide6.QtWidgets import QApplication

        log = self
        deferred_delete = QEvent.Type.DeferredDelete  # the event deletes its receiver

        class TimedApplication(QApplication):
            depth = 0

            def notify(self, receiver, event):  # noqa: N802 - Qt's name
                depth = TimedApplication.depth
                if not log.times(depth, event):
                    return super().notify(receiver, event)
                # Named only if it is logged (naming every event would add its own CPU to
                # the turns measured); a receiver the event deleted is named before.
                early = log.name(receiver, event) if event.type() == deferred_delete else None
                TimedApplication.depth += 1
                start, cpu = time.perf_counter(), time.thread_time()
                try:
                    return super().notify(receiver, event)
                finally:
                    TimedApplication.depth -= 1
                    log.took(depth, early or (lambda: log.name(receiver, event)), receiver,
                             time.perf_counter() - start, (time.thread_time() - cpu) * 1000)

        return TimedApplication(argv)

    def times(self, depth: int, event) -> bool:
        """Whether an event delivered at this nesting ``depth`` is timed: here only the
        outermost (a nested event's time is the outer one's)."""
        return depth == 0

    def name(self, receiver, event) -> str:
        """What the log calls an event."""
        return _name_of(receiver, event)

    def took(self, depth: int, name: Naming, receiver, seconds: float, cpu_ms: float) -> None:
        """A timed event ended: a stall when it took longer than the target."""
        if seconds > self.over:
            self._stall(seconds * 1000, named(name), cpu_ms)

    def _stall(self, ms: float, name: str, cpu_ms: float) -> None:
        if self.during is None or self.during.timer.isActive():
            self.stalls.append((ms, name, cpu_ms))

    def worst(self, count: int = 8) -> list[tuple[float, str, float]]:
        """The longest stalls logged, longest first: (wall ms, name and how many times it
        stalled, its CPU ms), each name once."""
        by_name: dict[str, list[tuple[float, float]]] = {}
        for ms, name, cpu in self.stalls:
            by_name.setdefault(name, []).append((ms, cpu))
        ranked = sorted(by_name.items(), key=lambda kv: -max(kv[1])[0])
        return [(max(times)[0], f"{name} (x{len(times)})" if len(times) > 1 else name,
                 max(times)[1]) for name, times in ranked[:count]]

    def clear(self) -> None:
        self.stalls.clear()


#: An event's name, or how to get it once it is known to be wanted.
Naming = str | Callable[[], str]

def named(name: Naming) -> str:
    """The name an event was given (see :meth:`StallLog.took`)."""
    if isinstance(name, str):
        return name
    try:
        return name()
    except RuntimeError:  # its receiver went with the event (Qt deleted it)
        return "(a deleted object)"


def _steps_name(steps) -> str:
    return getattr(steps, "__qualname__", type(steps).__name__)


def _name_of(receiver, event) -> str:
    """An event's receiver in words: ``paint DeviceView``, ``steps CompareView._compare_steps``."""
    kind = getattr(event.type(), "name", str(event.type()))
    parent = receiver.parent() if hasattr(receiver, "parent") else None
    jobs = getattr(parent, "jobs", None)  # the SlicedJobs' shared turn: the steps under way
    if isinstance(jobs, dict) and type(parent).__name__ == "_Turns":
        names = sorted({_steps_name(job._steps) for job in jobs.values()
                        if job._steps is not None})
        return "steps " + (", ".join(names[:3]) if names else "(done)")
    steps = getattr(parent, "_steps", None)  # a SlicedJob's timer: the steps it runs
    if steps is not None:
        return f"steps {_steps_name(steps)}"
    who = type(receiver).__name__
    if receiver.objectName() and not receiver.objectName().startswith("qt_"):
        who += f" '{receiver.objectName()}'"
    if who in ("QWidget", "QWindow") or receiver.objectName().startswith("qt_"):
        who += f" in {type(parent).__name__}" if parent is not None else ""
    words = {"UpdateRequest": "paint", "Paint": "paint", "MetaCall": "queued call to",
             "Timer": "timer of"}
    return f"{words.get(kind, kind)} {who}"
