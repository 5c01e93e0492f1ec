"""The scene draws what the storyboard says (no Qt): shared tiles, collectives in their groups
and order, the loop contrast only where a loop computes the same, pytree arguments
(first found wrong in issue 11).

The storyboard itself is checked against JAX in tests/core; here the question
is whether the device view draws what it says: shared tiles once, ringed by
their holders; collectives in program order with their real groups; contrasts
only when they can happen; honest layouts.
"""

from __future__ import annotations

import pytest

from jaxviz.views.devices import build_scene
from jaxviz.views.devices.items import Box, Ring, Text
from tests.helpers.device_cases import matmul, traced
from tests.helpers.drawn import (
    LIGHT,
    all_groups,
    centre,
    links,
    phase_of,
    render,
    rings_of,
    texts_in,
    tile_under,
    tiles_of,
)

# --------------------------------------------------------------------------- #
# Finding 1: a tile held by several devices is one tile, whole, never a split
# --------------------------------------------------------------------------- #


def test_shared_tiles_are_drawn_once_whole_ringed_and_named_by_their_holders():
    result = traced("tensor_parallel", "sharded")
    story = result.variant("sharded").storyboard
    scene = build_scene(result, "sharded")
    colour = scene.colour_of
    lay, items = render(scene, phase_of(scene, "split"))
    for array in story.inputs:
        place = lay.array(array.name, "input")
        boxes = tiles_of(items, "input", array.name)
        assert len(boxes) == len(array.tiles)  # one drawn tile per storyboard tile
        seen = []
        for box in boxes:
            tile = tile_under(array, place.rect, centre(box.rect))
            seen.append(tile.index)
            assert len(tile.devices) > 1  # x P('data', None) and w P(None, 'model'): shared
            assert box.fill == LIGHT.shared and box.fill != LIGHT.neutral
            [ring] = rings_of(items, box)
            assert ring.colours == [colour[d] for d in tile.devices]
            labels = texts_in(items, box.rect)
            assert labels in ([",".join(map(str, tile.devices))], [str(d) for d in tile.devices])
        assert sorted(seen) == sorted(t.index for t in array.tiles)
    x_place = lay.array("x", "input")
    # x's row blocks span the whole width: nothing suggests a split along the columns.
    assert all(b.rect[2] > 0.9 * x_place.rect[2] for b in tiles_of(items, "input", "x"))
    out_lay, out_items = render(scene, len(scene.phases) - 1)
    out = story.outputs[0]
    boxes = tiles_of(out_items, "output", "out")
    assert len(boxes) == len(out.tiles) == 8
    for box in boxes:  # a real split: one colour per tile, no ring
        [holder] = tile_under(out, out_lay.array("out", "output").rect, centre(box.rect)).devices
        assert box.fill == colour[holder] and not rings_of(out_items, box)


def test_replicated_arrays_say_so_and_are_never_host_grey():
    result = traced("mlp_predict", "pmap")
    scene = build_scene(result, "pmap")
    params = [a for a in result.variant("pmap").storyboard.inputs if a.name.startswith("params")]
    assert len(params) == 4 and all(a.replicated for a in params)
    # Folded by default: one entry for the four leaves, which says what they are.
    lay, items = render(scene, phase_of(scene, "split"))
    [folded] = [p for p in lay.inputs if p.grid.members]
    assert folded.grid.name == "params" and folded.group == "params"
    assert "4 arrays" in [t.text for t in items if isinstance(t, Text)]
    assert " ".join(texts_in(items, folded.rect)) == "replicated on all 8"
    # Unfolded: every leaf one whole tile in the shared look, labelled.
    lay, items = render(scene, phase_of(scene, "split"), expanded={"params"})
    for array in params:
        [box] = tiles_of(items, "input", array.name)
        assert box.fill == LIGHT.shared != LIGHT.neutral
        [ring] = rings_of(items, box)
        assert set(ring.colours) == set(scene.colour_of.values())
        place = lay.array(array.name, "input")
        x, y, w, _ = place.label
        entry = (x, y, w, place.rect[1] + place.rect[3] - y)  # name, note and tile
        said = " ".join(texts_in(items, box.rect)) + " | " + " ".join(texts_in(items, entry))
        assert "replicated on all 8" in said
    split = [p for p in scene.phases if p.kind == "split"][0]
    assert "replicated on all 8" in split.caption


