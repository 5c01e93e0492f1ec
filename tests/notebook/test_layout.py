"""jaxviz.sharding: the drawing of a live array's layout, checked against JAX.

This process has 8 CPU devices (tests/conftest.py): the arrays are real, the
oracle is ``devices_indices_map`` and each device's own shard data; the SVG is
read back as structure (tile groups) and as pixels (CairoSVG).
"""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.sharding import AxisType, NamedSharding
from jax.sharding import PartitionSpec as P

import jaxviz

# Not in the fast tier: starts engines.
pytestmark = pytest.mark.slow

SVG = "{http://www.w3.org/2000/svg}"


def _mesh(shape, names, kind=AxisType.Auto):
    return jax.make_mesh(shape, names, axis_types=(kind,) * len(shape))


def _expected(x):
    """index ranges -> sorted holder ids, from JAX."""
    out: dict = {}
    for device, index in x.sharding.devices_indices_map(x.shape).items():
        key = tuple(s.indices(n)[:2] for s, n in zip(index, x.shape))
        out.setdefault(key, []).append(device.id)
    return {k: sorted(v) for k, v in out.items()}


def _drawn(svg: str) -> dict:
    root = ET.fromstring(svg)
    tiles = {}
    for g in root.iter(f"{SVG}g"):
        if g.get("class") == "tile":
            key = (g.get("data-index"), g.get("data-devices"))
            tiles[key] = tiles.get(key, 0) + 1
    return tiles


@pytest.mark.parametrize("spec", [P("a", "b", "c"), P(None, "b", "c"), P("a", None, None),
                                  P(None, None, "c"), P()])
def test_a_3d_array_on_a_2x2x2_mesh_is_drawn_tile_for_tile(spec):
    mesh = _mesh((2, 2, 2), ("a", "b", "c"))
    x = jax.device_put(jnp.arange(64.).reshape(4, 4, 4), NamedSharding(mesh, spec))
    layout = jaxviz.sharding(x)
    expected = _expected(x)
    assert {t.index: sorted(t.devices) for t in layout.tiles} == expected
    for shard in x.addressable_shards:  # each device's data is the tile it is drawn in
        [tile] = [t for t in layout.tiles if shard.device.id in t.devices]
        block = np.asarray(x)[tuple(slice(a, b) for a, b in tile.index)]
        np.testing.assert_array_equal(np.asarray(shard.data), block)
    drawn = _drawn(layout._repr_svg_())
    # faceted over the first dimension: a tile appears once per panel it spans
    panels = len({t.index[0] for t in layout.tiles})
    assert len(drawn) == len(expected)
    assert sum(drawn.values()) == sum(
        len({p for p in {t.index[0] for t in layout.tiles}
             if t.index[0][0] <= p[0] and p[1] <= t.index[0][1]}) for t in layout.tiles)
    assert panels >= 1


def test_a_split_tile_has_its_device_colour_and_a_replica_is_pale():
    import cairosvg
    from PIL import Image

    mesh = _mesh((2, 4), ("x", "y"))
    split = jaxviz.sharding(jax.device_put(jnp.zeros((4, 8)), NamedSharding(mesh, P("x", "y"))))
    png = cairosvg.svg2png(bytestring=split._repr_svg_().encode())
    image = Image.open(io.BytesIO(png)).convert("RGB")
    root = ET.fromstring(split._repr_svg_())
    for g in root.iter(f"{SVG}g"):
        if g.get("class") != "tile":
            continue
        rect = g.find(f"{SVG}rect")
        x, y = float(rect.get("x")) + 4, float(rect.get("y")) + 4  # inside, clear of text
        device = int(g.get("data-devices"))
        colour = split.colours[device].lstrip("#")
        want = tuple(int(colour[i:i + 2], 16) for i in (0, 2, 4))
        assert image.getpixel((int(x), int(y))) == want
    rows = jaxviz.sharding(jax.device_put(jnp.zeros((4, 8)), NamedSharding(mesh, P("x", None))))
    assert [sorted(t.devices) for t in rows.tiles] == [[0, 1, 2, 3], [4, 5, 6, 7]]
    assert "each piece held whole by 4 devices" in rows.caption()


def test_explicit_sharding_types_are_jaxs():
    mesh = _mesh((2, 4), ("X", "Y"), AxisType.Explicit)
    x = jax.device_put(jnp.ones((4, 8)), NamedSharding(mesh, P("X", "Y")))
    layout = jaxviz.sharding(x)
    assert layout.type_text == str(jax.typeof(x)) and "@X" in layout.type_text
    assert layout.type_text in layout._repr_svg_()


def test_inside_shard_map_each_device_holds_its_own_block():
    mesh = _mesh((2, 4), ("a", "b"))
    seen = {}

    @partial(jax.shard_map, mesh=mesh, in_specs=P("a"), out_specs=P(("a", "b")))
    def blocks(x):
        seen["drawing"] = jaxviz.sharding(x)
        return x + 0.0 * jax.lax.axis_index("b")  # every device's block, gathered

    out = np.asarray(blocks(jnp.arange(8.))).reshape(8, -1)
    drawing = seen["drawing"]
    assert drawing.vma == ("a",) and drawing.shape == (4,)
    pieces = drawing.pieces()
    coords = [(i, j) for i in range(2) for j in range(4)]
    for n, p in enumerate(coords):  # same piece <=> the same values on those devices
        for m, q in enumerate(coords):
            assert (pieces[p] == pieces[q]) == bool(np.array_equal(out[n], out[m]))
    assert len(set(pieces.values())) == 2
    svg = drawing._repr_svg_()
    assert svg.count("class='block'") == 8 and "varies over a" in svg


def test_a_mesh_larger_than_the_kernels_is_laid_out_by_the_engine():
    mesh = _mesh((2, 2, 2), ("a", "b", "c"))
    real = jax.device_put(jnp.zeros((4, 6, 8)), NamedSharding(mesh, P("a", None, ("b", "c"))))
    layout = jaxviz.sharding(jax.ShapeDtypeStruct((4, 6, 8), jnp.float32),
                             mesh="a=2,b=2,c=2", spec=P("a", None, ("b", "c")))
    assert {t.index: sorted(t.devices) for t in layout.tiles} == _expected(real)


def test_not_an_array_is_refused():
    with pytest.raises(TypeError, match="jax.Array"):
        jaxviz.sharding(np.ones(3))
    with pytest.raises(TypeError, match="both mesh= and spec="):
        jaxviz.sharding(jnp.ones(3), mesh="a=8")
