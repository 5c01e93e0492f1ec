"""A big program's device view draws its frames in steps, never a whole layer in one paint.

A train step's static layer is 20-50 ms of drawing and its layout 5-20 ms: the canvas of a
big program (``STEPPED_SCENE`` phases or more; here lowered, so that a gallery program
traced by JAX stands in for one) shows its last frame while the new one is drawn a few
milliseconds per turn of the event loop. What these tests hold: the paint that needs a
new layer does not draw it (the job that does takes several turns), the view says it is
busy meanwhile, and the picture it ends with is the one a view drawing at once shows --
whose pixels are each device's colour where JAX put that device's shard.
"""

from __future__ import annotations

import pytest
from PySide6.QtGui import QImage

from tests.helpers.device_cases import configure_jax, traced

configure_jax()
W, H = 1280, 720


def _view(qtbot, result, variant: str):
    from jaxviz.ui.devices.view import DeviceView

    view = DeviceView()
    qtbot.addWidget(view)
    view.resize(W, H)
    view.show()
    qtbot.waitExposed(view)
    view.set_result(result, variant)
    return view


def _canvas(view) -> QImage:
    return view.canvas.grab().toImage()


@pytest.fixture
def stepped(monkeypatch):
    """Every scene with phases counts as big, its layers drawn in slices of 0.5 ms."""
    from jaxviz.ui.devices import view as view_module

    monkeypatch.setattr(view_module, "STEPPED_SCENE", 1)
    monkeypatch.setattr(view_module, "LAYER_SLICE_MS", 0.5)
    monkeypatch.setattr(view_module, "OVERVIEW_PHASES", 1)  # the strip and the group tree
    return view_module


def test_a_big_programs_new_phase_is_drawn_in_steps_and_ends_as_drawn_at_once(
        qtbot, stepped, monkeypatch):
    from jaxviz.ui.devices.overview import ProgramStrip

    prepared: list[int] = []
    prepare = ProgramStrip.prepare

    def spy(strip, scene, rows, width):  # the strip's marks drawn in the loading steps
        prepared.append(width)
        return (yield from prepare(strip, scene, rows, width))

    monkeypatch.setattr(ProgramStrip, "prepare", spy)
    result = traced("data_parallel", "pmap")
    view = _view(qtbot, result, "pmap")
    qtbot.waitUntil(lambda: not view.busy and bool(view.phases), timeout=30000)
    first = _canvas(view)
    compute = [p.kind for p in view.phases].index("compute")
    assert compute > 0
    view.seek(compute, 1.0)
    assert view.busy  # its layer is not drawn yet ...
    standing = _canvas(view)  # ... so the paint shows the last frame, not a half-drawn one
    assert standing == first
    job = view.canvas._job
    assert job is not None and job.busy
    qtbot.waitUntil(lambda: not view.busy, timeout=30000)
    assert job.turns > 1  # drawn over several turns of the event loop
    stepped_image = _canvas(view)
    assert stepped_image != first

    # the same phase in a view that draws at once (a small program's way)
    stepped.STEPPED_SCENE = 10 ** 6
    at_once = _view(qtbot, result, "pmap")
    at_once.seek(compute, 1.0)
    assert not at_once.busy
    qtbot.waitUntil(lambda: at_once.canvas.size() == view.canvas.size(), timeout=5000)
    assert _canvas(at_once) == stepped_image
    # the strip's marks, drawn in the steps that built the scene, are those drawn at once
    assert prepared and view.strip.isVisible() and view.strip._prepared is None  # taken up
    assert view.strip.grab().toImage() == at_once.strip.grab().toImage()

    # and it shows what JAX did: each device's mini-map of x holds its shard, in its colour
    scene, lay = view.scene, view.canvas.builder().lay
    for d, place in lay.devices.items():
        for g in scene.inputs:
            tile = place.minis.get(g.key)
            if tile is None:
                continue
            x, y, w, h = tile
            colour = stepped_image.pixelColor(int(x + w * 0.1), int(y + h * 0.15)).name()
            assert colour.upper() == scene.colour_of[d].upper(), (d, g.name)


def test_a_resized_big_program_is_laid_out_again_in_steps_not_in_a_paint(qtbot, stepped):
    result = traced("data_parallel", "pmap")
    view = _view(qtbot, result, "pmap")
    qtbot.waitUntil(lambda: not view.busy and bool(view.phases), timeout=30000)
    canvas = view.canvas
    before = canvas.size()
    in_job: list[bool] = []
    rebuild = canvas._rebuild

    def spy(key: tuple, *lay) -> None:  # where the new layout is made: in a job's steps
        in_job.append(canvas._job is not None and canvas._job.busy and bool(lay))
        rebuild(key, *lay)

    canvas._rebuild = spy
    view.resize(W - 200, H - 100)
    qtbot.waitUntil(lambda: canvas.size() != before, timeout=5000)
    qtbot.waitUntil(lambda: not view.busy, timeout=30000)
    assert in_job and all(in_job)
    shown = _canvas(view)

    stepped.STEPPED_SCENE = 10 ** 6  # a view that draws at once, at the same size
    at_once = _view(qtbot, result, "pmap")
    at_once.resize(W - 200, H - 100)
    qtbot.waitUntil(lambda: at_once.canvas.size() == canvas.size(), timeout=5000)
    assert _canvas(at_once) == shown
