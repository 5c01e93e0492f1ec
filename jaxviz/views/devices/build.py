"""Building the scene of one variant of a trace result from its storyboard (no Qt).

:func:`build_scene` turns the :class:`~jaxviz.model.storyboard.Storyboard` of
one variant of a :class:`~jaxviz.model.TraceResult` into a
:class:`~jaxviz.views.devices.scene.Scene`: the devices in mesh order with their grid
cell, process and colour, every input and output as a tile grid (the
storyboard's tiles with their exact holders), and the animation phases with
their captions (:mod:`jaxviz.views.devices.phases`). Nothing here reads HLO or guesses
a layout: what the storyboard does not say is not drawn.

Example:
    >>> scene = build_scene(result, "pmap")                       # doctest: +SKIP
    >>> [p.kind for p in scene.phases]                            # doctest: +SKIP
    ['host', 'split', 'transfer', 'compute', 'assemble']
"""

from __future__ import annotations

from jaxviz.model import TraceResult, VariantResult
from jaxviz.model.devices import MeshInfo
from jaxviz.model.records import walk_equations
from jaxviz.model.storyboard import Storyboard
from jaxviz.views.devices.phases import phases_steps
from jaxviz.views.devices.scene import Batch, DeviceSlot, Scene, empty_scene
from jaxviz.views.devices.tiles import TileGrid, tile_grid
from jaxviz.views.incremental import Steps, run_to_end
from jaxviz.views.palette import device_colours, device_grid

#: Most loop iterations drawn one by one in the vmap contrast.
MAX_TRIPS = 16


def nothing_to_lay_out(function: str, variant: str) -> str:
    """Why a function that returns no arrays (None, say) cannot be shown on devices."""
    return (f"{function} returns no arrays (None?), so the {variant} program has nothing "
            f"to lay out on devices: return the arrays you want to see")


def build_scene(result: TraceResult, variant: str) -> Scene:
    """The scene of ``variant`` in ``result``, drawn from its storyboard.

    A variant that failed, or has no storyboard, gives a scene with ``error``
    set and no phases; the view shows the message.
    """
    return run_to_end(scene_steps(result, variant))


def scene_steps(result: TraceResult, variant: str) -> Steps[Scene]:
    """:func:`build_scene` in steps (one per storyboard step; see
    :mod:`jaxviz.views.incremental`): the device view builds a big program's scene a few
    milliseconds per turn of the event loop."""
    try:
        vr = result.variant(variant)
    except KeyError:
        names = ", ".join(v.variant for v in result.variants) or "none"
        return _empty(result, variant, f"no {variant} variant in this result (have: {names})")
    if result.error is not None:
        return _empty(result, variant, result.error.message)
    if vr.error is not None:
        return _empty(result, variant, vr.error.message, vr)
    story = vr.storyboard
    if story is None or not story.arrays:
        if not vr.outvars:
            return _empty(result, variant, nothing_to_lay_out(result.function, variant), vr)
        return _empty(result, variant, "this result has no storyboard: trace it with "
                                       "want=['jaxpr', 'story']", vr)
    info = {d.id: d for d in result.devices}
    order = device_order(story)
    process_of = dict(zip(story.devices, story.processes))
    rows, cols, row_label, col_label, row_ticks, col_ticks = _grid(story.mesh, len(order))
    colours = device_colours(rows, cols, len(order))
    devices = []
    for k, dev_id in enumerate(order):
        d = info.get(dev_id)
        r, c = divmod(k, cols)
        devices.append(DeviceSlot(
            id=dev_id, kind=d.kind if d else "?", platform=d.platform if d else "?",
            process=process_of.get(dev_id, d.process_index if d else 0), row=r, col=c,
            colour=colours[k],
            coords=unravel(k, story.mesh.axis_sizes) if story.mesh else [k]))
    batch = None
    if variant == "vmap" and story.batch is not None:
        b = story.batch
        batch = Batch(size=b.size, trips=min(b.size, MAX_TRIPS), loop_blocker=b.loop_blocker)
    scene = Scene(
        variant=variant, call=vr.call, function=result.function, simulated=result.simulated,
        devices=devices, rows=rows, cols=cols, row_label=row_label, col_label=col_label,
        row_ticks=row_ticks, col_ticks=col_ticks, inputs=[], outputs=[], story=story,
        jaxpr_text=vr.jaxpr_text,
        mesh_axes=list(zip(story.mesh.axis_names, story.mesh.axis_sizes)) if story.mesh else [],
        idle_devices=max(len(result.devices) - len(order), 0), batch=batch,
        notes=list(vr.notes), code=vr.code)
    scene.global_program = scene.parallel and not any(
        eq.primitive in ("shard_map", "xla_pmap") for eq in walk_equations(vr.equations))
    scene.inputs, scene.outputs = yield from _grids(scene, story, order)
    yield
    scene.phases = yield from phases_steps(scene, vr)
    return scene


