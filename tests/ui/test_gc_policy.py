"""The window's process looks through all its objects for reference cycles when it is idle.

What a user would check: an unreachable cycle is freed once the window is idle,
not while they type, while stepped work runs or while a view animates; a cycle
among objects frozen long ago is freed by the deep pass. The collector is tried
with a stand-in clock, Python's own full passes held off meanwhile; the
thresholds and the frozen objects of this test process are put back afterwards.
"""

from __future__ import annotations

import gc
import os
import sys
import weakref

import pytest
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QApplication, QWidget

from jaxviz.ui import gc_policy
from jaxviz.ui.sliced import SlicedJob
from tests.helpers.fresh import run_fresh


class _Node:
    pass


def _forever():
    while True:
        yield


def _garbage_cycle_in_the_oldest_generation() -> weakref.ref:
    node = _Node()
    node.me = node
    ref = weakref.ref(node)
    gc.collect(1)
    gc.collect(1)  # reachable: moved to the oldest generation
    del node
    gc.collect(1)  # unreachable now, and kept (young passes do not look there)
    assert ref() is not None
    return ref


@pytest.fixture
def collector(qapp):
    thresholds = gc.get_threshold()
    gc.set_threshold(thresholds[0], thresholds[1], 1 << 30)  # no full pass but the test's
    others = list(gc_policy.busy_checks)  # views and engines of earlier tests, still alive
    gc_policy.busy_checks.clear()
    now = [1000.0]
    made = gc_policy.IdleCollector(qapp, clock=lambda: now[0])
    made.timer.stop()  # the test calls check() itself
    made.now = now
    yield made
    qapp.removeEventFilter(made)
    made.deleteLater()
    gc_policy.busy_checks[:] = others
    gc.set_threshold(*thresholds)
    gc.unfreeze()


def test_a_cycle_is_freed_when_the_window_is_idle_and_not_before(collector, qapp):
    ref = _garbage_cycle_in_the_oldest_generation()
    collector.now[0] += 1.0  # typed a second ago
    assert not collector.check() and ref() is not None

    collector.now[0] += 5.0
    gc_policy.busy_checks.append(lambda: True)  # a view animating
    assert not collector.check() and ref() is not None
    gc_policy.busy_checks.clear()
    assert not collector.check()  # it stopped a moment ago

    collector.now[0] += gc_policy.IDLE_S
    assert collector.check() and ref() is None
    assert not collector.check()  # nothing kept since: no pass


def test_no_pass_while_stepped_work_runs_and_the_next_one_frees_what_it_left(collector):
    collector.now[0] += 10.0
    job = SlicedJob(_forever()).start()  # stepped work under way
    ref = _garbage_cycle_in_the_oldest_generation()
    assert not collector.check() and ref() is not None
    job.cancel()  # the last job's end freezes what is there (cheap; see jaxviz.ui.sliced)
    assert gc.get_freeze_count() > 0
    collector.now[0] += gc_policy.IDLE_S
    deep = collector.deep_passes
    assert collector.check() and ref() is None and collector.deep_passes == deep + 1
    _garbage_cycle_in_the_oldest_generation()
    collector.now[0] += gc_policy.IDLE_S
    assert collector.check() and collector.deep_passes == deep + 1  # then cheap ones


def test_stepped_work_begun_and_ended_between_two_looks_counts_as_work(collector, qapp):
    """A Values panel filled at each step of a walk driven by a timer (no input): each
    fill begins and ends between two of the collector's looks, and still holds it back."""
    collector.now[0] += 10.0
    ref = _garbage_cycle_in_the_oldest_generation()
    job = SlicedJob(iter([None])).start()
    while job.busy:
        qapp.processEvents()
    assert not collector.check() and ref() is not None  # work since the last look
    collector.now[0] += 1.0
    assert not collector.check()  # over only a second ago
    collector.now[0] += gc_policy.IDLE_S
    assert collector.check() and ref() is None


def test_a_view_playing_holds_the_pass_back_until_it_stops_or_is_gone(collector):
    class View:
        playing = True

    view = View()
    gc_policy.busy_while(view, "playing")
    collector.now[0] += 10.0
    ref = _garbage_cycle_in_the_oldest_generation()
    assert not collector.check() and ref() is not None
    view.playing = False
    collector.now[0] += gc_policy.IDLE_S
    assert collector.check() and ref() is None
    view.playing = True
    del view  # gone: it no longer holds anything back
    _garbage_cycle_in_the_oldest_generation()
    collector.now[0] += gc_policy.IDLE_S
    assert collector.check() and gc_policy.busy_checks == []


def test_a_pass_waits_until_the_work_has_been_over_for_a_while(collector):
    collector.now[0] += 10.0
    gc_policy.busy_checks.append(lambda: True)
    assert not collector.check()  # a program loading in steps
    gc_policy.busy_checks.clear()
    _garbage_cycle_in_the_oldest_generation()
    collector.now[0] += 1.0  # between two of its jobs
    assert not collector.check()
    collector.now[0] += gc_policy.IDLE_S
    assert collector.check()


def test_input_makes_the_window_busy_again(collector, qapp):
    collector.now[0] += 10.0
    widget = QWidget()
    QApplication.sendEvent(widget, QKeyEvent(QEvent.Type.KeyPress, Qt.Key.Key_A,
                                             Qt.KeyboardModifier.NoModifier, "a"))
    assert collector.last_input == collector.now[0]
    _garbage_cycle_in_the_oldest_generation()
    assert not collector.check()


def test_the_deep_pass_frees_cycles_among_frozen_objects(collector):
    node = _Node()
    node.me = node
    ref = weakref.ref(node)
    gc.freeze()
    del node
    collector.now[0] += gc_policy.IDLE_S + 1
    _garbage_cycle_in_the_oldest_generation()
    assert collector.check() and ref() is not None  # a pass, not a deep one
    collector.now[0] += gc_policy.DEEP_EVERY_S
    assert collector.check() and ref() is None
    assert collector.deep_passes == 1


def test_install_collects_and_freezes_what_start_up_made_once():
    script = ("import gc\nfrom PySide6.QtWidgets import QApplication\n"
              "from jaxviz.ui import gc_policy\napp = QApplication([])\n"
              "first = gc_policy.install(app)\nassert gc_policy.install(app) is first\n"
              "print(gc.get_threshold() == (700, 10, 10), gc.get_freeze_count() > 0)\n")
    assert run_fresh(script).split() == ["True", "True"]  # Python's own collections go on


def _resident_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc_trim")
def test_an_idle_pass_gives_freed_heap_memory_back(collector):
    """Buffers freed below ones still alive stay resident (the C heap only shrinks from its
    top by itself): a timing run's cached plot pictures left 5.6 MB so. The idle pass
    gives those pages back."""
    chunks = [os.urandom(64 * 1024) for _ in range(800)]  # 52 MB on the C heap
    pins = [os.urandom(4096) for _ in range(4)]  # above them, still alive
    del chunks
    freed = _resident_mb()
    _garbage_cycle_in_the_oldest_generation()  # something for the pass to do
    collector.now[0] += gc_policy.IDLE_S + 1
    assert collector.check()
    assert _resident_mb() < freed - 30, (freed, _resident_mb())
    assert pins  # (alive until here)
