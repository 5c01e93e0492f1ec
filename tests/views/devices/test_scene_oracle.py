"""What is drawn equals the storyboard, for every gallery example and variant (no Qt).

The storyboard is checked against JAX in tests/core (tiles against
``devices_indices_map``, collectives against a separate reader of the compiled
HLO, outputs against the real run). Here the drawing is read back from the
frames' display lists -- tiles by their tags, colours and places, collectives
by their phases and the links drawn between devices -- and compared with the
storyboard, not with the scene's own records.
"""

from __future__ import annotations

import re

import pytest

from jaxviz.model import list_examples
from jaxviz.views.devices import build_scene
from jaxviz.views.devices.items import Box
from tests.helpers.device_cases import matmul, traced
from tests.helpers.drawn import (
    LIGHT,
    all_groups,
    centre,
    links,
    phase_of,
    render,
    rings_of,
    tile_under,
    tiles_of,
)

CASES = [(ex.name, v) for ex in list_examples() for v in ex.variants]


def _case(name: str, variant: str):
    if name == "matmul":
        return matmul(variant)
    return traced(name, variant)


def assert_tiles_drawn(scene, story) -> None:
    """Every storyboard tile is one drawn tile with exactly its holders' look."""
    colour = scene.colour_of
    expanded = all_groups(scene)
    placed = scene.phases[0].kind == "placed"  # the inputs start on the devices (issue 26)
    if scene.parallel and not placed:
        split_lay, split_items = render(scene, phase_of(scene, "split"), expanded=expanded)
    out_lay, out_items = render(scene, len(scene.phases) - 1, expanded=expanded)
    for array in story.arrays:
        if array.role == "input" and placed:  # never drawn on the host
            assert not tiles_of(render(scene, 0)[1], "input", array.name)
            continue
        if array.role == "input" and not scene.parallel:
            continue  # a single device gets the arrays whole: no tiles to compare
        lay, items = (split_lay, split_items) if array.role == "input" else (out_lay, out_items)
        boxes = tiles_of(items, array.role, array.name)
        if scene.batch is not None:  # vmap: the pieces are examples, each on the one device
            assert boxes and all(b.fill == colour[array.tiles[0].devices[0]] for b in boxes)
            continue
        assert len(boxes) == len(array.tiles), array.name
        rect = lay.array(array.name, array.role).rect
        found = []
        for box in boxes:
            if len(array.shape) in (1, 2):
                tile = tile_under(array, rect, centre(box.rect))
            else:  # higher ranks are drawn along their split axes: match by holders
                tile = next(t for t in array.tiles if t.index not in found
                            and _looks(box, items, t.devices, colour))
            found.append(tile.index)
            assert _looks(box, items, tile.devices, colour), (array.name, tile)
        assert sorted(found) == sorted(t.index for t in array.tiles), array.name


def _looks(box: Box, items, holders: list[int], colour: dict[int, str]) -> bool:
    rings = rings_of(items, box)
    if len(holders) == 1:
        return box.fill == colour[holders[0]] and not rings
    return (box.fill == LIGHT.shared and len(rings) == 1
            and rings[0].colours == [colour[d] for d in holders[:len(rings[0].colours)]]
            and len(rings[0].colours) == min(len(holders), 16))


def assert_collectives_drawn(scene, story) -> None:
    """Every collective is one phase, in program order, linking exactly its groups."""
    phases = [p for p in scene.phases if p.kind == "collective"]
    assert [p.step_index for p in phases] == [story.steps.index(s) for s in story.collectives]
    on_screen = {d.id for d in scene.devices}
    for phase in phases:
        c = phase.step.collective
        _, items = render(scene, scene.phases.index(phase))
        drawn = links(items)
        if c.kind == "collective-permute":
            assert drawn == {(a, b) for a, b in c.pairs if a != b}
            continue
        group_of = {d: k for k, g in enumerate(c.groups) for d in g}
        assert all(group_of[a] == group_of[b] for a, b in drawn), "a link across groups"
        for g in c.groups:
            members = [d for d in g if d in on_screen]
            if len(members) > 1:
                touched = {d for pair in drawn for d in pair}
                assert set(members) <= touched, f"group {g} not drawn"
        assert phase.to_story().groups == c.groups


@pytest.mark.parametrize("name, variant", CASES + [("matmul", "sharded")],
                         ids=[f"{n}-{v}" for n, v in CASES + [("matmul", "sharded")]])
def test_drawn_equals_the_storyboard(name, variant):
    result = _case(name, variant)
    story = result.variant(variant).storyboard
    scene = build_scene(result, variant)
    assert not scene.error and scene.phases
    assert [d.id for d in scene.devices] == (story.mesh.device_ids if story.mesh
                                             else story.devices)
    assert_tiles_drawn(scene, story)
    assert_collectives_drawn(scene, story)
    if scene.batch is None:  # every step of the compiled program is one phase, in order
        assert [p.step_index for p in scene.phases if p.step is not None] == list(
            range(len(story.steps)))
        for p in scene.phases:
            if p.kind == "compute":
                s = p.step
                # the jaxpr's dtype names (i32), not HLO's (s32): issue 26
                jaxpr_types = [re.sub(r"^s(\d+)\[", r"i\1[", re.sub(r"^pred\[", "bool[", t))
                               for t in s.input_shapes[:3]]
                assert p.compute_label.startswith(", ".join(jaxpr_types))
