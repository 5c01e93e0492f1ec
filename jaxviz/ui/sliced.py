"""Work in steps run on the GUI thread, a few milliseconds per event-loop turn.

:class:`SlicedJob` drives the steps of a computation (a generator, see
:mod:`jaxviz.views.incremental`) from a zero-interval timer: each turn of the event loop
it runs steps until :data:`SLICE_MS` have passed, then lets Qt paint and handle input,
and when the steps return it emits :attr:`SlicedJob.finished` with their result. Why
not a thread: a Python thread in this process holds the GIL while it computes, and the
GUI thread waits for the GIL after nearly every Qt call it makes, so a thread stalls the
window more than the work itself would (see :mod:`jaxviz.views.incremental`).

Example:
    >>> job = SlicedJob(diff_steps(left, right))            # doctest: +SKIP
    >>> job.finished.connect(show)                           # doctest: +SKIP
    >>> job.start()                                          # doctest: +SKIP
"""

from __future__ import annotations

import functools
import gc
import time

from PySide6.QtCore import QObject, QTimer, Signal
from shiboken6 import isValid

from jaxviz.views.incremental import OWN_TURN, Steps

#: The GUI thread's time given to the steps per event-loop turn (one 60 Hz frame is 16.7).
SLICE_MS = 6.0

#: The jobs under way, while Python's cyclic collector is paused for them (see
#: :func:`_pause_gc`), and whether it was on before the first of them began.
_PAUSING: set[int] = set()
_GC_WAS_ENABLED = [False]
#: How many times the end of stepped work froze what was alive (a window's idle collector
#: looks through the frozen objects once after each: :mod:`jaxviz.ui.gc_policy`).
FROZEN = [0]
#: How many jobs have started (the idle collector counts a job that began and ended
#: between two of its looks as work under way).
STARTED = [0]


def _pause_gc(job: int) -> None:
    """Pause the cyclic collector while any job runs. The steps make hundreds of thousands of
    objects, and each time enough of them are made the collector runs; every few runs it
    walks every object of the process (a 12-layer train step's result and its views: 400 ms
    on the GUI thread). When the last job ends, what is alive then -- the results the jobs
    made, which the views keep -- is moved out of the collector's sight (``gc.freeze``), and
    it resumes: its full passes then walk only what was made since, not the whole program
    again (reference counting still frees what is dropped; only a reference cycle among
    those objects would outlive them, and the results and diffs hold none)."""
    if not _PAUSING:
        _GC_WAS_ENABLED[0] = gc.isenabled()
        gc.disable()
    _PAUSING.add(job)
    STARTED[0] += 1


def running() -> bool:
    """Whether any job is under way (:mod:`jaxviz.ui.gc_policy` waits for them)."""
    return bool(_PAUSING)


def _resume_gc(job: int) -> None:
    if job in _PAUSING:
        _PAUSING.discard(job)
        if not _PAUSING and _GC_WAS_ENABLED[0]:
            gc.freeze()
            FROZEN[0] += 1
            gc.enable()


class SlicedJob(QObject):
    """Runs ``steps`` on the GUI thread, at most ``slice_ms`` per event-loop turn.

    Every job under way shares one budget per turn (at most :data:`TURN_MS`, less when
    the paint of what they changed took the frame: see :class:`_Turns`): three views
    filling at once take one budget, not three, before Qt paints again.

    Signals:
        finished(object): the steps returned this result (not emitted when cancelled or
            when a step raised: :attr:`error` holds the exception then, and
            :attr:`failed` is emitted).
        failed(object): a step raised this exception.
    """

    finished = Signal(object)
    failed = Signal(object)

    def __init__(self, steps: Steps[object], slice_ms: float = SLICE_MS,
                 parent: QObject | None = None):
        super().__init__(parent)
        self._steps: Steps[object] | None = steps
        self._slice_s = slice_ms / 1000.0
        self.error: BaseException | None = None
        #: How many turns of the event loop the job took (for benchmarks and tests).
        self.turns = 0
        #: How many steps have run (and gone on).
        self.steps_run = 0
        self._own_next = False
        self._last_step_s = 0.0
        # deleted under way (with the view that owns it): the collector is not left paused,
        # and the turns forget it
        self.destroyed.connect(functools.partial(_forget, id(self)))

    @property
    def busy(self) -> bool:
        """Started (or not yet started) and neither finished, failed nor cancelled."""
        return self._steps is not None

    def start(self) -> SlicedJob:
        """Run the first slice on the next turn of the event loop."""
        if self._steps is not None:
            _pause_gc(id(self))
            _turns().add(self)
        return self

    def cancel(self) -> None:
        """Stop: no more steps run, nothing is emitted."""
        _turns().forget(id(self))
        if self._steps is not None:
            self._steps.close()
        self._end()

    def _end(self) -> None:
        self._steps = None
        _resume_gc(id(self))

    @property
    def wants_own_turn(self) -> bool:
        """Its next step changes what is on screen (a step yielded
        :data:`~jaxviz.views.incremental.OWN_TURN`): it runs alone, first in a turn."""
        return self._own_next and self._steps is not None

    def run_until(self, deadline: float, fresh: bool = True) -> bool:
        """Run steps until ``deadline`` (``time.perf_counter``) or this job's own slice is
        over; emit :attr:`finished` or :attr:`failed` if they end. Returns whether a step
        asked for the next one to run in a turn of its own (this turn ends then).

        ``fresh``: no step has run in this turn yet. Then the first step runs whatever it
        costs; any other only when a step as long as this job's last one would end before
        the deadline (a 7 ms step begun 6 ms into an 8 ms budget made a 13 ms turn): it
        waits for the next turn, first in line.
        """
        if self._steps is None:
            return False
        end = min(deadline, time.perf_counter() + self._slice_s)
        counted = False
        while True:
            now = time.perf_counter()
            if now >= end or (not fresh and now + self._last_step_s > end + _SLACK_S):
                return False
            fresh = False
            if not counted:
                self.turns += 1
                counted = True
            if not self._step():
                return False
            if self._own_next:
                return True

    def run_own_step(self) -> None:
        """Run the one step that asked for a turn of its own (:attr:`wants_own_turn`)."""
        if self._steps is not None:
            self.turns += 1
            self._own_next = False
            self._step()

    def _step(self) -> bool:
        """One step; whether the job goes on (False: it ended, failed or was deleted)."""
        steps = self._steps
        if steps is None:
            return False
        start = time.perf_counter()
        try:
            self._own_next = next(steps) is OWN_TURN
        except StopIteration as done:
            self._end()
            if isValid(self):
                self.finished.emit(done.value)
            return False
        except Exception as error:  # noqa: BLE001 - handed to whoever started the job
            self._end()
            self.error = error
            if isValid(self):
                self.failed.emit(error)
            return False
        if not isValid(self):  # a step deleted the job (with its parent): no more
            self._end()
            return False
        self._last_step_s = time.perf_counter() - start
        self.steps_run += 1
        return True


