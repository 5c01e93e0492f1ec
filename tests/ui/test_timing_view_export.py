"""Exports and replays of the timing view: valid files matching the screen; replays as recorded."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
import xml.etree.ElementTree as ET

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtGui import QGuiApplication, QImage

from jaxviz.model.records import to_plain
from jaxviz.ui.plots import DARK, LIGHT, build_figure
from jaxviz.ui.plots.render import laid_out
from jaxviz.views.timing.export import CSV_COLUMNS, read_json, write_json
from tests.helpers.timing_view import (
    count_colour,
    image_rgb,
    make_view,
    marker_pixels,
    near_colour,
    run_live,
)
from tests.helpers.window import JAX_MS

# Not in the fast tier: the window on the real engine.
pytestmark = pytest.mark.slow

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def live(qapp, shared_engine):
    view = run_live(shared_engine)
    yield view
    view.close()
    view.deleteLater()


def figure_items(fig) -> dict[str, np.ndarray]:
    """Every data array a figure draws (scatters, curves, bars), by a stable name."""
    items = {}
    for p, plot in enumerate(fig.plots):
        for i, item in enumerate(plot.items):
            name = f"{p}.{i}.{type(item).__name__}"
            if isinstance(item, pg.BarGraphItem):
                rows = [item.opts["x0"], item.opts["width"], item.opts["y"]]
            elif isinstance(item, pg.PlotDataItem):
                rows = [item.xData, item.yData]
            elif isinstance(item, pg.ScatterPlotItem):
                rows = [item.data["x"], item.data["y"]]
            elif isinstance(item, pg.PlotCurveItem):
                rows = list(item.getData())
            else:
                continue
            items[name] = [np.asarray([] if r is None else r, float) for r in rows]
    return items


def same_items(a, b) -> None:
    ia, ib = figure_items(a), figure_items(b)
    assert ia.keys() == ib.keys()
    assert any(len(rows[0]) for rows in ia.values()), "nothing drawn"
    for name in ia:
        for row_a, row_b in zip(ia[name], ib[name]):
            assert row_a.shape == row_b.shape and np.allclose(row_a, row_b), name


def test_png_matches_the_plot_on_screen(live, tmp_path):
    live.plots.show_kind("dispatch_vs_complete")
    live.export_bar.set_size("1280x720")
    [png] = live.export("png", tmp_path / "dispatch.png")
    image = QImage(str(png))
    assert (image.width(), image.height()) == (1280, 720)
    rgb = image_rgb(image)
    screen = live.plots.figures["dispatch_vs_complete"]
    n = len(live.run.calls_of("jit", "steady"))
    # The same figure, laid out as the export was: every call's marker is where the PNG has it.
    fig = build_figure("dispatch_vs_complete", live.run, (1280, 720), "light", log_time=True)
    with laid_out(fig, (1280, 720)) as view:
        ready = marker_pixels(view, fig.plot, fig.scatters["ready"])
    assert len(ready) == len(screen.scatters["ready"].data) == n
    assert all(near_colour(rgb, xy, LIGHT.ready) for xy in ready)
    for kind in ("dispatch", "ready"):
        assert np.array_equal(fig.scatters[kind].data["x"], screen.scatters[kind].data["x"])
        assert np.allclose(fig.scatters[kind].data["y"], screen.scatters[kind].data["y"])
    assert fig.caption() == screen.caption()
    screen_rgb = image_rgb(live.plots.pages["dispatch_vs_complete"].view.grab().toImage())
    for colour in (LIGHT.dispatch, LIGHT.ready):  # both series, in both pictures
        assert count_colour(rgb, colour) > 60 and count_colour(screen_rgb, colour) > 60
    assert "Wrote dispatch.png into" in live.banner.text()


def test_svg_csv_json_and_trace_are_valid(live, tmp_path):
    run = live.run
    live.plots.show_kind("timeline")
    live.export_bar.set_size("1920x1080")
    [svg] = live.export("svg", tmp_path / "timeline.svg")
    root = ET.parse(svg).getroot()
    assert root.tag == f"{SVG}svg" and root.get("viewBox") == "0 0 1920 1080"
    assert root.find(f"{SVG}desc").text == live.plots.pages["timeline"].caption.text()
    ready = [p for p in root.iter(f"{SVG}path") if p.get("fill") == LIGHT.ready.lower()]
    assert len(ready) >= len(run.calls_of(phase="pipelined"))
    [csv_path] = live.export("csv", tmp_path / "timings.csv")
    with csv_path.open(newline="") as f:
        reader = csv.DictReader(f)
        rows = list(reader)
    assert tuple(reader.fieldnames) == CSV_COLUMNS
    steady_rows = [r for r in rows if r["phase"] == "steady" and r["variant"] == "jit"]
    assert [float(r["complete_ms"]) for r in steady_rows] == pytest.approx(
        [c.t_complete_ns / 1e6 for c in run.calls_of("jit", "steady")], abs=1e-5)
    [json_path] = live.export("json", tmp_path / "timings.json")
    assert to_plain(read_json(json_path)) == to_plain(run)
    [trace_path] = live.export("trace", tmp_path / "trace.json")
    trace = json.loads(trace_path.read_text())
    complete = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    assert complete and all(e["dur"] >= 0 and "ts" in e for e in complete)
    assert trace["otherData"]["host_cpu"] == run.header.host_cpu
    names = {e["args"]["name"] for e in trace["traceEvents"] if e["name"] == "process_name"}
    assert names == {"NumPy (numpy)", "jit (jit)"}


def test_all_plots_into_a_folder_at_the_chosen_theme(live, tmp_path):
    live.export_bar.set_size("1280x720")
    live.export_bar.set_theme("dark")
    try:
        # the plots on screen switch theme too: what you see is what you export
        page = live.plots.pages[live.plots.current_kind()]
        assert count_colour(image_rgb(page.view.grab().toImage())[:4, :4], DARK.background, 2) == 16
        written = live.export("plots", tmp_path)
    finally:
        live.export_bar.set_theme("light")
    assert sorted(p.name for p in written) == sorted(
        f"{k}.{e}" for k in ("dispatch_vs_complete", "timeline", "variants", "sweep")
        for e in ("png", "svg", "pdf"))
    rgb = image_rgb(QImage(str(tmp_path / "variants.png")))
    assert rgb.shape == (720, 1280, 3)
    assert count_colour(rgb[:5, :5], DARK.background, 2) == 25
    assert count_colour(rgb, DARK.ready) > 40


def test_the_menus_pdf_entry_asks_where_and_writes_the_plot_on_screen(live, tmp_path,
                                                                       monkeypatch):
    """Export ▾ > Plot as PDF: the file dialog offers PDF files under the plot's name; a name
    typed without .pdf gets it; the PDF is the plot on screen at the menu's size and theme,
    its title searchable text."""
    from PySide6.QtWidgets import QFileDialog

    from tests.helpers.rasters import pdf_pages, pdftoppm, pdftotext, plain_title

    asked = []

    def choose(_parent, title, suggested, filters):
        asked.append((title, suggested, filters))
        return str(tmp_path / "for_beamer"), filters

    monkeypatch.setattr(QFileDialog, "getSaveFileName", choose)
    live.plots.show_kind("timeline")
    live.export_bar.set_size("1280x720")
    live.export_bar.set_theme("dark")
    try:
        live.export_bar.actions_by_kind["pdf"].trigger()
    finally:
        live.export_bar.set_theme("light")
    [(title, suggested, filters)] = asked
    assert title.startswith("Plot as PDF") and suggested.endswith("timeline.pdf")
    assert filters == "PDF documents (*.pdf)"
    pdf = tmp_path / "for_beamer.pdf"
    assert live.banner.text().startswith("Wrote for_beamer.pdf")
    pages, points = pdf_pages(pdf)
    assert pages == 1 and points == pytest.approx((960, 540), abs=0.5)
    title = plain_title(build_figure("timeline", live.run, (1280, 720), "dark"))
    assert "chained" in title and title in pdftotext(pdf)
    rgb = pdftoppm(pdf)
    assert rgb.shape == (720, 1280, 3) and count_colour(rgb[:5, :5], DARK.background, 2) == 25
    assert count_colour(rgb, DARK.ready) > 20


def test_copy_puts_the_plot_on_the_clipboard(live):
    live.plots.show_kind("variants")
    live.export_bar.set_size("1280x720")
    assert live.copy_plot()
    image = QGuiApplication.clipboard().image()
    assert (image.width(), image.height()) == (1280, 720)
    rgb = image_rgb(image)
    assert count_colour(rgb, LIGHT.ready) > 40 and count_colour(rgb, LIGHT.dispatch) > 40
    assert "Copied the variants plot (1280×720)" in live.banner.text()


def test_reopening_the_exported_json_reproduces_the_plots(live, qtbot, tmp_path, shared_engine):
    path = write_json(live.run, tmp_path / "timings.json")
    again = make_view(shared_engine)
    qtbot.addWidget(again)
    with qtbot.waitSignal(again.sourceOffered) as offered:
        assert again.open_recording(str(path))
    assert offered.args[0] == live.run.request.trace  # the recorded code, for the host to show
    assert to_plain(again.run) == to_plain(live.run)
    again.plots.refresh(everything=True)
    live.plots.refresh(everything=True)
    for kind, fig in live.plots.figures.items():
        same_items(fig, again.plots.figures[kind])
        assert again.plots.pages[kind].caption.text() == live.plots.pages[kind].caption.text()
    h = live.run.header
    info = again.info_label.text()
    assert info.startswith("Recording timings.json, shown as recorded (not rerun): measured")
    assert h.host_cpu in info and h.date[:10] in info and f"jaxlib {h.jaxlib}" in info
    assert f"date: {h.date}" in again.info_label.toolTip()
    # the controls show how it was measured; Run measures the recorded code only once the
    # host has shown it and handed it back (the window opens it as a document)
    assert again.controls.checked_variants() == ["numpy", "jit"]
    assert again.controls.runs.value() == 6 and again.controls.sweep.text() == "n=32,64"
    assert not again.controls.run_button.isEnabled()
    shown = make_view(shared_engine)  # a host that shows the code and hands it back
    qtbot.addWidget(shown)
    shown.sourceOffered.connect(shown.set_target)
    assert shown.open_recording(str(path))
    assert shown.controls.run_button.isEnabled() and shown.controls.runs.value() == 6
    shown.set_target(offered.args[0])  # traced again: the recorded settings stay
    assert shown.controls.runs.value() == 6 and shown.controls.sweep.text() == "n=32,64"


def test_an_unwritable_place_says_so_and_keeps_the_plot(live, tmp_path):
    live.plots.show_kind("dispatch_vs_complete")
    before = figure_items(live.plots.figures["dispatch_vs_complete"])
    blocker = tmp_path / "a_file"
    blocker.write_text("not a folder")
    for what in ("png", "svg", "pdf", "csv", "json", "trace"):
        target = blocker / f"out.{what}"
        assert live.export(what, target) is None
        assert live.banner.severity == "error"
        assert live.banner.text().startswith(f"Could not write {target}")
        assert not target.exists()
    assert live.export("plots", blocker) is None and "is not a folder" in live.banner.text()
    live.export_bar.set_size("huge")
    try:
        assert live.export("png", tmp_path / "x.png") is None
        assert "is not WIDTHxHEIGHT" in live.banner.text()
    finally:
        live.export_bar.set_size("1920x1080")
    after = figure_items(live.plots.figures["dispatch_vs_complete"])
    assert before.keys() == after.keys()
    assert all(np.array_equal(a, b) for k in before for a, b in zip(before[k], after[k]))
    assert live.run.calls  # the run is still there


def test_a_file_that_is_not_a_recording_is_refused(qtbot, tmp_path, shared_engine):
    view = make_view(shared_engine)
    qtbot.addWidget(view)
    garbage = tmp_path / "notes.json"
    garbage.write_text("{ this is not json")
    assert not view.open_recording(str(garbage))
    assert view.banner.text().startswith(f"Cannot open {garbage}")
    assert view.run is None
    assert view.plots.pages["dispatch_vs_complete"].caption.text().startswith("Press Run")
    assert not view.open_recording(str(tmp_path / "missing.json"))
    assert "No such file" in view.banner.text()


@pytest.mark.slow
def test_a_recording_from_jaxviz_time_opens_as_the_cli_drew_it(qtbot, tmp_path, shared_engine):
    proc = subprocess.run(
        [sys.executable, "-m", "jaxviz", "time", "example:batched_matmul", "--args",
         "f32[32,32], f32[32,32]", "--variants", "numpy,pmap", "--runs", "4", "--warmup", "1",
         "--pipeline", "3", "--devices", "4", "--no-plots", "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=JAX_MS / 1000)
    assert proc.returncode == 0, proc.stderr
    view = make_view(shared_engine)
    qtbot.addWidget(view)
    assert view.open_recording(str(tmp_path / "timings.json"))
    run = read_json(tmp_path / "timings.json")
    view.plots.refresh(everything=True)
    for kind in ("dispatch_vs_complete", "timeline", "variants"):
        same_items(build_figure(kind, run, (1280, 720)), view.plots.figures[kind])
    assert "4 simulated CPU devices" in view.info_label.text()
    # one lane per device in the timeline, as recorded
    ticks = view.plots.figures["timeline"].plot.getAxis("left")._tickLevels[0]
    assert [t for _, t in ticks][2:] == [f"device {d}" for d in range(4)]
    assert view.controls.checked_variants() == ["numpy", "pmap"]


def test_a_recording_whose_variant_differs_says_so(qtbot, tmp_path, shared_engine, live):
    import copy

    from jaxviz.model.notes import VariantNote

    run = copy.deepcopy(live.run)
    info = run.info("jit")
    info.notes.append(VariantNote("per_device_collective", "psum over 'p' sums 8, not 16"))
    view = make_view(shared_engine)
    qtbot.addWidget(view)
    assert view.open_recording(str(write_json(run, tmp_path / "timings.json")))
    assert view.banner.severity == "warning"
    assert "jit differs: psum over 'p' sums 8, not 16" in view.banner.text()
