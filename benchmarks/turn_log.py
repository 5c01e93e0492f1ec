"""What one slow turn of the event loop is made of: every GUI-thread call between two
heartbeat ticks, with its CPU time, for each turn over the limit.

:class:`StallLog` names a single call over 17 ms; a turn can also be slow because several
calls of 5-10 ms each land between two ticks (a slice of stepped work, then the paints of
three views). :class:`TurnLog` (a :class:`~heartbeat.StallLog`) records every event the
event loop hands out (its receiver in words and the GUI thread's CPU for it), the paints
of each widget inside it, each :class:`~jaxviz.ui.sliced.SlicedJob`'s share of a turn with
its longest single step, and every full collection; when the heartbeat ticks after a turn
whose GUI-thread CPU is over the limit, the turn's calls are kept (:attr:`slow`).

    log = TurnLog(17.0)
    app = log.application(argv)
    beat = Heartbeat()
    log.watch(beat)
    ...
    for line in log.report():
        print(line)
"""

from __future__ import annotations

import time

from heartbeat import Heartbeat, Naming, StallLog, named

#: (CPU ms, where it stopped) of every step over 4 ms (see :class:`_Timed`).
LONG_STEPS: list[tuple[float, str]] = []

#: Calls under this many CPU ms are summed into one "other calls" entry of a turn.
SMALL_MS = 0.5


