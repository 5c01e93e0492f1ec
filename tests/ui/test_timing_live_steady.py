"""A timing run streaming into the view stays local: its updates lay out nothing around
the view, the plot keeps its size, and the settled plot is the one drawn at once.

The run is a real one (``resources/lectures/recordings/async_dispatch/timings.json``,
measured by ``jaxviz time``), streamed record by record into the view through its
runner's signals, as the engine's records arrive; no JAX engine is started. What is
checked is structure (which widgets are laid out, which resized, which points are
plotted, which pixels differ), never how long anything took.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication, QLabel, QVBoxLayout, QWidget

from jaxviz.model.timing import TimingRun, TimingStatus
from jaxviz.ui.text.steady_label import SteadyWrap
from jaxviz.ui.timing import TimingView
from jaxviz.views.timing.export import read_json
from tests.helpers.timing_view import docked_timing_view, image_rgb

RECORDING = (Path(__file__).resolve().parents[2] / "resources" / "lectures" / "recordings"
             / "async_dispatch" / "timings.json")


class Counter(QObject):
    """Counts the events of some types each watched object receives."""

    def __init__(self, *types: QEvent.Type):
        super().__init__()
        self.types = types
        self.counts: dict[str, int] = {}

    def watch(self, name: str, obj: QObject) -> None:
        self.counts[name] = 0
        obj.installEventFilter(self)
        obj.setProperty("counted_as", name)

    def eventFilter(self, obj, event):  # noqa: N802 - Qt's name
        if event.type() in self.types:
            name = obj.property("counted_as")
            if name in self.counts:
                self.counts[name] += 1
        return False

    def reset(self) -> None:
        self.counts = dict.fromkeys(self.counts, 0)


def settle(turns: int = 6) -> None:
    for _ in range(turns):
        QApplication.processEvents()


def records(recording: TimingRun) -> list:
    """The recording's records in the order the engine streams them (one variant)."""
    calls = [c for c in recording.calls if c.variant == "jit"
             and c.phase in ("warmup", "steady", "pipelined")]
    return [recording.header, *recording.variants, *recording.first_calls, *calls]


def stream(view: TimingView, recording: TimingRun, on_update=None) -> TimingRun:
    """Stream the recording into the view as the runner does (a status per record, an
    update every few records, the finished run at the end)."""
    run = TimingRun(request=recording.request)
    runner = view.runner
    runner.started.emit(run)
    settle()
    items = records(recording)
    for i, record in enumerate(items):
        run.add(record)
        runner.status.emit(TimingStatus(message=f"jit: call {i + 1}/{len(items)}",
                                        done=i + 1, total=len(items)))
        if i % 3 == 2:
            runner.updated.emit(run)
            settle()
            if on_update is not None:
                on_update(run)
    run.complete = True
    runner.finished.emit(run, f"done: {len(run.calls)} calls in 1.0 s", True)
    settle(10)
    return run


@pytest.fixture
def docked(qtbot):
    """The view in a window's layout, as docked (laid out for good)."""
    return docked_timing_view(qtbot)


def test_the_plotted_points_are_the_recorded_timings(docked):
    _window, view = docked
    recording = read_json(RECORDING)
    run = stream(view, recording)
    steady_calls = recording.calls_of("jit", "steady")
    figure = view.plots.pages["dispatch_vs_complete"].figure
    assert figure is not None and not figure.live
    for kind, attr in (("dispatch", "dispatch_ns"), ("ready", "complete_ns")):
        data = figure.scatters[kind].data
        assert list(data["x"]) == list(range(1, len(steady_calls) + 1))
        recorded_ms = np.array([getattr(c, attr) for c in steady_calls]) / 1e6
        assert np.allclose(10 ** data["y"], recorded_ms, rtol=1e-9)
    # the dashed medians are at the median of the recorded times
    for kind, attr in (("dispatch", "dispatch_ns"), ("ready", "complete_ns")):
        median_ms = float(np.median([getattr(c, attr) for c in steady_calls])) / 1e6
        assert 10 ** figure.medians[kind].value() == pytest.approx(median_ms, rel=1e-9)
    assert run.complete and view.plots.undrawn() == []


def test_a_live_update_lays_out_nothing_around_the_view(docked):
    """A run's records change the progress, the status line, the where-and-when line, the
    plot and its caption: none of it asks the window (or the controls around the status
    line) to lay out again, and the plot keeps its size but for its caption's growth."""
    window, view = docked
    counter = Counter(QEvent.Type.LayoutRequest, QEvent.Type.Resize)
    counter.watch("window", window)
    counter.watch("view", view)
    counter.watch("controls", view.controls)
    counter.watch("plot", view.plots.pages["dispatch_vs_complete"].view)
    seen: list[dict[str, int]] = []
    updates = 0

    def after_update(_run: TimingRun) -> None:
        nonlocal updates
        updates += 1
        if updates == 2:  # from here on the run only adds calls: nothing lays out
            counter.reset()
        elif updates > 2:
            seen.append(dict(counter.counts))

    stream(view, read_json(RECORDING), after_update)
    assert len(seen) >= 6
    # nothing around the plot lays out again, at any update
    assert all(s["window"] == s["view"] == s["controls"] == 0 for s in seen), seen
    # the plot is resized at most once: when its caption first needs another line (its
    # room then stays until the run ends); the last updates resize nothing
    assert seen[-1]["plot"] <= 1 and seen[-1]["plot"] == seen[-4]["plot"], seen


