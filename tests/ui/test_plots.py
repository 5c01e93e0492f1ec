"""The timing plots, drawn offscreen from a real run (measured by `jaxviz time` in the engine).

Pictures are checked by sampled pixels (the series colours are there, the
background is the theme's) and by the SVG's elements (the plotted paths are
vector paths in the series colours).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from jaxviz.model.timing import CallRecord, TimingRun
from jaxviz.views.timing.export import read_json, write_json
from jaxviz.views.timing.stats import caption_dispatch, fmt_ms, steady

SIZE = (960, 540)
SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def run(measured_run) -> TimingRun:
    """A small real run: pmap matmul on 4 devices (pipelined), jit with a size sweep."""
    return measured_run


def pixels(image) -> np.ndarray:
    """An RGB array of a QImage."""
    from PySide6.QtGui import QImage

    image = image.convertToFormat(QImage.Format.Format_RGB888)
    data = np.frombuffer(image.constBits(), np.uint8, image.sizeInBytes())
    rows = data.reshape(image.height(), image.bytesPerLine())
    return rows[:, : image.width() * 3].reshape(image.height(), image.width(), 3).copy()


def count_colour(rgb: np.ndarray, hex_colour: str, tolerance: int = 12) -> int:
    target = np.array([int(hex_colour[i:i + 2], 16) for i in (1, 3, 5)])
    return int((np.abs(rgb.astype(int) - target).max(axis=-1) <= tolerance).sum())


@pytest.mark.parametrize("kind, colours", [
    ("dispatch_vs_complete", ("dispatch", "ready")),
    ("timeline", ("dispatch", "ready", "device")),
    ("variants", ("dispatch", "ready", "compile")),
    ("sweep", ("dispatch", "ready")),
])
def test_png_shows_the_series_in_their_colours(run, kind, colours):
    from jaxviz.ui.plots import LIGHT, render_image

    rgb = pixels(render_image(kind, run, SIZE, "light"))
    assert rgb.shape == (SIZE[1], SIZE[0], 3)
    assert tuple(rgb[2, 2]) == (255, 255, 255)
    assert len(np.unique(rgb.reshape(-1, 3), axis=0)) > 50  # not blank
    for name in colours:
        colour = LIGHT.phases[name] if name == "compile" else getattr(LIGHT, name)
        assert count_colour(rgb, colour) > 40, (kind, name)


def test_dark_theme_has_its_background_and_colours(run):
    from jaxviz.ui.plots import DARK, render_image

    rgb = pixels(render_image("dispatch_vs_complete", run, SIZE, "dark"))
    assert count_colour(rgb[:5, :5].reshape(-1, 3)[None], DARK.background, 2) == 25
    assert count_colour(rgb, DARK.ready) > 40 and count_colour(rgb, DARK.dispatch) > 40
    assert count_colour(rgb, "#FFFFFF", 0) == 0


def path_box(d: str) -> tuple[float, float, float, float]:
    """The bounding box (x0, y0, x1, y1) of the points of SVG path data (M, L, C and Z)."""
    values = [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?", d)]
    xs, ys = values[0::2], values[1::2]
    return min(xs), min(ys), max(xs), max(ys)


def test_svg_is_plain_svg_1_1_with_markers_in_output_pixels(run, tmp_path):
    from jaxviz.ui.exporters import find
    from jaxviz.ui.plots import LIGHT, Style

    path = find("plot", "svg").write(run, tmp_path / "d.svg", kind="dispatch_vs_complete",
                                     size=SIZE, theme="light")
    text = path.read_text()
    root = ET.fromstring(text)
    assert root.tag == f"{SVG}svg" and root.get("version") == "1.1"
    assert (root.get("width"), root.get("height")) == (f"{SIZE[0]}px", f"{SIZE[1]}px")
    assert root.get("viewBox") == f"0 0 {SIZE[0]} {SIZE[1]}"
    assert root.find(f"{SVG}desc").text == caption_dispatch(run)
    # nothing that only SVG Tiny 1.2 renderers draw right, no bitmaps
    assert "vector-effect" not in text and "baseProfile" not in text
    assert not list(root.iter(f"{SVG}image"))
    assert all(g.get("transform") is None for g in root.iter(f"{SVG}g"))
    assert all(p.get("transform") is None for p in root.iter(f"{SVG}path"))
    # one marker per call, each a path of the marker's size in output pixels
    marker = Style.for_size(*SIZE).marker_px
    n_calls = len(run.calls_of("jit", "steady"))
    for colour in (LIGHT.dispatch, LIGHT.ready):
        markers = [p for p in root.iter(f"{SVG}path") if p.get("fill") == colour.lower()]
        assert len(markers) == n_calls, colour
        for m in markers:
            x0, y0, x1, y1 = path_box(m.get("d"))
            assert marker * 0.5 <= max(x1 - x0, y1 - y0) <= marker * 1.1, (colour, m.get("d"))
            assert 0 <= x0 <= x1 <= SIZE[0] and 0 <= y0 <= y1 <= SIZE[1]
            assert float(m.get("stroke-width")) <= 2
    # text stays text, in a font stack that ends in a CSS generic family
    texts = list(root.iter(f"{SVG}text"))
    words = " ".join(t.text or "" for t in texts)
    assert "Dispatch vs completion" in words and "call number" in words
    assert all(t.get("font-family").endswith(", sans-serif") for t in texts)
    assert all("Sans Serif" not in t.get("font-family") for t in texts)


def test_export_plots_writes_every_format_of_each_kind(run, tmp_path):
    from jaxviz.ui.exporters import write_plots
    from jaxviz.views.timing.stats import available_plots

    kinds = available_plots(run)
    assert kinds == ["dispatch_vs_complete", "timeline", "variants", "sweep"]
    written = write_plots(run, tmp_path, SIZE, "dark")
    assert sorted(p.name for p in written) == sorted(
        f"{k}.{ext}" for k in kinds for ext in ("png", "svg", "pdf"))
    for p in written:
        assert p.stat().st_size > 1000
        if p.suffix == ".svg":
            ET.parse(p)
        if p.suffix == ".pdf":
            assert p.read_bytes().startswith(b"%PDF-")


def test_figures_fill_in_live_as_records_arrive(run):
    from jaxviz.ui.plots import DispatchFigure, Style, TimelineFigure, ensure_app

    ensure_app()
    live = TimingRun(request=run.request, header=run.header)
    figure = DispatchFigure(Style.screen("dark"), variant="jit", show_caption=False)
    timeline = TimelineFigure(Style.screen("light"))
    figure.update(live)
    assert len(figure.scatters["ready"].data) == 0
    assert figure.caption() == "no calls measured yet"
    for info in run.variants:
        live.add(info)
    seen = 0
    for record in run.calls:
        live.add(record)
        figure.update(live)
        timeline.update(live)
        if isinstance(record, CallRecord) and record.variant == "jit" and \
                record.phase == "steady":
            seen += 1
            assert len(figure.scatters["ready"].data) == seen
            assert len(figure.scatters["dispatch"].data) == seen
            s = steady(live, "jit")  # the caption's numbers are this run's so far
            assert fmt_ms(s.complete_median) in figure.caption()
            assert f"median of {seen})" in figure.caption()
    live.pipeline = run.pipeline
    timeline.update(live)
    assert len(timeline.scatters["ready"].data) == len(run.calls_of(phase="pipelined"))
    assert figure.caption() == caption_dispatch(run, "jit")


def test_the_sweep_of_an_earlier_run_leaves_with_it(run):
    """A run without a sweep after one with: no curve of the first stays (the title says
    none measured yet, and so does the plot)."""
    import pyqtgraph as pg

    from jaxviz.ui.plots import Style, SweepFigure, ensure_app

    ensure_app()
    figure = SweepFigure(Style.screen("light"))
    figure.update(run)

    def drawn() -> int:
        return sum(1 for item in figure.plot.listDataItems()
                   if isinstance(item, pg.PlotDataItem) and item.xData is not None
                   and len(item.xData))
    assert drawn() >= 2  # jit's completion and dispatch curves
    without = TimingRun(request=run.request, header=run.header)
    for info in run.variants:
        without.add(info)
    for record in run.calls:
        if getattr(record, "phase", "") != "sweep":
            without.add(record)
    figure.update(without)
    assert "none measured yet" in figure.title.text
    assert drawn() == 0


def test_a_reloaded_recording_draws_the_same_plot(run, tmp_path):
    from jaxviz.ui.plots import build_figure

    again = read_json(write_json(run, tmp_path / "timings.json"))
    for kind in ("dispatch_vs_complete", "timeline"):
        a, b = build_figure(kind, run, SIZE), build_figure(kind, again, SIZE)
        for name in a.scatters:
            assert np.array_equal(a.scatters[name].data["x"], b.scatters[name].data["x"])
            assert np.array_equal(a.scatters[name].data["y"], b.scatters[name].data["y"])
        assert a.caption() == b.caption()


def test_bad_theme_and_kind_are_refused(run):
    from jaxviz.ui.plots import render_image

    with pytest.raises(ValueError, match="light, dark"):
        render_image("sweep", run, SIZE, "solarized")
    with pytest.raises(ValueError, match="dispatch_vs_complete"):
        render_image("pie", run, SIZE)


def test_plots_never_import_jax():
    code = ("import sys, jaxviz.ui.plots, jaxviz.cli.cmd_time;"
            "bad = [m for m in ('jax', 'jaxlib') if m in sys.modules];"
            "print(bad); sys.exit(1 if bad else 0)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr


LEAK = """
import ctypes, sys
from jaxviz.ui.theme import qt_guard
{setup}
def leaking(calls):  # PySide6 6.12.0 on CPython 3.11: a void call loses a reference to None
    for _ in range(calls):
        ctypes.pythonapi.Py_DecRef(ctypes.py_object(None))