def test_the_legend_uses_the_captions_words():
    scene = build_scene(traced("tensor_parallel", "sharded"), "sharded")
    _, items = render(scene, phase_of(scene, "split"))
    texts = [t.text for t in items if isinstance(t, Text)]
    assert "ringed: held whole by each device of its ring" in texts
    assert "held whole by 2 devices" in scene.phases[phase_of(scene, "split")].caption


# --------------------------------------------------------------------------- #
# Finding 2: collectives in program order, with their real groups and shapes
# --------------------------------------------------------------------------- #


def test_the_all_gather_is_drawn_before_the_dot_within_its_groups():
    result = matmul()
    story = result.variant("sharded").storyboard
    scene = build_scene(result, "sharded")
    kinds = [p.kind for p in scene.phases]
    assert kinds == ["host", "split", "transfer", "collective", "compute", "assemble"]
    gather, dot = scene.phases[3], scene.phases[4]
    assert gather.step is story.steps[0] and dot.step is story.steps[1]
    groups = [set(g) for g in story.steps[0].collective.groups]
    assert groups == [{0, 1}, {2, 3}, {4, 5}, {6, 7}]
    _, items = render(scene, 3)
    drawn = links(items)
    assert drawn == {(a, b) for g in groups for a in g for b in g if a != b}
    assert dot.compute_label == "f32[4,64], f32[64,16] → f32[4,16]"
    assert gather.caption.startswith("Inserted by XLA's SPMD partitioner: contracted "
                                     "dimension 1 of x is split over 'model'")
    assert "f32[4,32]" in gather.caption and "f32[4,64]" in gather.caption
    assert "{0,1} {2,3} {4,5} {6,7}" in gather.caption
    assert "line 5" in gather.caption  # the dot's line in MATMUL
    assert "partial" not in gather.caption
    assert gather.to_story().groups == story.steps[0].collective.groups


def test_with_a_batch_the_permute_moves_along_its_pairs():
    result = matmul(in_axes="0, 1", batch=8)
    story = result.variant("sharded").storyboard
    scene = build_scene(result, "sharded")
    collectives = [p for p in scene.phases if p.kind == "collective"]
    assert [p.step.collective.kind for p in collectives] == [
        s.collective.kind for s in story.collectives] == ["collective-permute", "all-gather"]
    permute = collectives[0]
    pairs = story.collectives[0].collective.pairs
    moved = {(a, b) for a, b in pairs if a != b}
    assert moved
    _, items = render(scene, scene.phases.index(permute))
    assert links(items) == moved
    for a, b in moved:
        assert f"{a}→{b}" in permute.caption
    kept = [a for a, b in pairs if a == b]
    if kept:
        assert "keep" in permute.caption


# --------------------------------------------------------------------------- #
# Finding 3: contrasts only when they are true
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize("name", ["normalize", "psum_ones"])
def test_no_python_loop_when_the_function_needs_the_batch_axis(name):
    result = traced(name, "vmap")
    scene = build_scene(result, "vmap")
    kinds = [p.kind for p in scene.phases]
    assert "loop" not in kinds and "no_loop" in kinds
    no_loop = scene.phases[kinds.index("no_loop")]
    assert "cannot" in no_loop.caption and "unbound axis name" in no_loop.caption
    assert "psum" in no_loop.caption
    for phase in scene.phases:
        assert "times, one example after another" not in phase.caption


def test_the_loop_contrast_stays_where_a_loop_computes_the_same():
    scene = build_scene(traced("convolve", "vmap"), "vmap")
    assert [p.kind for p in scene.phases] == ["host", "loop", "vectorized", "result"]
    loop, vec = scene.phases[1], scene.phases[2]
    assert "8 times" in loop.caption and loop.compute_label == "i32[5], f32[3] → f32[3]"
    assert vec.compute_label == "i32[8,5], f32[8,3] → f32[8,3]"


