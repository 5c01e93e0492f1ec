"""Work in steps on the GUI thread (:class:`jaxviz.ui.sliced.SlicedJob`): the event loop
turns between slices, the result arrives once, a cancelled job says nothing, a failing one
says why, and Python's collector is on again afterwards."""

from __future__ import annotations

import gc

from tests.helpers.window import event_loop_turns


def _counting(n: int, seen: list[int], raise_at: int = -1):
    total = 0
    for k in range(n):
        if k == raise_at:
            raise ValueError(f"bad step {k}")
        seen.append(k)
        total += k
        yield
    return total


def test_steps_run_over_many_turns_of_the_event_loop_and_return_once(qtbot):
    from jaxviz.ui import sliced
    from jaxviz.ui.sliced import SlicedJob

    def slow(n: int, seen: list[int]):
        for k in range(n):
            t = __import__("time").perf_counter()
            while __import__("time").perf_counter() - t < 0.001:  # 1 ms of work per step
                pass
            seen.append(k)
            yield
        return sum(seen)

    seen: list[int] = []
    results: list[object] = []
    job = SlicedJob(slow(40, seen), slice_ms=4.0)
    job.finished.connect(results.append)
    ticks = event_loop_turns(qtbot)
    # (an earlier test's window may still be filling a pane in its last turns)
    qtbot.waitUntil(lambda: not sliced.running() and gc.isenabled(), timeout=5000)
    job.start()
    assert job.busy and not seen  # nothing runs inside start()
    assert not gc.isenabled()  # paused while the job runs
    qtbot.waitUntil(lambda: not job.busy, timeout=10000)
    assert results == [sum(range(40))] and seen == list(range(40))
    assert job.turns >= 5  # 40 ms of steps in slices of 4 ms
    assert len(ticks) >= job.turns - 1  # the event loop turned between the slices
    assert gc.isenabled()


def test_a_cancelled_job_stops_and_emits_nothing(qtbot):
    from jaxviz.ui.sliced import SlicedJob

    seen: list[int] = []
    results: list[object] = []
    job = SlicedJob(_counting(10**7, seen), slice_ms=1.0)
    job.finished.connect(results.append)
    job.start()
    qtbot.waitUntil(lambda: len(seen) > 0, timeout=5000)
    job.cancel()
    count = len(seen)
    qtbot.wait(50)
    assert not job.busy and results == [] and len(seen) == count < 10**7
    assert gc.isenabled()


def test_a_failing_step_is_reported_with_its_exception(qtbot):
    from jaxviz.ui.sliced import SlicedJob

    seen: list[int] = []
    failures: list[object] = []
    results: list[object] = []
    job = SlicedJob(_counting(10, seen, raise_at=3))
    job.failed.connect(failures.append)
    job.finished.connect(results.append)
    job.start()
    qtbot.waitUntil(lambda: not job.busy, timeout=5000)
    assert seen == [0, 1, 2] and results == []
    assert isinstance(job.error, ValueError) and str(job.error) == "bad step 3"
    assert failures == [job.error]
    assert gc.isenabled()


def test_overlapping_jobs_keep_the_collector_paused_until_the_last_ends(qtbot):
    from jaxviz.ui.sliced import SlicedJob

    long = SlicedJob(_counting(10**7, []), slice_ms=1.0).start()
    short = SlicedJob(_counting(3, [])).start()
    qtbot.waitUntil(lambda: not short.busy, timeout=5000)
    assert long.busy and not gc.isenabled()
    long.cancel()
    assert gc.isenabled()


def test_a_job_deleted_with_its_owner_while_under_way_gives_the_collector_back(qtbot):
    """A view closed while its job runs (the compare view of a window that closes) must not
    leave Python's cyclic collector paused for the rest of the session."""
    from PySide6.QtCore import QObject

    from jaxviz.ui.sliced import SlicedJob

    assert gc.isenabled()
    owner = QObject()
    seen: list[int] = []
    job = SlicedJob(_counting(10**9, seen), slice_ms=1.0, parent=owner).start()
    qtbot.waitUntil(lambda: len(seen) > 10)
    assert job.busy and not gc.isenabled()
    owner.deleteLater()
    qtbot.waitUntil(lambda: gc.isenabled(), timeout=5000)