class TurnLog(StallLog):
    """A :class:`StallLog` that also keeps the make-up of every turn over the limit."""

    def __init__(self, over_ms: float = 17.0) -> None:
        from PySide6.QtCore import QEvent

        super().__init__(over_ms)
        self._paint = QEvent.Type.Paint
        #: (the turn's GUI-thread CPU ms, [(call, CPU ms), ...] largest first) per slow turn.
        self.slow: list[tuple[float, list[tuple[str, float]]]] = []
        self._turn: list[tuple[str, float]] = []
        self._beat: Heartbeat | None = None
        #: Turns closed by a tick since the last :meth:`clear`.
        self.turns = 0
        self._patch_jobs()

    # ------------------------------------------------------------ recording
    def watch(self, beat: Heartbeat) -> None:
        """Close a turn at each tick of ``beat`` (connected after its own tick)."""
        self._beat = beat
        beat.timer.timeout.connect(self._tick)

    def _tick(self) -> None:
        assert self._beat is not None
        cpu = self._beat.cpu[-1] * 1000 if self._beat.cpu else 0.0
        self.turns += 1
        if cpu > self.over * 1000:
            named = sum(ms for name, ms in self._turn if not name.startswith("  "))
            calls = sorted(self._turn, key=lambda kv: -kv[1])
            calls.append(("(outside any event: Qt's own loop, the tick)", max(0.0, cpu - named)))
            self.slow.append((cpu, calls))
        self._turn = []

    def _record(self, name: str, cpu_ms: float) -> None:
        self._turn.append((name, cpu_ms))

    def _gc(self, phase: str, info: dict) -> None:
        super()._gc(phase, info)
        if phase == "stop" and info.get("generation") == 2 and self._gc_cpu:
            self._record("  gc: full collection", (time.thread_time() - self._gc_cpu) * 1000)

    def timed(self, name: str, call, *args):
        """:meth:`StallLog.timed`, the call kept in the turn's make-up too."""
        cpu = time.thread_time()
        try:
            return super().timed(name, call, *args)
        finally:
            self._record(name, (time.thread_time() - cpu) * 1000)

    def _patch_jobs(self) -> None:
        """Time each SlicedJob's share of a turn and its longest step (benchmark only)."""
        from jaxviz.ui import sliced

        if getattr(sliced.SlicedJob.run_until, "_turn_log", False):
            return
        original = sliced.SlicedJob.run_until
        log = self

        def run_until(job, deadline: float, *args, **kwargs) -> bool:
            steps = job._steps
            if steps is None:
                return original(job, deadline, *args, **kwargs)
            name = getattr(steps, "__qualname__", type(steps).__name__)
            longest = [0.0]
            if not getattr(steps, "_timed", False):
                job._steps = _timed(steps, longest)
            else:
                steps.longest = longest  # type: ignore[attr-defined]
            cpu = time.thread_time()
            try:
                return original(job, deadline, *args, **kwargs)
            finally:
                log._record(f"  job {name} (longest step {longest[0] * 1000:.1f})",
                            (time.thread_time() - cpu) * 1000)

        run_until._turn_log = True  # type: ignore[attr-defined]
        sliced.SlicedJob.run_until = run_until  # type: ignore[method-assign]

    def times(self, depth: int, event) -> bool:
        """The outermost events, and the widget paints inside a window's paint."""
        return depth == 0 or (depth == 1 and event.type() == self._paint)

    def name(self, receiver, event) -> str:
        name = super().name(receiver, event)
        if name == "timer of QTimer":  # which one: its owner, and what it calls
            owner = receiver.parent()
            name += f" of {type(owner).__name__}" if owner is not None else ""
            if owner is not None and owner.objectName():
                name += f" '{owner.objectName()}'"
        return name

    def took(self, depth: int, name: Naming, receiver, seconds: float, cpu_ms: float) -> None:
        """An outermost event: a stall over the target, and its share of the turn; a paint
        inside a window's: its share, indented."""
        if depth == 0:
            super().took(depth, name, receiver, seconds, cpu_ms)
            self._record(named(name) if cpu_ms >= SMALL_MS else "(other calls)", cpu_ms)
        elif cpu_ms >= SMALL_MS:  # a widget's paint inside a window's
            self._record(f"  {named(name)} {type(receiver).__name__}", cpu_ms)

    def clear(self) -> None:
        super().clear()
        self.slow.clear()
        self._turn = []
        self.turns = 0

    # ------------------------------------------------------------ reading
    def report(self, count: int = 4, calls: int = 8) -> list[str]:
        """The ``count`` slowest turns, each with its ``calls`` largest calls (CPU ms;
        indented: parts of the call above them)."""
        out = [f"  {len(self.slow)} of {self.turns} turns over {self.over * 1000:.0f} ms"] \
            if self.slow else []
        for cpu, made in sorted(self.slow, key=lambda t: -t[0])[:count]:
            merged: dict[str, float] = {}
            for name, ms in made:
                merged[name] = merged.get(name, 0.0) + ms
            out.append(f"  turn of {cpu:.1f} ms GUI CPU:")
            ranked = sorted(merged.items(), key=lambda kv: -kv[1])[:calls]
            out.extend(f"    {ms:6.1f}  {name.strip()}{'  (inside)' if name[:2] == '  ' else ''}"
                       for name, ms in ranked)
        return out


class _Timed:
    """``steps`` run through, the longest step's CPU seconds kept in :attr:`longest` (a
    one-item list, swapped per turn by :class:`TurnLog`); ends with the steps' result."""

    _timed = True

    def __init__(self, steps, longest: list[float]) -> None:
        self.steps = steps
        self.longest = longest
        self.__qualname__ = getattr(steps, "__qualname__", type(steps).__name__)

    def __iter__(self):
        return self

    def __next__(self):
        cpu = time.thread_time()
        try:
            return next(self.steps)
        finally:
            took = time.thread_time() - cpu
            if took > self.longest[0]:
                self.longest[0] = took
                if took > 0.004:  # where a long step stopped: the innermost generator's yield
                    LONG_STEPS.append((took * 1000, _where(self.steps)))

    def close(self) -> None:
        self.steps.close()


_timed = _Timed


def _where(steps) -> str:
    """The innermost generator a chain of ``yield from`` is in, and its line."""
    chain = []
    while steps is not None and hasattr(steps, "gi_frame"):
        frame = steps.gi_frame
        if frame is not None:
            chain.append(f"{frame.f_code.co_name}:{frame.f_lineno}")
        steps = steps.gi_yieldfrom
    return " > ".join(chain[-3:]) or "(ended)"