def _empty(result: TraceResult, variant: str, message: str,
           vr: VariantResult | None = None) -> Scene:
    return empty_scene(message, variant, vr.call if vr else "", result.function,
                       result.simulated)


def device_order(story: Storyboard) -> list[int]:
    """The program's devices in mesh order (program order without a mesh)."""
    if story.mesh is not None and story.mesh.device_ids:
        return list(story.mesh.device_ids)
    return list(story.devices) or [0]


def unravel(flat: int, sizes: list[int]) -> list[int]:
    """Row-major coordinates of flat index ``flat`` in a grid of ``sizes``."""
    coords = []
    for size in reversed(sizes):
        flat, c = divmod(flat, size)
        coords.append(c)
    return coords[::-1]


def _grid(mesh: MeshInfo | None, n: int) -> tuple[int, int, str, str, list[str], list[str]]:
    """Rows, columns, axis labels and tick labels of the device grid.

    A 1-D mesh (or devices without a mesh) is one strip, however many devices
    it has: never wrapped into a grid that would look like a second mesh axis.
    """
    if mesh is None or len(mesh.axis_sizes) == 0:
        return n, 1, "", "", [], []
    names, sizes = mesh.axis_names, mesh.axis_sizes
    rows, cols = device_grid(sizes, n)
    if len(sizes) == 1:
        return rows, cols, names[0], "", [str(k) for k in range(n)], []
    col_label = " x ".join(names[1:])
    if len(sizes) == 2:
        col_ticks = [str(c) for c in range(cols)]
    else:
        col_ticks = [",".join(map(str, unravel(c, sizes[1:]))) for c in range(cols)]
    return rows, cols, names[0], col_label, [str(r) for r in range(rows)], col_ticks


def _grids(scene: Scene, story: Storyboard,
           order: list[int]) -> Steps[tuple[list[TileGrid], list[TileGrid]]]:
    """Every input and output as tiles; a vmap batch is cut into its examples (in steps:
    one per array)."""
    inputs: list[TileGrid] = []
    outputs: list[TileGrid] = []
    b = story.batch if scene.batch is not None else None
    leaf = out_leaf = 0
    for a in story.arrays:
        axis: int | None = None
        if b is not None and a.role == "input":
            axis = b.in_axes[leaf] if leaf < len(b.in_axes) else None
            leaf += 1
        elif b is not None and b.out_axes:  # vmap's out_axes, read from JAX
            axis = b.out_axes[out_leaf] if out_leaf < len(b.out_axes) else None
            out_leaf += 1
        elif b is not None:
            axis = 0 if a.shape and a.shape[0] == b.size else None  # vmap's out_axes=0
        if axis is not None and axis >= len(a.shape):
            axis = None
        split = (axis, scene.batch.trips) if axis is not None and scene.batch else None
        grid = tile_grid(a, order, split)
        claim = story.claims.array(a.name) if story.claims is not None else None
        grid.equal = claim is not None and claim.holding == "equal_pieces"
        scene.batch_axes[grid.key] = axis
        (inputs if a.role == "input" else outputs).append(grid)
        yield
    return inputs, outputs