print(qt_guard.protect_singletons(probe=leaking), qt_guard.protect_singletons(), flush=True)
for singleton in (None, True, False):  # far more losses than the singletons have references
    for _ in range(100_000):
        ctypes.pythonapi.Py_DecRef(ctypes.py_object(singleton))
print("survived", flush=True)
"""


@pytest.mark.parametrize("guarded", [True, False])
def test_the_start_up_guard_outlasts_pyside6_6_12_reference_leaks(guarded):
    """Without the guard, the same leak aborts the process: the test sees both outcomes."""
    setup = "" if guarded else "qt_guard.protect_singletons = lambda probe=None: False"
    out = subprocess.run([sys.executable, "-c", LEAK.format(setup=setup)], capture_output=True,
                         text=True, timeout=120)
    if guarded:
        assert out.returncode == 0 and out.stdout.split() == ["True", "True", "survived"], \
            out.stderr[-2000:]
    else:
        assert out.returncode != 0 and "survived" not in out.stdout
        assert "dealloc" in out.stderr


def test_headless_rendering_starts_behind_the_guard(run, tmp_path):
    """The guard runs at the headless start-up, finds no leak in this Qt, and hundreds of
    live updates later the process is still there."""
    path = write_json(run, tmp_path / "timings.json")
    code = ("import sys; from jaxviz.ui.theme import qt_guard;"
            "from jaxviz.views.timing.export import read_json;"
            "from jaxviz.ui.plots import FIGURES, Style, ensure_app;"
            "assert qt_guard._guarded is None; ensure_app();"
            "print(qt_guard._guarded);"
            f"run = read_json({str(path)!r});"
            "figs = [cls(Style.screen()) for cls in FIGURES.values()];"
            "[f.update(run) for _ in range(150) for f in figs]; print('ok')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300, env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert out.returncode == 0 and out.stdout.split() == ["False", "ok"], out.stderr[-2000:]


def test_the_docked_timeline_gives_every_lane_a_line_of_its_own(run, qapp):
    """On screen, however short the timing tab (a docked view on a 1280x720 projector), the
    timeline's lanes are at least a text line apart, so "result ready" and "device 0" never
    run into each other: the page scrolls instead."""
    from PySide6.QtCore import QPointF
    from PySide6.QtGui import QFont, QFontMetricsF

    from jaxviz.ui.timing.plots_panel import PlotsPanel

    panel = PlotsPanel()
    panel.resize(1000, 260)
    panel.show()
    panel.set_run(run)
    panel.show_kind("timeline")
    panel.refresh(everything=True)
    qapp.processEvents()
    figure = panel.figures["timeline"]
    ticks = figure.plot.getAxis("left")._tickLevels[0]  # the lanes' labels, as drawn
    assert len(ticks) >= 6  # the two call lanes and four devices
    box = figure.plot.getViewBox()
    ys = sorted(box.mapViewToDevice(QPointF(0.0, value)).y() for value, _ in ticks)
    font = QFont(panel.font())
    font.setPixelSize(round(panel.base_px))
    line = QFontMetricsF(font).height()
    assert min(b - a for a, b in zip(ys, ys[1:])) >= line, (ys, line)
    panel.close()


def test_a_new_run_draws_the_tab_on_screen_at_once_and_the_others_one_per_turn(run, qapp):
    """A finished run redraws the tab the user looks at in the same call; the tabs off
    screen that were built already follow, one per turn of the event loop (all of them in
    one call stalled the window 50 ms), each drawn from that run -- and one shown before
    its turn is drawn then. A tab never shown has no figure until it is shown."""
    from jaxviz.ui.timing.plots_panel import PlotsPanel

    panel = PlotsPanel()
    panel.resize(1000, 500)
    panel.show()
    first = panel.current_kind()
    assert panel.built() == [first]  # the other figures cost memory only once shown
    for kind in panel.pages:  # the user looks at every tab once
        panel.show_kind(kind)
    panel.show_kind(first)
    assert panel.built() == list(panel.pages)
    panel.set_run(run)
    panel.draw_the_rest_soon()
    others = [k for k in panel.pages if k != panel.current_kind()]
    assert panel.undrawn() == others and len(others) >= 3
    qapp.processEvents()  # one turn: one more tab
    assert len(panel.undrawn()) == len(others) - 1
    last = panel.undrawn()[-1]
    panel.show_kind(last)  # shown before its turn: drawn now
    assert last not in panel.undrawn()
    for _ in range(len(others)):
        qapp.processEvents()
    assert panel.undrawn() == []
    assert panel.pages["variants"].caption.text() == panel.figures["variants"].caption()
    assert len(panel.figures["variants"].markers["ready"].data) == len(run.variant_names())
    panel.close()


def test_a_tab_never_shown_is_built_and_drawn_from_the_run_when_shown_or_asked_for(run, qapp):
    """The figures are built lazily, yet what a tab shows never depends on when it was
    built: a tab first shown after the run, and :attr:`figures` asked for a tab never
    shown, both give that run's numbers."""
    from jaxviz.ui.timing.plots_panel import PlotsPanel

    panel = PlotsPanel()
    panel.resize(1000, 500)
    panel.show()
    panel.set_run(run)
    panel.draw_the_rest_soon()
    for _ in range(4):
        qapp.processEvents()
    assert panel.built() == [panel.current_kind()]  # a run builds no hidden tab
    panel.show_kind("variants")
    assert "variants" in panel.built() and "variants" not in panel.undrawn()
    assert len(panel.pages["variants"].figure.markers["ready"].data) == \
        len(run.variant_names())
    assert panel.pages["variants"].caption.text() == panel.pages["variants"].figure.caption()
    assert "timeline" not in panel.built()
    # a click on a tab: it comes to the front at once, its figure is built over the next
    # turns (a plot per turn) and drawn from the run the turn after (none does it all)
    panel.setCurrentWidget(panel.pages["timeline"])
    assert "timeline" not in panel.built()
    assert panel.pages["timeline"].caption.text() == "Drawing…"
    turns = 0
    while "timeline" not in panel.built():
        qapp.processEvents()
        turns += 1
        assert turns < 10
    assert turns >= 2 and "timeline" in panel.undrawn()  # the frame, then the plot
    qapp.processEvents()
    assert "timeline" not in panel.undrawn()
    assert panel.pages["timeline"].caption.text() == \
        panel.pages["timeline"].figure.caption() != ""
    assert "sweep" not in panel.built()
    figures = panel.figures  # every kind, built on demand
    assert set(figures) == set(panel.pages) and set(panel.built()) == set(panel.pages)
    assert panel.pages["sweep"].caption.text() == figures["sweep"].caption() != ""
    panel.close()


