"""Finding 4 of issue 11: the device layouts are honest (no Qt).

A 1-D mesh is one strip however long (traced by a 32-device engine), 2-D and
3-D meshes are grids with their axis names; processes are framed apart
(tests/engine/test_multihost.py, from a real two-process run).
"""

from __future__ import annotations

import pytest

from jaxviz.views.devices import build_scene
from jaxviz.views.devices.items import Text
from tests.helpers.device_cases import MATMUL, engine_traced, traced, traced_source
from tests.helpers.drawn import render

SIZES = [(1280, 720), (1920, 1080)]


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES)
def test_finding4_a_1d_mesh_of_32_devices_is_one_strip(size):
    result = engine_traced("normalize", "pmap", 32)
    story = result.variant("pmap").storyboard
    assert story.mesh.axis_sizes == [32]
    scene = build_scene(result, "pmap")
    assert (scene.rows, scene.cols) == (32, 1)
    lay, items = render(scene, 0, size=size)
    rects = [lay.devices[d].rect for d in story.mesh.device_ids]
    assert len({round(r[0], 3) for r in rects}) == 1  # one column: no wrapped, fake 2-D grid
    for above, below in zip(rects, rects[1:]):
        assert above[1] + above[3] <= below[1]  # in mesh order, none overlapping
    width, height = size
    assert all(r[0] >= 0 and r[0] + r[2] <= width and r[1] >= 0 and r[1] + r[3] <= height
               for r in rects)
    texts = [t for t in items if isinstance(t, Text)]
    for d, r in zip(story.mesh.device_ids, rects):  # every device is named in its box
        assert any(t.text == str(d) and r[1] - 1 <= t.rect[1] + t.rect[3] / 2 <= r[1] + r[3] + 1
                   for t in texts), d
    assert "mesh axis 'p' ↓ (32 devices)" in [t.text for t in texts]


def test_a_2d_mesh_is_a_grid_with_its_axis_names():
    scene = build_scene(traced("tensor_parallel", "sharded"), "sharded")
    assert (scene.rows, scene.cols) == (4, 2)
    lay, items = render(scene, 0)
    texts = [t.text for t in items if isinstance(t, Text)]
    assert "data ↓" in texts and "model →" in texts
    for d in scene.devices:  # row = coordinate along 'data', column along 'model'
        assert [d.row, d.col] == d.coords


def test_a_3d_mesh_keeps_its_first_axis_down_and_the_others_across():
    result = traced_source(MATMUL, "f", "sharded", args="f32[16,64], f32[64,32]",
                           in_axes="None, None", mesh="a=2,b=2,c=2",
                           specs="P('a', 'b'), P(None, 'c')")
    scene = build_scene(result, "sharded")
    assert (scene.rows, scene.cols) == (2, 4)
    _, items = render(scene, 0)
    texts = [t.text for t in items if isinstance(t, Text)]
    assert "a ↓" in texts and "b x c →" in texts
    assert scene.col_ticks == ["0,0", "0,1", "1,0", "1,1"]
    for d in scene.devices:
        assert d.coords == [d.row, *divmod(d.col, 2)]


@pytest.mark.slow
def test_an_unnamed_pmap_axis_is_said_to_be_one_not_quoted():
    """``@jax.pmap`` without an axis_name: JAX names the axis itself (its compiled mesh says
    so); the user never wrote that name, so the mesh's label says what the axis is instead.
    (The arrays' specs keep JAX's name: ``out.sharding.spec`` prints it too.)"""
    import numpy as np

    source = ("import jax\nimport jax.numpy as jnp\n\n\n@jax.pmap\ndef total(x):\n"
              "    return jnp.sin(x) * 2\n")
    namespace: dict = {}
    exec(compile(source, "<test>", "exec"), namespace)  # noqa: S102 - the test's own
    jax_axis = namespace["total"].lower(np.zeros((8, 4), np.float32)).compile() \
        .input_shardings[0][0].mesh.axis_names[0]
    result = traced_source(source, "total", "plain", args="f32[8,4]")
    story = result.variant("plain").storyboard
    assert story.mesh.axis_names == [jax_axis]  # the storyboard keeps JAX's own name
    lay, items = render(build_scene(result, "plain"), 0)
    texts = [t.text for t in items if isinstance(t, Text)]
    assert not any(t.startswith(f"mesh axis {jax_axis!r}") for t in texts), texts
    assert any(t.startswith("pmap's axis (no axis_name given)") for t in texts), texts
