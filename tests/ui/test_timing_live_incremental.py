"""A timing run streaming into the view updates its plot incrementally and repaints it a
frame later, and what is left on screen once the run is over is what a full redraw draws.

The run is a real one (``resources/lectures/recordings/async_dispatch/timings.json``,
measured by ``jaxviz time``: JAX's own dispatch and completion times), streamed record by
record into the view through its runner's signals; no JAX engine is started. What is
checked is structure -- which points are plotted, which items were set again, when the
view may paint, which pixels differ -- never how long anything took.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication, QGraphicsItem

from jaxviz.model.timing import TimingRun, TimingStatus
from jaxviz.views.timing.export import read_json
from tests.helpers.timing_view import docked_timing_view, image_rgb

RECORDING = (Path(__file__).resolve().parents[2] / "resources" / "lectures" / "recordings"
             / "async_dispatch" / "timings.json")


def settle(turns: int = 6) -> None:
    for _ in range(turns):
        QApplication.processEvents()


class Spy:
    """Counts the calls of some methods of some objects (and still calls them)."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, int]] = []

    def watch(self, name: str, obj: object, method: str) -> None:
        original = getattr(obj, method)

        def spied(*args, **kwargs):
            n = len(kwargs.get("x", args[0] if args else []))
            self.calls.append((f"{name}.{method}", n))
            return original(*args, **kwargs)

        setattr(obj, method, spied)


class Paints(QObject):
    """The paint events a plot page's view receives: whether the page held its paint then."""

    def __init__(self, page) -> None:
        super().__init__()
        self.page = page
        self.held: list[bool] = []
        page.view.viewport().installEventFilter(self)

    def eventFilter(self, obj, event):  # noqa: N802 - Qt's name
        if event.type() == QEvent.Type.Paint:
            self.held.append(self.page.holding)
        return False


@pytest.fixture
def docked(qtbot):
    """The view in a window's layout, as docked (laid out for good)."""
    return docked_timing_view(qtbot)


def jit_records(recording: TimingRun) -> list:
    """The recording's records in the order the engine streams them (one variant)."""
    calls = [c for c in recording.calls if c.variant == "jit"
             and c.phase in ("warmup", "steady", "pipelined")]
    return [recording.header, *recording.variants, *recording.first_calls, *calls]


def recorded_ms(calls: list, attr: str) -> np.ndarray:
    return np.array([getattr(c, attr) for c in calls]) / 1e6


def check_plotted(figure, recording: TimingRun, run: TimingRun) -> int:
    """The dispatch plot holds exactly the steady calls recorded so far (JAX's times),
    numbered from 1, with their numbers in the hover texts; returns how many."""
    n = len(run.calls_of("jit", "steady"))
    recorded = recording.calls_of("jit", "steady")[:n]
    for kind, attr in (("dispatch", "dispatch_ns"), ("ready", "complete_ns")):
        data = figure.scatters[kind].data
        assert list(data["x"]) == list(range(1, n + 1))
        assert np.allclose(10 ** data["y"], recorded_ms(recorded, attr), rtol=1e-9)
        assert [str(d).split(":")[0] for d in data["data"]] == [f"call {i}"
                                                                for i in range(1, n + 1)]
    # each call's thin line joins its dispatch and its completion
    xs, ys = figure.links.getData()
    assert list(xs) == [float(i) for i in range(1, n + 1) for _ in (0, 1)]
    both = np.stack([recorded_ms(recorded, "dispatch_ns"),
                     recorded_ms(recorded, "complete_ns")], axis=1).ravel()
    assert np.allclose(10 ** np.asarray(ys), both, rtol=1e-9)
    return n


def test_a_live_update_appends_the_new_calls_and_sets_nothing_else_again(docked, qtbot):
    _window, view = docked
    recording = read_json(RECORDING)
    run = TimingRun(request=recording.request)
    view.runner.started.emit(run)
    settle()
    figure = view.plots.pages["dispatch_vs_complete"].figure
    assert figure is not None and figure.live
    spy = Spy()
    for kind, scatter in figure.scatters.items():
        spy.watch(kind, scatter, "setData")
        spy.watch(kind, scatter, "addPoints")
    shown, appended = 0, 0
    for i, record in enumerate(jit_records(recording)):
        run.add(record)
        view.runner.status.emit(TimingStatus(message=f"call {i}", done=i, total=99))
        if i % 3 != 2:
            continue
        spy.calls.clear()
        view.runner.updated.emit(run)
        settle()
        n = check_plotted(figure, recording, run)
        if shown and n > shown:
            # only the new calls' points were made, appended to each series
            assert sorted(spy.calls) == [("dispatch.addPoints", n - shown),
                                         ("ready.addPoints", n - shown)]
            appended += 1
        elif shown and n == shown:
            assert spy.calls == []  # nothing new: nothing set again
        shown = n
    assert appended >= 3 and shown == len(recording.calls_of("jit", "steady"))
    view.runner.finished.emit(run, "done", True)
    qtbot.waitUntil(lambda: not view.plots.pages["dispatch_vs_complete"].holding)
    check_plotted(figure, recording, run)


