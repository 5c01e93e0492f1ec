"""The device view's Qt-free scene model: tiles, groups, programs, phases, colours."""

from __future__ import annotations

import sys

import pytest

from jaxviz.model import ArrayLayout, MeshInfo, ShardInfo
from jaxviz.model.palette import DEVICE_COLOURS, device_colours, luminance
from jaxviz.scene import build_scene
from jaxviz.scene.program import mesh_groups, parse_hlo_collectives
from jaxviz.scene.tiles import tile_grid

from .device_view_cases import traced


def test_the_scene_model_imports_without_qt_or_jax():
    import subprocess

    code = ("import sys, jaxviz.ui.device_view as dv, jaxviz.scene.frames;"
            "bad = [m for m in ('jax', 'PySide6') if m in sys.modules];"
            "print(bad); sys.exit(1 if bad else 0)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr


def test_partially_replicated_tiles_name_every_holder():
    layout = ArrayLayout(
        name="x", role="input", shape=[16, 64], dtype="f32", sharding="", spec="P('data', None)",
        replicated=False, shard_shape=[4, 64],
        shards=[ShardInfo(d, [[4 * (d // 2), 4 * (d // 2) + 4], [0, 64]]) for d in range(8)])
    grid = tile_grid(layout, list(range(8)))
    assert [b.holders for b in grid.blocks] == [[0, 1], [2, 3], [4, 5], [6, 7]]
    assert grid.partially_replicated and grid.partitioned == [0]
    assert [(b.y0, b.y1) for b in grid.blocks] == [(0, .25), (.25, .5), (.5, .75), (.75, 1)]
    assert "each on 2 devices" in grid.describe()


def test_mesh_groups_follow_the_named_axes():
    mesh = MeshInfo(["data", "model"], [4, 2], list(range(8)))
    assert mesh_groups(mesh, ["model"]) == [[0, 1], [2, 3], [4, 5], [6, 7]]
    assert mesh_groups(mesh, ["data"]) == [[0, 2, 4, 6], [1, 3, 5, 7]]
    assert mesh_groups(mesh, ["data", "model"]) == [list(range(8))]


def test_hlo_collectives_are_parsed_with_their_groups():
    hlo = ("  %all-reduce = f32[4,32]{1,0} all-reduce(%x), channel_id=1, "
           "replica_groups={{0,1},{2,3}}, use_global_device_ids=true, to_apply=%add, "
           'metadata={op_name="jit(layer)/dot_general"}\n'
           "  %ag = f32[8]{0} all-gather(%y), replica_groups=[2,4]<=[4,2]T(1,0), dimensions={0}\n")
    ops = parse_hlo_collectives(hlo, MeshInfo(["i"], [4], [10, 11, 12, 13]))
    assert [(o.kind, o.type, o.primitive) for o in ops] == [
        ("all-reduce", "f32[4,32]", "dot_general"), ("all-gather", "f32[8]", "")]
    assert ops[0].groups == [[10, 11], [12, 13]]  # positions in the mesh -> device ids
    # Iota groups: iota(8) as [4,2], transposed, cut into rows of 4.
    assert parse_hlo_collectives(hlo)[1].groups == [[0, 2, 4, 6], [1, 3, 5, 7]]


def test_convolve_pmap_phases_have_no_collective():
    scene = build_scene(traced("convolve", "pmap"), "pmap")
    kinds = [p.kind for p in scene.phases]
    assert kinds == ["host", "split", "transfer", "compute", "assemble"]
    compute = scene.phases[3]
    assert compute.compute_label == "i32[1,5], f32[1,3] → f32[1,3]"
    assert all(h[0] == "pmap" for p in scene.phases for h in p.highlights)


def test_normalize_pmap_has_a_psum_all_reduce_phase_on_the_psum_line():
    result = traced("normalize", "pmap")
    scene = build_scene(result, "pmap")
    phases = [p for p in scene.phases if p.kind == "collective"]
    assert len(phases) == 1
    phase = phases[0]
    assert phase.collective.kind == "all-reduce" and phase.collective.primitives == ["psum"]
    assert phase.collective.groups == [list(range(8))]
    assert phase.collective.hlo and phase.collective.hlo[0].kind == "all-reduce"
    lines = result.variant("pmap").jaxpr_text.splitlines()
    [(variant, start, end)] = phase.highlights
    assert variant == "pmap" and start == end and "psum" in lines[start]
    assert "all-reduce" in phase.title and "sum" in phase.caption


def test_partitioner_inserted_collective_comes_from_the_hlo():
    # Contracting a split axis makes XLA add an all-reduce the jaxpr does not show.
    result = traced("tensor_parallel", "sharded", specs="P('data','model'), P('model', None)")
    scene = build_scene(result, "sharded")
    [phase] = [p for p in scene.phases if p.kind == "collective"]
    assert phase.collective.inserted and phase.collective.kind == "all-reduce"
    assert phase.collective.groups == [[0, 1], [2, 3], [4, 5], [6, 7]]
    assert "compiled HLO" in phase.caption
    lines = result.variant("sharded").jaxpr_text.splitlines()
    assert all("dot_general" in lines[s] for _, s, _ in phase.highlights)


def test_vmap_contrasts_a_python_loop_with_one_program():
    scene = build_scene(traced("convolve", "vmap"), "vmap")
    assert [p.kind for p in scene.phases] == ["host", "loop", "vectorized", "result"]
    assert scene.batch.size == 8 and scene.batch.in_axes == [0, 0]
    loop, vec = scene.phases[1], scene.phases[2]
    assert "8 times" in loop.caption and loop.compute_label == "i32[5], f32[3] → f32[3]"
    assert vec.compute_label == "i32[8,5], f32[8,3] → f32[8,3]"
    assert len(scene.devices) == 1


def test_replicated_params_are_on_every_device():
    scene = build_scene(traced("mlp_predict", "pmap"), "pmap")
    params = [g for g in scene.inputs if g.name.startswith("params")]
    assert len(params) == 4
    for g in params:
        assert g.replicated and sorted(g.by_device) == list(range(8))
        assert [len(b.holders) for b in g.blocks] == [8]
    assert "not split" in scene.phases[1].caption


def test_colours_are_okabe_ito_up_to_eight_then_structured_and_distinct():
    assert device_colours(8, 1, 8) == list(DEVICE_COLOURS)
    big = device_colours(16, 16, 256)
    assert len(set(big)) == 256
    # Lightness runs along a row, hue down a column.
    row = [luminance(c) for c in big[:16]]
    assert row == sorted(row)


def test_failed_variant_gives_a_message_not_phases():
    result = traced("convolve", "pmap")
    scene = build_scene(result, "shard_map")
    assert scene.error and "no shard_map variant" in scene.error and scene.phases == []


@pytest.mark.parametrize("name, variant", [("data_parallel", "pmap"),
                                           ("batched_matmul", "sharded"),
                                           ("psum_ones", "shard_map")])
def test_other_examples_build_phases_that_end_in_assembly(name, variant):
    scene = build_scene(traced(name, variant), variant)
    assert scene.phases[0].kind == "host" and scene.phases[-1].kind == "assemble"
    assert all(p.caption and p.title for p in scene.phases)


def test_a_stepper_equation_maps_to_the_phase_that_runs_it():
    from jaxviz.model.link_index import walk
    from jaxviz.scene.follow import phase_of_equation

    result = traced("normalize", "pmap")
    vr = result.variant("pmap")
    scene = build_scene(result, "pmap")
    orders = {eqn.primitive: k for k, (_path, eqn) in enumerate(walk(vr.equations))}
    psum = phase_of_equation(scene.phases, vr, orders["psum"])
    assert scene.phases[psum].kind == "collective"
    div = phase_of_equation(scene.phases, vr, orders["div"])
    assert scene.phases[div].kind == "compute" and div > psum
    assert phase_of_equation(scene.phases, vr, len(orders) + 5) is None
    vmap = traced("convolve", "vmap")
    vscene = build_scene(vmap, "vmap")
    dot = next(k for k, (_p, e) in enumerate(walk(vmap.variant("vmap").equations))
               if e.primitive == "dot_general")
    assert vscene.phases[phase_of_equation(vscene.phases, vmap.variant("vmap"), dot)].kind == \
        "vectorized"


def test_the_device_grid_is_the_one_the_colours_are_laid_out_on():
    from jaxviz.model.palette import device_colour_map, device_grid

    assert device_grid([], 20) == (20, 1) and device_grid([8], 8) == (8, 1)
    assert device_grid([20], 20) == (4, 5) and device_grid([2, 4], 8) == (2, 4)
    scene = build_scene(traced("tensor_parallel", "sharded"), "sharded")
    mesh = traced("tensor_parallel", "sharded").variant("sharded").mesh
    assert (scene.rows, scene.cols) == device_grid(mesh.axis_sizes, len(scene.devices))
    assert device_colour_map(mesh.axis_sizes, mesh.device_ids) == \
        {d.id: d.colour for d in scene.devices}