#: How far past its turn's deadline a step may be expected to end and still begin.
_SLACK_S = 0.0002

#: The GUI thread's time given to all the jobs together per event-loop turn, at most. The
#: paint that follows a turn's steps is not known ahead (the last one's is): at 8 ms, a
#: 12-layer train step loading (bench_big_program) had 1-5 of about 200 turns over a frame,
#: its longest gaps 14-21 ms; at 6 ms, 0-1 such turns and 13-16 ms, loading 5 % longer.
TURN_MS = 6.0
#: The GUI thread's CPU time one turn may cost in all (a 60 Hz frame is 16.7 ms): the jobs
#: get what the GUI thread's other work since their last turn (the paint of what they
#: changed, an event handler) left of it, at least :data:`MIN_TURN_MS` (so they go on).
FRAME_MS = 15.0
MIN_TURN_MS = 2.0


class _Turns(QObject):
    """The jobs under way, run from one zero-interval timer: each turn gives them
    :meth:`budget` in all, in order (each at most its own slice); the ones that ran go to
    the back of the line, so a job not reached this turn goes first the next. A step that
    yields :data:`~jaxviz.views.incremental.OWN_TURN` ends the turn, and its job's next step
    (a change on screen) runs alone in the next one: its paint follows it in that turn,
    not a full budget of steps."""

    def __init__(self) -> None:
        super().__init__()
        self.jobs: dict[int, SlicedJob] = {}
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(0)
        self.timer.timeout.connect(self.turn)
        #: The GUI thread's CPU clock when the jobs' last turn ended (or when the first job
        #: of an empty line was asked for): what came after it is the rest of this frame.
        self.since = time.thread_time()

    def add(self, job: SlicedJob) -> None:
        if not self.jobs:
            self.since = time.thread_time()
        self.jobs.setdefault(id(job), job)
        self.timer.start()

    def forget(self, job: int) -> None:
        self.jobs.pop(job, None)

    def budget(self) -> float:
        """Milliseconds for this turn's jobs: :data:`FRAME_MS` less the GUI thread's CPU
        since :attr:`since`, within :data:`MIN_TURN_MS` .. :data:`TURN_MS` (a step whose
        paint took 10 ms leaves the next step 5 ms, so that step and its paint fit a
        frame)."""
        other = (time.thread_time() - self.since) * 1000.0
        return min(TURN_MS, max(MIN_TURN_MS, FRAME_MS - other))

    def turn(self) -> None:
        own = next((key for key, job in self.jobs.items() if job.wants_own_turn), None)
        if own is not None:  # a step that changes the screen: alone, painted before more
            ran = [own]
            self.jobs[own].run_own_step()
        else:
            end = time.perf_counter() + self.budget() / 1000.0
            ran = []
            for key, job in list(self.jobs.items()):
                if time.perf_counter() >= end:
                    break
                if key in self.jobs:  # not forgotten by a job that ran before it this turn
                    before, busy = job.steps_run, job.busy
                    wants_own = job.run_until(end, fresh=not ran)
                    if job.steps_run != before or job.busy != busy:  # it ran (or ended)
                        ran.append(key)
                    if wants_own:  # its next step wants a turn of its own
                        break
        for key in ran:  # to the back of the line, or gone when done
            done = self.jobs.pop(key, None)
            if done is not None and done.busy:
                self.jobs[key] = done
        self.since = time.thread_time()
        if self.jobs:
            self.timer.start()


def _forget(job: int, *_destroyed: object) -> None:
    """A job deleted under way: the collector resumes and the turns drop it."""
    _resume_gc(job)
    _turns().forget(job)


@functools.cache
def _turns() -> _Turns:
    """The one :class:`_Turns` of the process (made on first use, in the GUI thread)."""
    return _Turns()