def test_a_step_that_deletes_its_jobs_owner_ends_the_job_quietly(qtbot):
    """A step may close the view that runs it (a switch of examples drops the pane whose
    fill it is): the job ends there, says nothing, and no error reaches the user."""
    import shiboken6
    from PySide6.QtCore import QObject

    from jaxviz.ui.sliced import SlicedJob

    owner = QObject()
    seen: list[int] = []

    def steps():
        seen.append(1)
        yield
        shiboken6.delete(owner)  # the owner and the job with it, in the middle of a turn
        seen.append(2)
        yield
        seen.append(3)  # never run
        return "done"

    job = SlicedJob(steps(), slice_ms=50.0, parent=owner)
    finished: list[object] = []
    job.finished.connect(finished.append)
    errors: list[BaseException] = []
    job.failed.connect(errors.append)
    job.start()
    qtbot.waitUntil(lambda: gc.isenabled() and seen == [1, 2], timeout=5000)
    for _ in range(5):
        qtbot.wait(10)
    assert seen == [1, 2] and finished == [] and errors == []


def test_jobs_under_way_share_one_budget_per_turn_and_each_gets_its_go(qtbot, monkeypatch):
    """Three views filling at once take one turn's budget between two paints, not three;
    the job not reached in a turn goes first in the next. Each step 'takes' 1 ms of a
    stand-in clock; the turns are run by hand."""
    import time

    from jaxviz.ui import sliced
    from jaxviz.ui.sliced import SlicedJob

    clock = [0.0]
    monkeypatch.setattr(time, "perf_counter", lambda: clock[0])
    log: list[str] = []

    def steps(name: str, n: int):
        for _ in range(n):
            clock[0] += 0.001
            log.append(name)
            yield
        return name

    done: list[str] = []
    jobs = [SlicedJob(steps(name, 12), slice_ms=5.0) for name in "abc"]
    for job in jobs:
        job.finished.connect(done.append)
        job.start()
    turns = sliced._turns()
    per_turn: list[list[str]] = []
    while turns.jobs and len(per_turn) < 50:
        before = len(log)
        turns.turn()
        per_turn.append(log[before:])
    budget = int(sliced.TURN_MS) + 1
    assert all(len(steps_run) <= budget for steps_run in per_turn)  # one budget per turn
    assert all(max(map(steps_run.count, "abc")) <= 6 for steps_run in per_turn)  # own slice
    assert per_turn[0][0] == "a" and per_turn[1][0] == "c"  # c, not reached, goes first
    assert sorted(done) == ["a", "b", "c"] and log.count("a") == log.count("c") == 12


def test_the_jobs_turn_leaves_room_for_the_paint_of_the_last_one(qtbot, monkeypatch):
    """The GUI thread's other work since the jobs' last turn (the paint of what they
    changed) comes off their next turn's budget, down to a floor: a turn's steps and the
    paint between two turns fit one frame. Stand-in clocks: each step 'takes' 1 ms, the
    work between turns as much CPU as the test says."""
    import time

    from jaxviz.ui import sliced
    from jaxviz.ui.sliced import SlicedJob

    wall, cpu = [0.0], [0.0]
    monkeypatch.setattr(time, "perf_counter", lambda: wall[0])
    monkeypatch.setattr(time, "thread_time", lambda: cpu[0])

    def steps():
        for _ in range(200):
            wall[0] += 0.001
            cpu[0] += 0.001
            yield

    job = SlicedJob(steps(), slice_ms=50.0)
    job.start()
    turns = sliced._turns()
    ran: list[int] = []
    for between_ms in (0.0, 10.0, 40.0, 0.0):
        cpu[0] += between_ms / 1000  # a paint, a handler: the GUI thread's, not the jobs'
        before = wall[0]
        turns.turn()
        ran.append(round((wall[0] - before) * 1000))
    job.cancel()
    full, rest = int(sliced.TURN_MS), int(sliced.FRAME_MS - 10)
    assert ran == [full, rest, int(sliced.MIN_TURN_MS), full]


