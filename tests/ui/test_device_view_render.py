"""The device view drawn offscreen: sampled pixels against the storyboards JAX's programs gave."""

from __future__ import annotations

import jax
import numpy as np
import pytest
from jax.sharding import AxisType, Mesh, NamedSharding
from jax.sharding import PartitionSpec as P
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QImage

from jaxviz.views.devices.boxes import held_rect
from jaxviz.views.palette import DEVICE_COLOURS
from tests.helpers.device_cases import configure_jax, traced

configure_jax()
W, H = 1280, 720


@pytest.fixture
def renderer(qapp):
    from jaxviz.ui.devices.export import Renderer
    from jaxviz.views.devices import build_scene

    def make(name: str, variant: str, theme: str = "light", **overrides) -> Renderer:
        return Renderer(build_scene(traced(name, variant, **overrides), variant), W, H, theme)

    return make


def colour_at(img: QImage, rect, fx: float = 0.5, fy: float = 0.5) -> str:
    x, y, w, h = rect
    return img.pixelColor(int(x + w * fx), int(y + h * fy)).name().upper()


def phase_index(renderer, kind: str) -> int:
    return [p.kind for p in renderer.scene.phases].index(kind)


def test_convolve_pmap_each_row_tile_has_its_devices_colour(renderer):
    r = renderer("convolve", "pmap")
    colour = r.scene.colour_of
    assert [colour[d] for d in range(8)] == list(DEVICE_COLOURS)
    img = r.image(phase_index(r, "split"), 1.0)
    for place in r.layout.inputs:  # x and w, on the host
        assert len(place.blocks) == 8
        for block, rect in zip(place.grid.blocks, place.blocks):
            [device] = block.holders
            assert block.index[0] == [device, device + 1] or tuple(block.index[0]) == (
                device, device + 1)
            assert colour_at(img, rect) == colour[device]
    img = r.image(phase_index(r, "compute"), 1.0)
    for d, place in r.layout.devices.items():  # each device's own row, in the device box
        for g in r.scene.inputs:
            tile = place.minis[g.key]
            assert colour_at(img, tile, 0.1, 0.15) == colour[d]


def ring_colours(img: QImage, rect, band: float) -> list[str]:
    """Colours sampled along the middle of a tile's border band, clockwise."""
    x, y, w, h = rect
    d = band / 2
    points = [(x + w * f, y + d) for f in (0.1, 0.3, 0.5, 0.7, 0.9)]
    points += [(x + w - d, y + h * f) for f in (0.1, 0.3, 0.5, 0.7, 0.9)]
    points += [(x + w * f, y + h - d) for f in (0.9, 0.7, 0.5, 0.3, 0.1)]
    points += [(x + d, y + h * f) for f in (0.9, 0.7, 0.5, 0.3, 0.1)]
    return [img.pixelColor(int(px), int(py)).name().upper() for px, py in points]


