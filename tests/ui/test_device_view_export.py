"""The device view's Export menu: the frame as PNG/SVG/PDF at once, animations in the background.

The storyboard is JAX's (``example:convolve`` under pmap, traced in this process).
An MP4 export runs in a worker thread while the view keeps handling events and
animating; it can be stopped (no file stays); the files are read back the way
their consumers read them (PyAV, poppler).
"""

from __future__ import annotations

import threading

import pytest
from PySide6.QtCore import QTimer

from jaxviz.model import TraceResult
from tests.helpers.device_cases import traced
from tests.helpers.rasters import pdf_pages, pdftotext
from tests.helpers.window import JAX_MS

# Not in the fast tier: every export written and read back by external programs.
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def convolve() -> TraceResult:
    """example:convolve traced for pmap on 8 devices (jaxpr and storyboard)."""
    return traced("convolve", "pmap")


@pytest.fixture
def view(qtbot, convolve):
    from jaxviz.ui.devices import DeviceView

    view = DeviceView()
    qtbot.addWidget(view)
    view.resize(900, 560)
    view.show()
    view.set_result(convolve, "pmap")
    yield view
    view.exports.stop()
    view.exports.wait()


def test_the_menu_lists_every_registered_format(view):
    from jaxviz.ui.devices.formats import exporters

    menu = view.controls.export_menu
    for subject in ("frame", "animation"):
        for exporter in exporters(subject):
            assert (subject, exporter.name) in menu.actions_by_format
    texts = [a.text() for a in menu.actions_by_format.values()]
    assert any("MP4" in t for t in texts) and any("PDF" in t for t in texts)
    assert view.controls.export_button.isEnabled()


def test_frame_as_pdf_keeps_its_text(view, tmp_path):
    view.seek(3)
    view.controls.export_menu.set_size((1280, 720))
    assert view.exports.export("frame", "pdf", tmp_path / "frame.pdf")
    pages, points = pdf_pages(tmp_path / "frame.pdf")
    assert pages == 1 and points == pytest.approx((960, 540), abs=0.5)
    assert " ".join(view.phases[3].title.split()) in pdftotext(tmp_path / "frame.pdf")
    assert "Wrote frame.pdf" in view.controls.export_message()


def test_mp4_is_written_off_the_gui_thread_while_the_view_animates(view, qtbot, tmp_path):
    import av

    from jaxviz.ui.devices import export_menu

    threads = set()
    write = export_menu.AnimationJob.run

    def run(job):  # the worker's thread, recorded
        threads.add(threading.get_ident())
        write(job)

    export_menu.AnimationJob.run = run
    try:
        ticks = []
        timer = QTimer()
        timer.timeout.connect(lambda: ticks.append(view.current_time))
        timer.start(20)
        view.controls.export_menu.set_size((320, 180))
        view.play()
        assert view.exports.start("mp4", tmp_path / "convolve.mp4", (320, 180), fps=4)
        assert view.exports.running and not view.controls.export_button.isEnabled()
        seen_progress = []
        qtbot.waitUntil(lambda: (seen_progress.append(view.controls.export_message())
                                 or not view.exports.running), timeout=JAX_MS)
        timer.stop()
    finally:
        export_menu.AnimationJob.run = write
    assert threads and threading.get_ident() not in threads
    # the GUI thread kept handling events, and the view kept animating, during the export
    assert len(ticks) > 5 and len(set(ticks)) > 3
    assert any("frame" in text and "/" in text for text in seen_progress)
    assert "Wrote convolve.mp4" in view.controls.export_message()
    with av.open(str(tmp_path / "convolve.mp4")) as video:
        stream = video.streams.video[0]
        assert (stream.codec_context.name, stream.width, stream.height) == ("h264", 320, 180)
        assert stream.average_rate == 4
        assert sum(1 for _ in video.decode(stream)) > len(view.phases)
    assert view.controls.export_button.isEnabled()