def test_a_step_that_changes_the_screen_is_painted_before_any_other_step_runs(qtbot):
    """A step after ``OWN_TURN`` (a change on screen) runs alone: Qt paints the change
    before the next step of any job, so a frame holds that step and its paint, not a whole
    budget of other jobs' steps with the paint on top."""
    import time

    from PySide6.QtCore import QEvent, QObject
    from PySide6.QtWidgets import QLabel

    from jaxviz.ui.sliced import SlicedJob
    from jaxviz.views.incremental import OWN_TURN

    label = QLabel("before")
    qtbot.addWidget(label)
    label.show()
    qtbot.waitExposed(label)
    log: list[str] = []

    class Paints(QObject):
        def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt's name
            if event.type() == QEvent.Type.Paint:
                log.append("paint")
            return False

    paints = Paints()
    label.installEventFilter(paints)

    def busy(name: str, n: int):
        for _ in range(n):
            t = time.perf_counter()
            while time.perf_counter() - t < 0.0005:  # half a ms of work per step
                pass
            log.append(name)
            yield

    def changes():
        yield from busy("change-job", 3)
        yield OWN_TURN
        label.setText("after")  # the change on screen
        log.append("changed")
        yield
        yield from busy("change-job", 3)

    other = SlicedJob(busy("other", 400)).start()
    job = SlicedJob(changes()).start()
    qtbot.waitUntil(lambda: not job.busy and not other.busy, timeout=10000)
    at = log.index("changed")
    after = [entry for entry in log[at + 1:] if entry != "changed"]
    assert after[0] == "paint", log[at - 3:at + 6]  # painted before any step went on
    assert label.text() == "after"
    # the other job's steps ran in the turns before and after it (it was not starved)
    assert "other" in log[:at] and "other" in log[at + 1:]


def test_own_turn_is_ignored_when_steps_run_to_the_end():
    """The command line and the tests run the same steps at once: the wish changes nothing."""
    from jaxviz.views.incremental import OWN_TURN, run_to_end

    def steps():
        yield OWN_TURN
        yield
        return 7

    assert run_to_end(steps()) == 7


def test_a_step_that_would_overrun_the_turn_waits_for_the_next(qtbot, monkeypatch):
    """A job whose steps take 6 ms does not begin a second one 6 ms into an 8 ms turn (a
    14 ms turn): it waits for the next turn, where it goes first; a job of short steps
    fills the rest. Stand-in clocks: each step 'takes' what the test says."""
    import time

    from jaxviz.ui import sliced
    from jaxviz.ui.sliced import SlicedJob

    wall, cpu = [0.0], [0.0]
    monkeypatch.setattr(time, "perf_counter", lambda: wall[0])
    monkeypatch.setattr(time, "thread_time", lambda: cpu[0])
    done = {"long": 0, "short": 0}

    def steps(name: str, ms: float):
        for _ in range(100):
            wall[0] += ms / 1000
            cpu[0] += ms / 1000
            done[name] += 1
            yield

    long_job = SlicedJob(steps("long", 6.0), slice_ms=50.0).start()
    short_job = SlicedJob(steps("short", 1.0), slice_ms=50.0).start()
    turns = sliced._turns()
    took = []
    for _ in range(6):
        before = wall[0]
        turns.turn()
        took.append((wall[0] - before) * 1000)
    long_job.cancel()
    short_job.cancel()
    assert max(took) <= sliced.TURN_MS + 0.5, took
    assert done["long"] >= 3 and done["short"] >= 6, done  # both went on
