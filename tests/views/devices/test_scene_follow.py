"""The stepper's hook into the device view, and the device grid the colours are laid out on."""

from __future__ import annotations

from jaxviz.views.devices import build_scene
from jaxviz.views.devices.follow import phase_of_equation
from jaxviz.views.palette import device_colour_map, device_grid
from jaxviz.views.panes.link_index import walk
from tests.helpers.device_cases import traced


def test_a_stepper_equation_maps_to_the_phase_that_runs_it():
    result = traced("normalize", "pmap")
    vr = result.variant("pmap")
    scene = build_scene(result, "pmap")
    orders = {eqn.primitive: k for k, (_path, eqn) in enumerate(walk(vr.equations))}
    psum = phase_of_equation(scene.phases, vr, orders["psum"])
    assert psum is not None and scene.phases[psum].kind == "collective"
    div = phase_of_equation(scene.phases, vr, orders["div"])
    assert div is not None and scene.phases[div].kind == "compute" and div > psum
    assert phase_of_equation(scene.phases, vr, len(orders) + 5) is None
    vmap = traced("convolve", "vmap")
    vscene = build_scene(vmap, "vmap")
    dot = next(k for k, (_p, e) in enumerate(walk(vmap.variant("vmap").equations))
               if e.primitive == "dot_general")
    found = phase_of_equation(vscene.phases, vmap.variant("vmap"), dot)
    assert found is not None and vscene.phases[found].kind == "vectorized"


def test_the_device_grid_is_the_one_the_colours_are_laid_out_on():
    # 1-D meshes are one strip, however many devices (never a fake second axis).
    assert device_grid([], 20) == (20, 1) and device_grid([8], 8) == (8, 1)
    assert device_grid([32], 32) == (32, 1) and device_grid([2, 4], 8) == (2, 4)
    result = traced("tensor_parallel", "sharded")
    scene = build_scene(result, "sharded")
    story = result.variant("sharded").storyboard
    assert story is not None and story.mesh is not None
    mesh = story.mesh
    assert (scene.rows, scene.cols) == device_grid(mesh.axis_sizes, len(scene.devices))
    assert device_colour_map(mesh.axis_sizes, mesh.device_ids) == \
        {d.id: d.colour for d in scene.devices}
