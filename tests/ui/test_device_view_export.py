"""The device view's Export menu: the frame as PNG/SVG/PDF at once, animations in the background.

The layout comes from the shared JAX engine (``example:convolve`` under pmap).
An MP4 export runs in a worker thread while the view keeps handling events and
animating; it can be stopped (no file stays); the files are read back the way
their consumers read them (PyAV, poppler).
"""

from __future__ import annotations

import threading
import time

import pytest
from PySide6.QtCore import QTimer

from jaxviz.model import TraceRequest, TraceResult, TraceSettings
from jaxviz.model.sources import resolve_target
from tests.rasters import pdf_pages, pdftotext
from tests.ui.helpers import JAX_MS


@pytest.fixture(scope="module")
def convolve(shared_engine) -> TraceResult:
    """example:convolve traced for pmap on 8 devices, in the shared engine."""
    from PySide6.QtCore import QCoreApplication, QElapsedTimer

    target, defaults = resolve_target("example:convolve")
    fields = {name: defaults[name] for name in TraceSettings.names()}
    fields["axis_name"] = fields["axis_name"] or "i"
    request = TraceRequest(target=target, variants=["pmap"], want=["jaxpr", "story"],
                           **fields)
    replies: dict[int, object] = {}

    def keep(reply) -> None:
        replies[reply.id] = reply

    shared_engine.replied.connect(keep)
    request_id = shared_engine.submit(request, timeout=JAX_MS / 1000)
    clock = QElapsedTimer()
    clock.start()
    while request_id not in replies and clock.elapsed() < JAX_MS:
        QCoreApplication.processEvents()
        time.sleep(0.01)
    shared_engine.replied.disconnect(keep)
    reply = replies[request_id]
    assert reply.ok and reply.result.error is None, reply.error
    return reply.result


@pytest.fixture
def view(qtbot, convolve):
    from jaxviz.ui.device_view import DeviceView

    view = DeviceView()
    qtbot.addWidget(view)
    view.resize(900, 560)
    view.show()
    view.set_result(convolve, "pmap")
    yield view
    view.stop_export()
    view.wait_for_export()


def test_the_menu_lists_every_registered_format(view):
    from jaxviz.ui.exporters import exporters

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
    assert view.export("frame", "pdf", tmp_path / "frame.pdf")
    pages, points = pdf_pages(tmp_path / "frame.pdf")
    assert pages == 1 and points == pytest.approx((960, 540), abs=0.5)
    assert " ".join(view.phases[3].title.split()) in pdftotext(tmp_path / "frame.pdf")
    assert "Wrote frame.pdf" in view.controls.export_message()


def test_mp4_is_written_off_the_gui_thread_while_the_view_animates(view, qtbot, tmp_path):
    import av

    from jaxviz.ui.device_view import export_menu

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
        assert view.start_export("mp4", tmp_path / "convolve.mp4", (320, 180), fps=4)
        assert view.exporting and not view.controls.export_button.isEnabled()
        seen_progress = []
        qtbot.waitUntil(lambda: (seen_progress.append(view.controls.export_message())
                                 or not view.exporting), timeout=JAX_MS)
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
    assert view.start_export("webm", target, (320, 180), fps=30)
    qtbot.waitUntil(lambda: "frame" in view.controls.export_message(), timeout=JAX_MS)
    assert view.controls.stop_export_button.isVisible()
    view.controls.stop_export_button.click()
    qtbot.waitUntil(lambda: not view.exporting, timeout=JAX_MS)
    assert "Stopped" in view.controls.export_message()
    assert not target.exists()
    assert not view.controls.stop_export_button.isVisible()


def test_a_bad_place_or_size_is_said_and_nothing_runs(view, qtbot, tmp_path):
    blocker = tmp_path / "a_file"
    blocker.write_text("not a folder")
    assert view.start_export("gif", blocker / "x.gif", (320, 180))
    qtbot.waitUntil(lambda: not view.exporting, timeout=JAX_MS)
    assert view.controls.export_message().startswith(f"Could not write {blocker}")
    assert not view.start_export("mp4", tmp_path / "odd.mp4", (321, 180))
    assert "even width and height" in view.controls.export_message()
    assert not view.exporting
