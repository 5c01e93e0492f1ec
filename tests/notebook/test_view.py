"""jaxviz.view from a notebook: the variant traced in the engine (8 devices) while this
process's JAX is left as it is, checked against JAX itself (make_jaxpr, the real pmap's
devices_indices_map) and the inline pictures read back."""

from __future__ import annotations

import base64
import io
import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from PIL import Image

import jaxviz
from jaxviz.views import palette
from tests.helpers.notebook_cells import CONVOLVE, cell_function

# Not in the fast tier: starts engines.
pytestmark = pytest.mark.slow

convolve = cell_function(CONVOLVE, "convolve")
X, W = jnp.arange(5.), jnp.array([2., 3., 4.])
XS = jnp.stack([X + i for i in range(8)])
WS = jnp.stack([W] * 8)


@pytest.fixture(scope="module")
def pmapped():
    return jaxviz.view(convolve, XS, WS, variant="pmap")


def test_plain_and_vmap_jaxprs_are_jaxs_own():
    assert jaxviz.view(convolve, X, W).jaxpr == str(jax.make_jaxpr(convolve)(X, W))
    vmapped = jaxviz.view(convolve, XS, WS, variant="vmap")
    assert vmapped.jaxpr == str(jax.make_jaxpr(jax.vmap(convolve))(XS, WS))


def test_pmap_runs_on_eight_engine_devices_and_its_tiles_are_jaxs(pmapped):
    story = pmapped.variant.storyboard
    assert len(pmapped.result.devices) == 8 and len(story.devices) == 8
    out = jax.pmap(convolve)(XS, WS)  # the oracle, on this process's own 8 devices
    expected = {d.id: [[s.start or 0, s.stop if s.stop is not None else n]
                       for s, n in zip(index, out.shape)]
                for d, index in out.sharding.devices_indices_map(out.shape).items()}
    [output] = [a for a in story.arrays if a.role == "output"]
    got = {dev: tile.index for tile in output.tiles for dev in tile.devices}
    assert got == expected
    kinds = [p.kind for p in pmapped.phases]
    assert kinds[:3] == ["host", "split", "transfer"] and "compute" in kinds


def test_the_inline_html_carries_the_animation_and_every_phase(pmapped):
    html = pmapped._repr_html_()
    gif = re.search(r"data:image/gif;base64,([^']+)", html).group(1)
    animation = Image.open(io.BytesIO(base64.b64decode(gif)))
    assert animation.size == (960, 540) and animation.n_frames >= len(pmapped.phases)
    stills = re.findall(r"alt='phase (\d+)'", html)
    assert stills == [str(i + 1) for i in range(len(pmapped.phases))]
    for phase in pmapped.phases:
        assert phase.title in html.replace("&#x27;", "'")
    sheet = Image.open(io.BytesIO(pmapped._repr_png_()))
    assert sheet.width > 1000


def test_jaxpr_lines_wear_the_colour_of_their_source_line(pmapped):
    html = pmapped._repr_html_()
    source_rows = re.findall(r"<span style='display:block;background:(#\w+)'><span "
                             rf"style='color:{palette.GUTTER_TEXT}'>\s*(\d+)  </span>", html)
    colours = {int(line): colour for colour, line in source_rows}
    dot_rows = re.findall(r"<span style='display:block;background:(#\w+)' title='line (\d+): "
                          r"dot_general'>", html)
    assert dot_rows, "no dot_general line is linked to its source line"
    # every dot_general came from line 8 of the cell (jnp.dot), and wears that line's colour
    assert {int(line) for _, line in dot_rows} == {8}
    assert {colour for colour, _ in dot_rows} == {colours[8]}
    assert colours[8] in palette.LINK_COLOURS


def test_diff_says_what_vmap_changed(pmapped):
    text = pmapped.diff("plain", "vmap").text()
    assert "input 0: f32[5] -> f32[8,5]: gained the batch axis 0 (8)" in text


def test_save_writes_every_cli_format(pmapped, tmp_path):
    count = len(pmapped.phases)
    pngs = pmapped.save(tmp_path / "frame.png")
    assert len(pngs) == count and Image.open(pngs[0]).size == (960, 540)
    gif = pmapped.save(tmp_path / "anim.gif")[0]
    assert Image.open(gif).n_frames >= count
    assert (tmp_path / "anim.gif").stat().st_size > 0
    pdf = pmapped.save(tmp_path / "anim.pdf")[0]
    assert pdf.read_bytes().count(b"/Type /Page\n") + pdf.read_bytes().count(b"/Type/Page") \
        >= 1
    one = pmapped.save(tmp_path / "one.svg", phase=2)[0]
    assert one.read_text().startswith("<?xml") or "<svg" in one.read_text()[:500]
    assert pmapped.save(tmp_path / "j.txt")[0].read_text().strip() == pmapped.jaxpr
    import json

    story = json.loads(pmapped.save(tmp_path / "story.json")[0].read_text())
    assert len(story["record"]["phases"]) == count
    with pytest.raises(ValueError, match="jaxviz writes"):
        pmapped.save(tmp_path / "x.doc")


def test_a_failing_function_says_where():
    bad = cell_function("import jax.numpy as jnp\n\n\ndef bad(x):\n"
                        "    return jnp.dot(x, jnp.ones(7))\n", "bad")
    with pytest.raises(jaxviz.JaxvizError, match=r"line 5|dot"):
        jaxviz.view(bad, jnp.ones(3))
    assert np.all(np.isfinite(np.asarray(X)))  # this process's JAX still works


def test_arrays_bring_their_mesh_and_specs_to_the_sharded_variant():
    from jax.sharding import AxisType, NamedSharding
    from jax.sharding import PartitionSpec as P

    mesh = jax.make_mesh((4, 2), ("data", "model"), axis_types=(AxisType.Auto,) * 2)
    x = jax.device_put(jnp.ones((8, 16)), NamedSharding(mesh, P("data", None)))
    w = jax.device_put(jnp.ones((16, 4)), NamedSharding(mesh, P(None, "model")))
    predict = cell_function("import jax.numpy as jnp\n\n\ndef predict(x, w):\n"
                            "    return jnp.tanh(x @ w)\n", "predict")
    view = jaxviz.view(predict, x, w)
    assert view.variant.variant == "sharded"
    story = view.variant.storyboard
    assert story.mesh.axis_names == ["data", "model"] and story.mesh.axis_sizes == [4, 2]
    inputs = [a for a in story.arrays if a.role == "input"]
    for array, real in zip(inputs, (x, w)):
        expected = {d.id: [list(s.indices(n)[:2]) for s, n in zip(index, real.shape)]
                    for d, index in real.sharding.devices_indices_map(real.shape).items()}
        assert {dev: t.index for t in array.tiles for dev in t.devices} == expected