def test_tensor_parallel_tiles_match_devices_indices_map(renderer):
    """Shared tiles: the holders' colours only in the border, a neutral fill inside."""
    r = renderer("tensor_parallel", "sharded")
    devices = jax.devices()[:8]
    mesh = Mesh(np.array(devices).reshape(4, 2), ("data", "model"),
                axis_types=(AxisType.Auto,) * 2)
    sx, sw = NamedSharding(mesh, P("data", None)), NamedSharding(mesh, P(None, "model"))
    x, w = np.ones((16, 64), np.float32), np.ones((64, 32), np.float32)
    compiled = jax.jit(lambda a, b: jax.numpy.tanh(a @ b), in_shardings=(sx, sw)).lower(
        x, w).compile()
    real = {"x": sx.devices_indices_map(x.shape), "w": sw.devices_indices_map(w.shape),
            "out": compiled.output_shardings.devices_indices_map((16, 32))}
    colour = r.scene.colour_of
    device_colours = set(colour.values())
    split = r.image(phase_index(r, "split"), 1.0)
    done = r.image(len(r.scene.phases) - 1, 1.0)
    for name, index_map in real.items():
        place = r.layout.array(name)
        shape = place.grid.shape
        holders: dict[tuple, list[int]] = {}
        for dev, idx in index_map.items():
            key = tuple(tuple(s.indices(n)[:2]) for s, n in zip(idx, shape))
            holders.setdefault(key, []).append(dev.id)
        img = split if place.grid.role == "input" else done
        assert len(place.blocks) == len(holders)
        gap = r.builder.tile_gap(place)
        for block, rect in zip(place.grid.blocks, place.blocks):
            key = tuple(tuple(r_) for r_ in block.index)
            expected = sorted(holders[key])
            assert sorted(block.holders) == expected
            x0, y0, w0, h0 = rect
            rect = (x0 + gap / 2, y0 + gap / 2, w0 - gap, h0 - gap)
            inside = colour_at(img, rect, 0.5, 0.5 if len(expected) == 1 else 0.08)
            if len(expected) == 1:  # a real split: the one holder's colour, whole
                assert inside == colour[expected[0]]
                continue
            # Shared: a neutral fill inside (no device colour), the holders around it.
            band = max(min(0.28 * r.unit, min(rect[2], rect[3]) * 0.22), 1.5)
            assert colour_at(img, rect, 0.5, 0.5) not in device_colours
            border = {c for c in ring_colours(img, rect, band) if c in device_colours}
            assert border == {colour[d] for d in expected}, (name, key)
        # Every device's own tile shows its block in its colour.
        for dev in index_map:
            d = dev.id
            tile = r.layout.devices[d].minis[place.grid.key]
            [block] = place.grid.by_device[d]
            assert colour_at(done, held_rect(tile, place.grid, d, block)) == colour[d]


def test_a_replicated_tile_and_a_split_tile_are_told_apart_by_their_pixels(renderer):
    r = renderer("mlp_predict", "pmap")
    theme = r.theme
    img = r.image(phase_index(r, "split"), 1.0)
    params = r.layout.array("params", "input")  # folded: four replicated leaves
    images = r.layout.array("image", "input")
    colours = set(r.scene.colour_of.values())
    gap = r.builder.tile_gap(params)
    x, y, w, h = params.rect
    x, y, w, h = x + gap / 2, y + gap / 2, w - gap, h - gap  # the drawn tile
    replicated_inside = colour_at(img, (x, y, w, h), 0.5, 0.15)
    assert replicated_inside == theme.shared.upper()
    assert replicated_inside not in colours and replicated_inside != theme.neutral.upper()
    band = max(min(0.28 * r.unit, min(w, h) * 0.22), 1.5)
    assert len({c for c in ring_colours(img, (x, y, w, h), band) if c in colours}) >= 4
    for block, rect in zip(images.grid.blocks, images.blocks):
        [d] = block.holders
        assert colour_at(img, rect) == r.scene.colour_of[d] != replicated_inside


@pytest.mark.parametrize("variant", ["pmap", "sharded"])
def test_replicated_params_show_on_every_device(renderer, variant):
    r = renderer("mlp_predict", variant)
    img = r.image(phase_index(r, "compute"), 1.0)
    assert len([g for g in r.scene.inputs if g.replicated]) == 4
    params = [g for g in r.layout.shown_inputs if g.replicated]
    assert [g.name for g in params] == ["params"]  # folded into one entry
    for d, place in r.layout.devices.items():
        for g in params:
            assert colour_at(img, place.minis[g.key]) == r.scene.colour_of[d], (d, g.name)


def test_collective_phase_draws_sum_badges_only_for_psum(renderer):
    r = renderer("normalize", "pmap")
    k = phase_index(r, "collective")
    before, after = r.image(k, 0.0), r.image(k, 1.0)
    colours = r.scene.colour_of
    for place in r.layout.devices.values():
        x, y, w, h = place.badge
        stripe_row = (x + 1, y + h * 0.62, w - 2, h * 0.38)
        # After the all-reduce every device holds a mix of all eight devices' values.
        seen = {colour_at(after, stripe_row, (j + 0.5) / 8, 0.5) for j in range(8)}
        assert seen == set(colours.values())
        assert colour_at(before, stripe_row, 0.5, 0.5) != colour_at(after, stripe_row, 0.5, 0.5)
    plain = renderer("convolve", "pmap")
    assert "collective" not in [p.kind for p in plain.scene.phases]


