"""The device view's header on a real model: the call that a params pytree's shardings make
thousands of characters long is cut to lines one can read, never shrunk out of sight.

``jax.jit(train_step, in_shardings=...)`` of a 12-layer model names a sharding for every
leaf of its parameters: shrunk to fit the header, it was a grey band of 4-pixel text in
``jaxviz animate``'s frames. Its start (what is called, and how the first leaves are
split) is drawn at a size a projector shows; the rest is cut at "…".
"""

from __future__ import annotations

import dataclasses

import pytest

from jaxviz.views.devices import build_scene
from jaxviz.views.devices.items import Text
from jaxviz.views.devices.measure import text_width
from tests.helpers.device_cases import traced
from tests.helpers.drawn import render

# Not in the fast tier: traces a gallery example through JAX.
pytestmark = pytest.mark.slow


def _header_call(scene, size=(1280, 720)) -> tuple[Text, float]:
    """The header's call as drawn, and the canvas's text unit."""
    lay, items = render(scene, 0, size=size)
    x, y, w, h = lay.title
    texts = [i for i in items if isinstance(i, Text) and i.mono
             and y - 1 <= i.rect[1] and i.rect[1] + i.rect[3] <= y + h + 1]
    assert len(texts) == 1, texts
    return texts[0], lay.unit


def test_a_short_call_is_drawn_whole_and_a_huge_one_cut_at_a_readable_size():
    scene = build_scene(traced("tensor_parallel", "sharded"), "sharded")
    whole, _ = _header_call(scene)
    assert whole.text == scene.call
    leaves = ", ".join(f"'w{k}': NamedSharding(mesh, P('data', 'model'))" for k in range(150))
    huge = dataclasses.replace(scene, call=f"jax.jit(train_step, in_shardings=({{{leaves}}},))")
    cut, unit = _header_call(huge)
    assert cut.text.endswith("…") and huge.call.startswith(cut.text[:-1])
    assert len(cut.text) > 80  # at least its start: the function and a leaf or two
    # at no less than 3/5 of a call's size in the header (0.8 units), in lines that fit it
    assert cut.size >= 0.6 * 0.8 * unit - 1e-9
    _, _, w, h = cut.rect
    lines = -(-text_width(cut.text, cut.size, mono=True) // w)
    assert lines * cut.size <= h
