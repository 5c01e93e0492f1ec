"""The timing view in tests: the request the window builds for an example, setting the
controls, a measured view, and reading its pixels."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
from PySide6.QtCore import QEventLoop, QPointF
from PySide6.QtGui import QImage

from jaxviz.model import Target, TraceRequest
from jaxviz.model.gallery import get_example
from tests.helpers.window import JAX_MS


def example_request(name: str, args: str | None = None, variants=None) -> TraceRequest:
    """The request the window builds for an example (its panes as ``variants``)."""
    ex = get_example(name)
    return TraceRequest(target=Target(Path(ex.path).read_text(encoding="utf-8"), ex.path,
                                      ex.function),
                        args=args or ex.args, batched_args=None if args else ex.batched_args,
                        variants=variants or ["plain", *[v for v in ex.variants
                                                         if v not in ("plain", "jit")]],
                        batch=ex.batch, in_axes=ex.in_axes, mesh=ex.mesh, specs=ex.specs,
                        out_specs=ex.out_specs)


def make_view(engine, size=(1500, 850)):
    from jaxviz.ui.timing import TimingView

    view = TimingView()
    view.set_engine(engine)
    view.resize(*size)
    view.show()
    return view



def configure(view, variants, runs=6, warmup=1, pipeline=4, sweep=None):
    c = view.controls
    c.set_checked(variants)
    c.runs.setValue(runs)
    c.warmup.setValue(warmup)
    c.pipeline.setValue(pipeline)
    c.sweep_on.setChecked(sweep is not None)
    if sweep is not None:
        c.sweep.setText(sweep[0])
        c.sweep_args.setText(sweep[1])



def run_live(engine):
    """A view that measured the async-dispatch example (numpy and jit, a pipeline, a sweep)."""
    view = make_view(engine)
    view.set_target(example_request("async_dispatch", ARGS, ["plain"]))
    configure(view, ["numpy", "jit"], sweep=("n=32,64", "f32[n,n], f32[n,n]"))
    view.controls.run_button.click()
    assert view.running
    spin_until(lambda: not view.running, 3 * JAX_MS)
    spin_until(lambda: not view.plots.undrawn(), 5000)  # the tabs off screen, in turns after
    return view



def image_rgb(image: QImage) -> np.ndarray:
    image = image.convertToFormat(QImage.Format.Format_RGB888)
    data = np.frombuffer(image.constBits(), np.uint8, image.sizeInBytes())
    rows = data.reshape(image.height(), image.bytesPerLine())
    return rows[:, : image.width() * 3].reshape(image.height(), image.width(), 3).copy()



def count_colour(rgb: np.ndarray, colour: str, tolerance: int = 14) -> int:
    return int((np.abs(rgb.astype(int) - hex_rgb(colour)).max(axis=-1) <= tolerance).sum())



def marker_pixels(view, plot, scatter) -> list[tuple[int, int]]:
    """Where a scatter's points are drawn, in pixels of the GraphicsView ``view``."""
    out = []
    for x, y in zip(scatter.data["x"], scatter.data["y"]):
        p = view.mapFromScene(plot.vb.mapViewToScene(QPointF(float(x), float(y))))
        out.append((p.x(), p.y()))
    return out



def near_colour(rgb: np.ndarray, xy: tuple[int, int], colour: str, radius: int = 1) -> bool:
    """The pixel at ``xy`` (or one of its neighbours, for rounding) has ``colour``."""
    x, y = xy
    patch = rgb[max(0, y - radius): y + radius + 1, max(0, x - radius): x + radius + 1]
    return count_colour(patch, colour) > 0


#: Small, quick settings for the async-dispatch example.
ARGS = "f32[128,128], f32[128,128]"



def spin_until(check, timeout_ms: int = JAX_MS) -> None:
    """Run the event loop until ``check()`` holds (a bound for module fixtures, no qtbot)."""
    from PySide6.QtWidgets import QApplication

    deadline = time.monotonic() + timeout_ms / 1000
    while not check():
        assert time.monotonic() < deadline, "gave up waiting"
        QApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)
        time.sleep(0.005)



def hex_rgb(colour: str) -> np.ndarray:
    return np.array([int(colour[i:i + 2], 16) for i in (1, 3, 5)])


def settle_events(turns: int = 6) -> None:
    """Let the event loop run ``turns`` times."""
    from PySide6.QtWidgets import QApplication

    for _ in range(turns):
        QApplication.processEvents()


def docked_timing_view(qtbot):
    """A TimingView in a 1600x760 window's layout, as docked (the window lays out around
    it), shown and laid out for good: the plots' resize timer (120 ms after the last
    resize) may build the figures again for the new text size, and a test holding the old
    figure would watch one the view no longer updates. Returns (window, view)."""
    from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

    from jaxviz.ui.timing import TimingView

    window = QWidget()
    window.setObjectName("host_window")
    box = QVBoxLayout(window)
    box.addWidget(QLabel("the window's other widgets"))
    view = TimingView()
    box.addWidget(view, 1)
    window.resize(1600, 760)
    window.show()
    qtbot.addWidget(window)
    qtbot.waitExposed(window)
    qtbot.wait(200)
    qtbot.waitUntil(lambda: not view.plots._resize_timer.isActive())
    settle_events()
    return window, view
