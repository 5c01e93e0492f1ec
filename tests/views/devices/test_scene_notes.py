"""The device view's scene says where a variant differs from the others (issue 12).

A variant's notes that explain a difference (``VariantNote.differs``) go on the
phases where the difference shows -- the collective and the result -- and end
their captions, so the lecture sees them while the values move; the storyboard
export (``jaxviz animate --out story.json``) carries the same captions.
"""

from __future__ import annotations

from jaxviz.views.devices import build_scene
from tests.helpers.device_cases import traced


def test_the_collective_and_the_result_say_the_variant_differs():
    result = traced("normalize", "pmap", batched_args="jnp.arange(16.)")
    [note] = [n for n in result.variant("pmap").notes if n.differs]
    scene = build_scene(result, "pmap")
    noted = [p for p in scene.phases if p.note]
    assert [p.kind for p in noted] == ["collective", "assemble"]
    for phase in noted:
        assert note.text in phase.note and phase.caption.endswith(phase.note)
        assert phase.to_story().caption == phase.caption
    assert not any(p.note for p in scene.phases if p.kind in ("host", "split", "compute"))
    # where the variants agree, no phase says otherwise
    same = build_scene(traced("normalize", "pmap"), "pmap")
    assert not any(p.note for p in same.phases)


def test_shard_map_with_check_vma_says_the_gradient_was_summed_at_its_collectives():
    result = traced("data_parallel", "shard_map", check_vma=True)
    [note] = [n for n in result.variant("shard_map").notes if n.differs]
    assert note.kind == "reduced_twice"
    scene = build_scene(result, "shard_map")
    collectives = [p for p in scene.phases if p.kind == "collective"]
    assert collectives and all(note.text in p.caption for p in collectives)
    plain = build_scene(traced("data_parallel", "shard_map"), "shard_map")
    assert not any(p.note for p in plain.phases)
