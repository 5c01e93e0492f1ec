"""A vmap with ``out_axes`` (JAX's vectorization guide, tests/corpus/vmap_out_axes.py): the
storyboard says what one example's call returns and where each batched output holds
example k -- checked against JAX: ``jax.eval_shape`` of one call, and the batched result
sliced where the caption says against the function run on example k."""

from __future__ import annotations

import re

import jax
import numpy as np
import pytest

from jaxviz import core
from jaxviz.views.devices import build_scene
from tests.helpers.corpus import CORPUS, case_request

# Not in the fast tier: JAX traces each case.
pytestmark = pytest.mark.slow


def _module():
    namespace: dict = {}
    path = CORPUS / "vmap_out_axes.py"
    exec(compile(path.read_text(), str(path), "exec"), namespace)  # noqa: S102 - our corpus
    return namespace


@pytest.mark.parametrize("name, out_axes", [("vmap", (1, None)), ("vmap_last", (-1, None))])
def test_the_captions_say_where_each_output_holds_example_k(name, out_axes):
    req, variant = case_request("vmap_out_axes.py", name, want=("jaxpr", "story", "value"))
    scene = build_scene(core.trace_request(req), variant)
    captions = {ph.kind: ph.caption for ph in scene.phases}
    ns = _module()
    stats, xs, scale = ns["stats"], ns["xs"], ns["scale"]
    one = jax.eval_shape(stats, xs[0], scale)  # what one call returns, by JAX
    one_text = ", ".join(f"f32{list(o.shape)}".replace(" ", "") for o in one)
    assert f"→ {one_text}." in captions["host"], captions["host"]
    batched = jax.vmap(stats, in_axes=(0, None), out_axes=out_axes)(xs, scale)
    result = captions["result"]
    axis = int(re.search(r"out\[0\]: slice k along axis (\d+)", result).group(1))
    for k in range(len(xs)):  # the slice the caption names is example k's result
        np.testing.assert_allclose(np.take(np.asarray(batched[0]), k, axis=axis),
                                   stats(xs[k], scale)[0])
    assert "out[1] is one value for every example" in result
    np.testing.assert_allclose(batched[1], stats(xs[0], scale)[1])  # shared: not batched