def test_a_live_run_keeps_no_pixmap_as_big_as_the_plot(docked, qtbot):
    """While a run streams in, only thin items (the median lines) are drawn from pixmaps
    of themselves: an item cached as big as the plot (an axis with its grid lines) is
    megabytes of memory held for the whole run."""
    _window, view = docked
    recording = read_json(RECORDING)
    run = TimingRun(request=recording.request)
    view.runner.started.emit(run)
    settle()
    page = view.plots.pages["dispatch_vs_complete"]
    figure = page.figure
    assert figure is not None and figure.live
    for i, record in enumerate(jit_records(recording)):
        run.add(record)
        if i % 5 == 4:
            view.runner.updated.emit(run)
            settle()
    view.runner.updated.emit(run)
    qtbot.waitUntil(lambda: not page.holding)
    settle()
    assert figure.live
    viewport = page.view.viewport().rect()
    plot_px = viewport.width() * viewport.height()
    cached = [item for item in page.view.scene().items()
              if item.cacheMode() != QGraphicsItem.CacheMode.NoCache]
    assert cached, "the median lines are drawn from pixmaps while live"
    for item in cached:
        rect = page.view.mapFromScene(item.sceneBoundingRect()).boundingRect() & viewport
        assert rect.width() * rect.height() < 0.05 * plot_px, (type(item).__name__, rect)
    view.runner.finished.emit(run, "done", True)
    qtbot.waitUntil(lambda: not page.holding)


def test_a_live_redraw_is_painted_in_a_later_turn(docked, qtbot):
    """The redraw's turn does not paint the plot: its view's updates are held, the axes'
    pictures are made before they are released, and the view paints after."""
    _window, view = docked
    recording = read_json(RECORDING)
    run = TimingRun(request=recording.request)
    view.runner.started.emit(run)
    page = view.plots.pages["dispatch_vs_complete"]
    qtbot.waitUntil(lambda: not page.holding)
    page.view.viewport().repaint()  # a paint the window system still owed (not the redraw's)
    settle(10)
    paints = Paints(page)
    for record in jit_records(recording):
        run.add(record)
    view.runner.updated.emit(run)  # a redraw: the first steady calls change the ranges
    figure = page.figure
    assert figure is not None
    axes = [figure.plot.getAxis(side) for side in ("left", "bottom")]
    assert page.holding and not page.view.updatesEnabled()
    assert all(axis.picture is None for axis in axes)  # (the new ranges: not made yet)
    settle()  # the scene takes in the redraw's changes, and asks for no paint while held
    qtbot.waitUntil(lambda: not page.holding)
    assert page.view.updatesEnabled()
    assert all(axis.picture is not None for axis in axes)  # made before the paint
    qtbot.waitUntil(lambda: len(paints.held) > 0)
    assert True not in paints.held, paints.held


def test_the_settled_plot_is_pixel_equal_to_a_full_redraw(docked, qtbot):
    """Streamed (points appended, medians drawn from pixmaps while live, the axes'
    pictures made before the paint), the settled plot is pixel for pixel what the same
    view shows when every point is set again and every picture drawn anew."""
    _window, view = docked
    recording = read_json(RECORDING)
    run = TimingRun(request=recording.request)
    view.runner.started.emit(run)
    settle()
    for i, record in enumerate(jit_records(recording)):
        run.add(record)
        if i % 3 == 2:
            view.runner.updated.emit(run)
            settle()
    run.complete = True
    view.runner.finished.emit(run, "done", True)
    page = view.plots.pages["dispatch_vs_complete"]
    qtbot.waitUntil(lambda: not page.holding)
    settle(10)
    figure = page.figure
    assert figure is not None and not figure.live
    # once the run is over every item is drawn directly again (no pixmap caches)
    assert all(item.cacheMode() == QGraphicsItem.CacheMode.NoCache
               for item in figure.still_items())
    streamed = image_rgb(page.view.grab().toImage())
    # the same figure, every point set again and every item drawn anew
    figure._plotted, figure._plotted_n = (None, None, figure.log_time), 0
    for kind in ("dispatch", "ready"):
        figure.scatters[kind].clear()
    figure.update(run)
    for axis in (figure.plot.getAxis(side) for side in ("left", "bottom")):
        axis.picture = None
        axis.update()
    settle(10)
    redrawn = image_rgb(page.view.grab().toImage())
    assert streamed.shape == redrawn.shape
    assert int((streamed != redrawn).any(axis=-1).sum()) == 0
    # and the plot shows the recorded calls: both marker colours are on it
    check_plotted(figure, recording, run)