def test_dark_theme_and_svg_export(renderer, tmp_path):
    r = renderer("convolve", "pmap", theme="dark")
    img = r.image(0, 1.0)
    assert QColor(img.pixelColor(2, 2)).name().upper() == r.theme.bg.upper()
    path = r.save(3, 0.5, tmp_path / "frame.svg")
    text = path.read_text()
    assert text.startswith("<?xml") and "<svg" in text and "convolve" in text
    png = r.save(3, 1.0, tmp_path / "frame.png")
    assert QImage(str(png)).size().width() == W


def test_stepping_with_keys_moves_exactly_one_phase(qtbot):
    from PySide6.QtTest import QTest

    from jaxviz.ui.devices import DeviceView

    view = DeviceView()
    qtbot.addWidget(view)
    view.resize(900, 560)
    seen = []
    view.phaseChanged.connect(lambda i, caption, lines: seen.append((i, caption, lines)))
    view.set_result(traced("normalize", "pmap"), "pmap")
    assert view.current_phase == 0 and seen[-1][0] == 0
    for key, expected in ((Qt.Key.Key_Right, 1), (Qt.Key.Key_PageDown, 2),
                          (Qt.Key.Key_PageDown, 3), (Qt.Key.Key_Left, 2),
                          (Qt.Key.Key_PageUp, 1), (Qt.Key.Key_Right, 2)):
        QTest.keyClick(view, key)
        assert view.current_phase == expected
        assert seen[-1][0] == expected
        assert seen[-1][1] == view.phases[expected].caption
    view.seek(3)
    assert view.phases[3].kind == "collective"
    assert seen[-1][2] == view.phases[3].highlights and seen[-1][2][0][0] == "pmap"
    view.step(+1)
    assert view.current_phase == 4 and view.current_time == 0.0
    view.pause()
    view.step(100)
    assert view.current_phase == len(view.phases) - 1


def test_view_follows_a_new_result_and_exports(qtbot, tmp_path):
    from jaxviz.ui.devices import DeviceView

    view = DeviceView()
    qtbot.addWidget(view)
    view.resize(800, 500)
    view.set_result(traced("tensor_parallel", "sharded"), "sharded")
    view.seek(3)
    # Same phases after re-lowering (another spec): the view stays on its phase.
    view.set_result(traced("tensor_parallel", "sharded", specs="P('data', None), P()"),
                    "sharded")
    assert view.current_phase == 3
    assert [g.replicated for g in view.scene.inputs] == [False, True]
    frame = view.export_frame(tmp_path / "f.png", (640, 360))
    assert QImage(str(frame)).width() == 640
    view.set_theme("dark")
    image = view.canvas.grab().toImage()
    assert image.pixelColor(3, 3).name().upper() == "#14171C"


def test_clicking_a_folded_pytree_shows_each_of_its_arrays(qtbot):
    from PySide6.QtCore import QPoint
    from PySide6.QtTest import QTest

    from jaxviz.ui.devices import DeviceView

    view = DeviceView()
    qtbot.addWidget(view)
    view.resize(900, 480)  # the docked tab of a 1280x720 window
    view.show()
    qtbot.waitExposed(view)
    view.set_result(traced("data_parallel", "pmap"), "pmap")
    lay = view.canvas.builder().lay
    assert [p.grid.name for p in lay.inputs] == ["params", "x", "y"]
    x, y, w, h = lay.array("params", "input").label
    QTest.mouseClick(view.canvas, Qt.MouseButton.LeftButton, pos=QPoint(int(x + 10),
                                                                        int(y + h / 2)))
    lay = view.canvas.builder().lay
    assert [p.grid.name for p in lay.inputs] == ["params[0]", "params[1]", "x", "y"]
    x, y, w, h = lay.array("params[1]", "input").label
    QTest.mouseClick(view.canvas, Qt.MouseButton.LeftButton, pos=QPoint(int(x + 10),
                                                                        int(y + h / 2)))
    assert [p.grid.name for p in view.canvas.builder().lay.inputs] == ["params", "x", "y"]