def test_stopping_an_export_leaves_no_file(view, qtbot, tmp_path):
    target = tmp_path / "stopped.webm"
    assert view.exports.start("webm", target, (320, 180), fps=30)
    qtbot.waitUntil(lambda: "frame" in view.controls.export_message(), timeout=JAX_MS)
    assert view.controls.stop_export_button.isVisible()
    view.controls.stop_export_button.click()
    qtbot.waitUntil(lambda: not view.exports.running, timeout=JAX_MS)
    assert "Stopped" in view.controls.export_message()
    assert not target.exists()
    assert not view.controls.stop_export_button.isVisible()


def test_a_bad_place_or_size_is_said_and_nothing_runs(view, qtbot, tmp_path):
    blocker = tmp_path / "a_file"
    blocker.write_text("not a folder")
    assert view.exports.start("gif", blocker / "x.gif", (320, 180))
    qtbot.waitUntil(lambda: not view.exports.running, timeout=JAX_MS)
    assert view.controls.export_message().startswith(f"Could not write {blocker}")
    assert not view.exports.start("mp4", tmp_path / "odd.mp4", (321, 180))
    assert "even width and height" in view.controls.export_message()
    assert not view.exports.running


def test_the_menu_asks_where_and_adds_the_formats_extension(view, qtbot, tmp_path,
                                                            monkeypatch):
    """Export ▾ > an entry: the file dialog offers that format's files under the function,
    variant (and phase) name; a name typed without the extension gets it."""
    from PIL import Image
    from PySide6.QtWidgets import QFileDialog

    from tests.helpers.rasters import rsvg

    asked = []

    def choose(_parent, title, suggested, filters):
        asked.append((title, suggested, filters))
        return str(tmp_path / f"typed{len(asked)}"), filters

    monkeypatch.setattr(QFileDialog, "getSaveFileName", choose)
    menu = view.controls.export_menu
    menu.size_actions["1280 × 720"].trigger()
    view.seek(2)
    menu.actions_by_format["frame", "svg"].trigger()
    menu.set_size((320, 180))
    menu.actions_by_format["animation", "apng"].trigger()
    qtbot.waitUntil(lambda: not view.exports.running, timeout=JAX_MS)
    (svg_title, svg_name, svg_filter), (apng_title, apng_name, apng_filter) = asked
    assert svg_name.endswith("convolve_pmap_phase3.svg") and svg_filter == "SVG images (*.svg)"
    assert apng_name.endswith("convolve_pmap.apng") and "(*.apng)" in apng_filter
    assert svg_title.startswith("Frame as SVG") and apng_title.startswith("Animation as")
    # the frame at the menu's size, as librsvg draws it; the animation at the later size
    assert rsvg(tmp_path / "typed1.svg").shape == (720, 1280, 3)
    with Image.open(tmp_path / "typed2.apng") as apng:
        assert apng.format == "PNG" and apng.is_animated and apng.size == (320, 180)
        assert apng.n_frames == 6 * len(view.phases)
    assert "Wrote typed2.apng" in view.controls.export_message()


def test_as_shown_a_video_takes_the_even_size_just_inside_the_canvas(view, qtbot, tmp_path):
    import av

    view.resize(901, 561)  # an odd canvas: the control bar takes some height under it
    qtbot.waitUntil(lambda: view.canvas.width() == 901)
    if view.canvas.height() % 2 == 0:
        view.resize(901, 562)
        qtbot.waitUntil(lambda: view.canvas.height() % 2 == 1)
    width, height = view.canvas.width(), view.canvas.height()
    assert view.exports.start("mp4", tmp_path / "shown.mp4", None, fps=2)
    qtbot.waitUntil(lambda: not view.exports.running, timeout=JAX_MS)
    assert "Wrote shown.mp4" in view.controls.export_message()
    with av.open(str(tmp_path / "shown.mp4")) as video:
        stream = video.streams.video[0]
        assert (stream.width, stream.height) == (width - 1, height - 1)