@pytest.mark.parametrize("name", ["convolve", "normalize"])
def test_bare_vmap_runs_op_by_op_not_as_one_program(name):
    scene = build_scene(traced(name, "vmap"), "vmap")
    assert not scene.one_program
    vec = scene.phases[phase_of(scene, "vectorized")]
    assert "op by op over the whole batch" in vec.title + vec.caption
    assert all("ONE" not in p.caption and "one compiled" not in p.caption
               for p in scene.phases)


def test_one_compiled_program_only_for_jit():
    plain = build_scene(traced("convolve", "plain"), "plain")
    jit = build_scene(traced("convolve", "jit"), "jit")
    [p_compute] = [p for p in plain.phases if p.kind == "compute"]
    [j_compute] = [p for p in jit.phases if p.kind == "compute"]
    assert "op by op" in p_compute.caption and "compiled" not in p_compute.caption
    assert "one compiled XLA program" in j_compute.caption


# --------------------------------------------------------------------------- #
# Finding 4: layouts (the 1-D strip and processes need other engines: test_scene_layouts)
# --------------------------------------------------------------------------- #


def test_a_pytree_argument_folds_into_one_readable_entry():
    scene = build_scene(traced("data_parallel", "pmap"), "pmap")
    folded, _ = render(scene, 0, size=(900, 430))  # the docked tab at 1280x720
    names = [p.grid.name for p in folded.inputs]
    assert names == ["params", "x", "y"]
    unfolded, _ = render(scene, 0, size=(900, 430), expanded=all_groups(scene))
    assert [p.grid.name for p in unfolded.inputs] == ["params[0]", "params[1]", "x", "y"]
    u = folded.unit
    for place in folded.devices.values():  # no slivers: every device row shows its tiles
        assert place.rect[3] >= 1.2 * u
        assert place.detail >= 1


def test_every_phase_has_words_and_every_step_a_phase():
    # check_vma=True (the example itself runs shard_map as pmap does): psum_invariant
    result = traced("data_parallel", "shard_map", check_vma=True)
    story = result.variant("shard_map").storyboard
    scene = build_scene(result, "shard_map")
    assert [p.step_index for p in scene.phases if p.step is not None] == list(
        range(len(story.steps)))
    assert all(p.title and p.caption for p in scene.phases)
    for p in scene.phases:
        if p.kind == "collective":  # named as written (issue 26), not psum_invariant
            assert "psum_invariant" not in p.title and "line" in p.title
    boxes = [it for it in render(scene, 0)[1] if isinstance(it, Box) and it.tag]
    assert boxes and all(isinstance(b.tag, str) for b in boxes)
    assert not any(isinstance(it, Ring) and not it.colours for it in render(scene, 1)[1])


LOOP = """\
import jax.numpy as jnp
from jax import lax

def f(x):
    def step(i, c):
        return lax.ppermute(c, 'i', [(k, (k + 1) % 8) for k in range(8)]) + 1
    return lax.fori_loop(0, 5, step, x)
"""


def test_a_collective_in_a_loop_says_how_often_and_moves_along_its_pairs():
    from tests.helpers.device_cases import traced_source

    result = traced_source(LOOP, "f", "pmap", args="f32[4]", axis_name="i")
    story = result.variant("pmap").storyboard
    scene = build_scene(result, "pmap")
    [permute] = [p for p in scene.phases if p.kind == "collective"]
    trips = [w.trip_count for w in permute.step.within if w.kind == "while"]
    assert trips == [5]  # the storyboard's, read from the compiled while loop
    assert permute.title.endswith("× 5 iterations") and "5 times" in permute.caption
    assert permute.to_story().iterations == [5]
    _, items = render(scene, scene.phases.index(permute))
    assert links(items) == {tuple(p) for p in story.collectives[0].collective.pairs}
    assert "line 6" in permute.title
