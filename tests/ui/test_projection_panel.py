"""The timing view's projection panel and the what-if plot.

Numbers against ``jaxviz cost --json`` (a separate process, the command a user runs) for
the same program and chip; pictures by sampled pixels: the projected lanes in their own
hatched colours and never the measured plots', the communication-bound marker at the N
where the data say T_comm first exceeds T_compute.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from PySide6.QtGui import QImage, QPainter

from jaxviz.model.chips import find_chip
from jaxviz.model.what_if import comm_bound_at, what_if_rows
from jaxviz.views.palette import OKABE_ITO, PROJECTED_LANES, WHAT_IF_MARKS
from tests.helpers.cli import jaxviz
from tests.helpers.timing_view import (
    configure,
    count_colour,
    example_request,
    image_rgb,
    spin_until,
)
from tests.helpers.window import JAX_MS

# starts engine processes and runs the command line (seconds each)
pytestmark = pytest.mark.slow


def _cost_json(variant: str, chip: str) -> dict:
    out = jaxviz("cost", "example:batched_matmul", "--variant", variant, "--chip", chip,
                 "--json")
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


@pytest.fixture(scope="module")
def panel_timeline(qapp, shared_engine):
    from jaxviz.ui.timing import TimingView

    view = TimingView()
    view.set_engine(shared_engine)
    view.resize(1600, 950)
    view.show()
    view.set_target(example_request("batched_matmul"))
    view.projection.set_chip("tpu-v5e")
    assert view.projection.timeline is None  # nothing compiled until asked
    configure(view, ["numpy", "jit-vmap", "pmap"])
    broadcast: list = []
    shared_engine.replied.connect(broadcast.append)
    view.projection.project.click()  # the variants ticked in the timing controls
    spin_until(lambda: view.projection.timeline is not None
               and len(view.projection.timeline.variants) == 2, JAX_MS)
    shared_engine.replied.disconnect(broadcast.append)
    # the panel's reply came to it alone, never to whoever listens to the engine
    assert broadcast == []
    yield view
    view.close()


def test_the_projection_equals_jaxviz_cost_json(panel_timeline):
    timeline = panel_timeline.projection.timeline
    assert timeline.chip == "tpu-v5e"
    assert "numpy" in timeline.left_out  # NumPy has no compiled program: said, not drawn
    for timing_variant, traced in (("pmap", "pmap"), ("jit-vmap", "vmap")):
        cli = _cost_json(traced, "tpu-v5e")
        v = next(x for x in timeline.variants if x.variant == timing_variant)
        assert v.devices == cli["devices"] and v.title.startswith(
            f"projected: {cli['devices']}x {cli['chip_name']}")
        for key in ("t_compute_s", "t_memory_s", "t_comm_s", "t_lower_s", "t_upper_s",
                    "flops", "hbm_bytes"):
            ours = {"t_compute_s": v.projection.total.t_compute.value,
                    "t_memory_s": v.projection.total.t_memory.value,
                    "t_comm_s": v.projection.total.t_comm.value,
                    "t_lower_s": v.projection.total.t_lower.value,
                    "t_upper_s": v.projection.total.t_upper.value,
                    "flops": v.projection.total.flops,
                    "hbm_bytes": v.projection.total.hbm_bytes}[key]
            assert ours == pytest.approx(cli["total"][key], rel=1e-9), key
        # every drawn bar is one phase's time on its lane, as the command prints it
        lanes = {"compute": "t_compute_s", "memory": "t_memory_s",
                 "communication": "t_comm_s"}
        for bar in v.bars:
            assert bar.length == pytest.approx(cli["phases"][bar.phase][lanes[bar.lane]])
        drawn = {(b.phase, b.lane) for b in v.bars}
        wanted = {(i, lane) for i, ph in enumerate(cli["phases"])
                  for lane, k in lanes.items() if ph[k] > 0}
        assert drawn == wanted
    # 8 chips against one: the speed-up the CPU cannot show
    speed = timeline.speedups()
    assert speed["pmap"] / speed["jit-vmap"] == pytest.approx(
        _cost_json("vmap", "tpu-v5e")["total"]["t_lower_s"]
        / _cost_json("pmap", "tpu-v5e")["total"]["t_lower_s"])


def test_the_chip_picker_reprojects(panel_timeline):
    panel = panel_timeline.projection
    panel.set_chip("h100")
    try:
        cli = _cost_json("pmap", "h100")
        v = next(x for x in panel.timeline.variants if x.variant == "pmap")
        assert v.projection.total.t_lower.value == pytest.approx(cli["total"]["t_lower_s"])
        assert "H100" in v.title
    finally:
        panel.set_chip("tpu-v5e")


def test_the_projected_lanes_are_hatched_in_their_own_colours(panel_timeline, tmp_path):
    panel = panel_timeline.projection
    path = panel.export("projection", "png", tmp_path / "p.png")
    rgb = image_rgb(QImage(str(path)))
    # the lanes' own colours are there (hatching draws the full colour)...
    for lane in ("compute", "memory"):
        assert count_colour(rgb, PROJECTED_LANES[lane], 10) > 200, lane
    # ...and the measured plots' dispatch blue and completion vermillion are not
    assert count_colour(rgb, OKABE_ITO["blue"], 10) == 0
    assert count_colour(rgb, OKABE_ITO["vermillion"], 10) == 0
    # the raw data beside it
    data = json.loads(panel.export("projection", "json", tmp_path / "p.json").read_text())
    assert data["projected"] is True and data["chip"] == "tpu-v5e"
    assert {v["variant"] for v in data["variants"]} == {"jit-vmap", "pmap"}
    svg = panel.export("projection", "svg", tmp_path / "p.svg").read_text()
    assert "<svg" in svg and "PROJECTED" in svg
    # the hatching is lines in the lane's colour, kept in the vector file too
    assert svg.lower().count(PROJECTED_LANES["compute"].lower()) > 10


def test_hovering_a_bar_shows_its_formula(panel_timeline):
    canvas = panel_timeline.projection.canvas
    panel_timeline.projection.tabs.setCurrentIndex(0)  # the projected timeline
    canvas.grab()  # paints, which places the bars
    assert canvas.hits
    rect, _ = canvas.hits[0]
    text = canvas.hover_text(rect.center())
    v = panel_timeline.projection.timeline.variants[0]
    bar = v.bars[0]
    assert v.title in text and bar.formula in text and "FLOP" in bar.formula


def test_its_export_menu_is_the_registry_s(panel_timeline):
    from jaxviz.views import exports

    menu = panel_timeline.projection.export_button.menu()
    assert list(menu.actions_by_format) == [
        (s, e.name) for s in ("projection", "what-if") for e in exports.exporters(s)]
    assert {n for s, n in menu.actions_by_format} == {"png", "svg", "json"}


def test_the_panel_sits_beside_the_measured_plots(panel_timeline):
    view = panel_timeline
    plots, proj = view.plots.geometry(), view.projection.geometry()
    assert plots.height() > 50 and proj.height() > 50
    assert plots.bottom() <= proj.top()  # its own plot, below the measured ones


def test_the_comm_bound_marker_is_drawn_at_the_data_s_n(qapp):
    from jaxviz.core.what_if import what_if
    from jaxviz.model.what_if import WhatIfRequest
    from jaxviz.ui.timing.cost_figures import _xmap, paint_what_if
    from tests.helpers.jax_requests import example_request as jax_request

    chip = find_chip("tpu-v5e")
    result = what_if(WhatIfRequest(jax_request("data_parallel", ["pmap"], ("jaxpr", "cost")),
                                   [1, 2, 4, 8]))
    rows = sorted(what_if_rows(result, chip), key=lambda r: r.devices)
    first = next(r.devices for r in rows if r.t_comm > r.t_compute)  # from the data
    assert comm_bound_at(rows, "pmap") == first
    size = (1280, 720)
    image = QImage(*size, QImage.Format.Format_ARGB32)
    p = QPainter(image)
    paint_what_if(p, size, result, chip)
    p.end()
    rgb = image_rgb(image)
    mark = np.array([int(WHAT_IF_MARKS["comm"][i:i + 2], 16) for i in (1, 3, 5)])
    hits = (np.abs(rgb.astype(int) - mark).max(axis=-1) <= 12)
    # columns holding a long run of the marker's colour in the left (step time) panel
    columns = [x for x in range(size[0] // 2) if hits[size[1] // 4: size[1] * 3 // 4, x].sum()
               > size[1] // 10]
    assert columns, "no communication-bound marker drawn"
    # where a mark at each N would be: the marker is at the data's N and no other
    from PySide6.QtCore import QRectF
    px = max(8.0, min(size[0] / 80, size[1] / 34))
    xs = {n: _xmap(QRectF(px + px * 5, 0, (size[0] - 2 * px - px * 5 - px * 10) / 2, 1),
                   [1, 2, 4, 8], n) for n in (1, 2, 4, 8)}
    nearest = {min(xs, key=lambda n: abs(xs[n] - c)) for c in columns}
    assert nearest == {first}
    assert not math.isnan(rows[-1].t_lower)


def test_on_a_small_screen_the_figure_scrolls_rather_than_shrinking_its_text(panel_timeline,
                                                                            qapp):
    from PySide6.QtGui import QFontInfo

    from jaxviz.ui.timing.cost_figures import projected_height

    view = panel_timeline
    panel = view.projection
    panel.tabs.setCurrentIndex(0)
    view.resize(1280, 720)  # a projector
    qapp.processEvents()
    canvas = panel.canvas
    font_px = QFontInfo(canvas.font()).pixelSize()
    # the text the window uses (not 8 px) fits: the canvas is as tall as that needs...
    assert canvas.height() >= projected_height(len(panel.timeline.variants), font_px)
    area = panel.tabs.currentWidget()
    # ...and where the screen has less room, its scroll area scrolls
    if area.viewport().height() < canvas.height():
        assert area.verticalScrollBar().maximum() > 0
    view.resize(1600, 950)


def test_until_asked_the_projection_is_folded_to_its_bar(qapp, shared_engine):
    """A timing view nobody asked to project gives the measured plots the height (a docked
    view on a projector has little); Project unfolds the projection under its bar."""
    from jaxviz.ui.timing import TimingView

    view = TimingView()
    view.set_engine(shared_engine)
    view.resize(1280, 420)  # about what the dock gets on a 1280x720 screen
    view.show()
    view.set_target(example_request("batched_matmul"))
    qapp.processEvents()
    panel = view.projection
    assert panel.folded and not panel.tabs.isVisible()
    plots, projection = view.measured_split.sizes()
    assert projection <= panel.project.sizeHint().height() + 16
    assert plots >= 0.8 * (plots + projection)
    configure(view, ["numpy", "pmap"])
    panel.project.click()
    spin_until(lambda: panel.timeline is not None, JAX_MS)
    qapp.processEvents()
    assert not panel.folded and panel.tabs.isVisible()
    assert view.measured_split.sizes()[1] > 3 * panel.project.sizeHint().height()
    view.close()
