"""The event loop's heartbeat, shared by the GUI benchmarks: a 5 ms QTimer whose longest
gap between ticks is the longest event-loop stall (one frame at 60 Hz is 16.7 ms).

The benchmarks run as scripts (``python benchmarks/bench_gui.py``), so this folder is on
``sys.path`` and they import it as ``from heartbeat import Heartbeat``.
"""

from __future__ import annotations

import time


class Heartbeat:
    """A 5 ms QTimer; the longest gap between its ticks is the longest event-loop stall."""

    def __init__(self) -> None:
        from PySide6.QtCore import QTimer

        self.gaps: list[float] = []
        self.all_gaps: list[float] = []
        #: The GUI thread's own CPU time between ticks: what a stall costs when the
        #: machine's cores are not shared (a loaded machine stretches the wall clock).
        self.cpu: list[float] = []
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
        self.gaps.clear()
        self.cpu.clear()
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