def test_the_dispatch_axes_stand_still_while_a_run_streams_and_fit_it_once_ended(run, qapp):
    """Live, the call axis spans the calls the request asked for and the time axis only
    grows (in half decades): a redraw per batch of records then need not regenerate the
    ticks. Once the run ended (``live`` False) the figure is the same as one drawn from
    the finished run at once."""
    import dataclasses

    from jaxviz.ui.plots import DispatchFigure
    from jaxviz.views.timing.stats import primary_variant

    variant = primary_variant(run)
    steady_calls = run.calls_of(variant, "steady")
    assert len(steady_calls) == run.request.runs >= 4
    figure = DispatchFigure()
    figure.live = True
    shown = []
    for n in (1, 2, len(steady_calls) // 2, len(steady_calls)):
        kept = [c for c in run.calls if c.phase != "steady" or c in steady_calls[:n]]
        figure.update(dataclasses.replace(run, calls=kept))
        (x0, x1), (y0, y1) = figure.plot.getViewBox().viewRange()
        assert (x0, x1) == (0.5, run.request.runs + 0.5)  # the calls to come, from the start
        assert y0 % 0.5 == 0 and y1 % 0.5 == 0  # whole half decades
        ys = [y for item in figure.scatters.values() for y in item.data["y"]]
        assert len(ys) == 2 * n and y0 < min(ys) and max(ys) < y1
        assert not shown or (y0 <= shown[-1][0] and y1 >= shown[-1][1])  # grows only
        shown.append((y0, y1))
    figure.live = False
    figure.update(run)
    fresh = DispatchFigure()
    fresh.update(run)
    assert np.allclose(figure.plot.getViewBox().viewRange(), fresh.plot.getViewBox().viewRange())
    assert figure.plot.getViewBox().viewRange()[1] != list(shown[-1])  # fitted to the data