def test_the_settled_plot_is_the_one_drawn_at_once(docked, qtbot):
    """What the user sees once the run is over: the streamed plot is drawn as a view shown
    the finished run at once draws it -- the same points, ranges, texts and caption, its
    items drawn directly again (no pixmap caches), its caption page pixel for pixel.

    (The plot area itself is not compared by pixels: pyqtgraph keeps an axis as wide as
    the widest tick labels it has drawn, so a live run's passing ranges can leave the
    settled axis a few pixels wider than a fresh one's; that was so before and is not
    changed here.)"""
    from PySide6.QtWidgets import QGraphicsItem

    _window, view = docked
    recording = read_json(RECORDING)
    run = stream(view, recording)
    other = TimingView()
    qtbot.addWidget(other)
    other.resize(view.size())
    other.show()
    qtbot.waitExposed(other)
    qtbot.wait(400)  # the page's size settles its text size (a 120 ms timer after resizing)
    other.plots.set_run(run)
    settle(10)
    qtbot.wait(400)  # both settled: a plot resized as the run ended re-wraps its texts
    settle(10)
    assert other.plots.base_px == view.plots.base_px
    streamed = view.plots.pages["dispatch_vs_complete"]
    at_once = other.plots.pages["dispatch_vs_complete"]
    a, b = streamed.figure, at_once.figure
    assert a is not None and b is not None and not a.live
    for kind in ("dispatch", "ready"):
        for axis in ("x", "y"):
            assert list(a.scatters[kind].data[axis]) == list(b.scatters[kind].data[axis])
        assert a.medians[kind].value() == b.medians[kind].value()
    assert np.allclose(a.plot.getViewBox().viewRange(), b.plot.getViewBox().viewRange(),
                       rtol=0, atol=1e-12)
    assert (a.title.text, a.legend.text, a.caption()) == (b.title.text, b.legend.text,
                                                          b.caption())
    assert all(item.cacheMode() == QGraphicsItem.CacheMode.NoCache
               for item in a.plot.items + [a.title.item, a.legend.item])
    assert streamed.caption.text() == at_once.caption.text()
    assert streamed.footer.geometry() == at_once.footer.geometry()
    assert streamed.view.geometry() == at_once.view.geometry()
    footers = [image_rgb(page.footer.grab().toImage()) for page in (streamed, at_once)]
    assert int((footers[0] != footers[1]).any(axis=-1).sum()) == 0


def test_a_held_label_lays_out_again_only_for_another_line(qtbot):
    """SteadyWrap: a text of as many lines asks the layout nothing; one more line does;
    held, a line less keeps the room until released."""
    window = QWidget()
    box = QVBoxLayout(window)
    label = QLabel("one line")
    label.setWordWrap(True)
    holder = SteadyWrap(label)
    box.addWidget(holder)
    box.addStretch(1)
    window.resize(220, 300)
    window.show()
    qtbot.addWidget(window)
    qtbot.waitExposed(window)
    settle()
    counter = Counter(QEvent.Type.LayoutRequest)
    counter.watch("window", window)
    one = holder.height()
    label.setText("another line")
    settle()
    assert counter.counts["window"] == 0 and holder.height() == one
    long = "a text long enough to need several lines in a narrow window like this one"
    label.setText(long)
    settle()
    assert counter.counts["window"] >= 1 and holder.height() > one
    assert label.height() == label.heightForWidth(holder.width())
    several = holder.height()
    holder.hold(True)
    label.setText("short")
    settle()
    assert holder.height() == several  # held: the room stays
    holder.hold(False)
    settle()
    assert holder.height() == one  # released: what the text needs


@pytest.mark.parametrize("in_tabs", [True, False])
def test_an_opaque_box_looks_like_the_transparent_one(qtbot, in_tabs):
    """PageFill is opaque (its changes repaint it alone) in the colour that showed through
    a transparent box: a tab page's in tool tabs, the window's when alone."""
    from PySide6.QtWidgets import QTabWidget

    from jaxviz.ui.theme import style
    from jaxviz.ui.timing.widgets import PageFill

    style.apply_theme(QApplication.instance())  # the window's (the GUI suite's) theme

    def host(box: QWidget) -> QWidget:
        page = QWidget()
        column = QVBoxLayout(page)
        box.setMinimumSize(120, 40)
        column.addWidget(box)
        if not in_tabs:
            return page
        tabs = QTabWidget()
        tabs.addTab(page, "Timing")
        return tabs

    shots = []
    for box in (QWidget(), PageFill()):
        top = host(box)
        top.resize(300, 160)
        top.show()
        qtbot.addWidget(top)
        qtbot.waitExposed(top)
        settle()
        shots.append(image_rgb(top.grab().toImage()))
        assert box.autoFillBackground() == isinstance(box, PageFill)
    assert shots[0].shape == shots[1].shape
    assert int((shots[0] != shots[1]).any(axis=-1).sum()) == 0
