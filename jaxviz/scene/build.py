"""Building the scene of one variant of a trace result (no Qt).

:func:`build_scene` turns one variant of a :class:`~jaxviz.model.TraceResult`
into a :class:`~jaxviz.scene.scene.Scene`: the devices in mesh order with
their grid cell, process and colour, every input and output as a tile grid
(from the layout JAX chose), the per-device program, and the animation
phases with their captions (:mod:`jaxviz.scene.phases`).

Example:
    >>> scene = build_scene(result, "pmap")                       # doctest: +SKIP
    >>> [p.kind for p in scene.phases]                            # doctest: +SKIP
    ['host', 'split', 'transfer', 'compute', 'assemble']
"""

from __future__ import annotations

import re

from jaxviz.model import TraceResult, VariantResult
from jaxviz.model.palette import device_colours, device_grid
from jaxviz.scene.phases import build_phases
from jaxviz.scene.program import build_program, unravel
from jaxviz.scene.scene import Batch, DeviceSlot, Scene, empty_scene
from jaxviz.scene.tiles import TileGrid, tile_grid

#: Most loop iterations drawn one by one in the vmap contrast.
MAX_TRIPS = 16


def build_scene(result: TraceResult, variant: str) -> Scene:
    """The scene of ``variant`` in ``result``.

    A variant that failed, or has no layout, gives a scene with ``error`` set
    and no phases; the view shows the message.
    """
    try:
        vr = result.variant(variant)
    except KeyError:
        names = ", ".join(v.variant for v in result.variants) or "none"
        return _empty(result, variant, f"no {variant} variant in this result (have: {names})")
    if result.error is not None:
        return _empty(result, variant, result.error.message)
    if vr.error is not None:
        return _empty(result, variant, vr.error.message, vr)
    if not vr.arrays:
        return _empty(result, variant, "this result has no device layout: trace it with "
                                       "want=['layout']", vr)
    info = {d.id: d for d in result.devices}
    order = _device_order(vr)
    rows, cols, row_label, col_label, row_ticks, col_ticks = _grid(vr, len(order))
    colours = device_colours(rows, cols, len(order))
    devices = []
    for k, dev_id in enumerate(order):
        d = info.get(dev_id)
        r, c = divmod(k, cols)
        devices.append(DeviceSlot(
            id=dev_id, kind=d.kind if d else "?", platform=d.platform if d else "?",
            process=d.process_index if d else 0, row=r, col=c, colour=colours[k],
            coords=unravel(k, vr.mesh.axis_sizes) if vr.mesh else [k]))
    batch = _batch(vr) if variant == "vmap" else None
    inputs, outputs = _grids(vr, order, batch)
    scene = Scene(
        variant=variant, call=vr.call, function=result.function, simulated=result.simulated,
        devices=devices, rows=rows, cols=cols, row_label=row_label, col_label=col_label,
        row_ticks=row_ticks, col_ticks=col_ticks, inputs=inputs, outputs=outputs,
        program=build_program(vr), jaxpr_text=vr.jaxpr_text,
        mesh_axes=list(zip(vr.mesh.axis_names, vr.mesh.axis_sizes)) if vr.mesh else [],
        idle_devices=max(len(result.devices) - len(order), 0), batch=batch)
    scene.phases = build_phases(scene)
    return scene


def _empty(result: TraceResult, variant: str, message: str,
           vr: VariantResult | None = None) -> Scene:
    return empty_scene(message, variant, vr.call if vr else "", result.function,
                       result.simulated)


def _device_order(vr: VariantResult) -> list[int]:
    if vr.mesh is not None and vr.mesh.device_ids:
        return list(vr.mesh.device_ids)
    used = sorted({s.device for a in vr.arrays for s in a.shards})
    return used or [0]


def _grid(vr: VariantResult, n: int) -> tuple[int, int, str, str, list[str], list[str]]:
    """Rows, columns, axis labels and tick labels of the device grid."""
    mesh = vr.mesh
    if mesh is None or len(mesh.axis_sizes) == 0:
        return n, 1, "", "", [], []
    names, sizes = mesh.axis_names, mesh.axis_sizes
    rows, cols = device_grid(sizes, n)
    if len(sizes) == 1:
        if cols == 1:
            return n, 1, names[0], "", [str(k) for k in range(n)], []
        return (rows, cols, f"{names[0]} (wrapped)", f"{names[0]} +",
                [str(r * cols) for r in range(rows)], [f"+{c}" for c in range(cols)])
    col_label = " x ".join(names[1:])
    if len(sizes) == 2:
        col_ticks = [str(c) for c in range(cols)]
    else:
        col_ticks = [",".join(map(str, unravel(c, sizes[1:]))) for c in range(cols)]
    return rows, cols, names[0], col_label, [str(r) for r in range(rows)], col_ticks


def _batch(vr: VariantResult) -> Batch | None:
    """The vmap batch: in_axes from the call text (all 0 when not written)."""
    inputs = [a for a in vr.arrays if a.role == "input"]
    groups: list[str] = []
    for a in inputs:
        base = re.split(r"[\[.]", a.name, maxsplit=1)[0]
        if base not in groups:
            groups.append(base)
    m = re.search(r"in_axes=\(([^)]*)\)", vr.call)
    axes: list[int | None]
    if m:
        parts = [p.strip() for p in m.group(1).split(",") if p.strip()]
        axes = [None if p == "None" else int(p) for p in parts]
    else:
        axes = [0] * len(groups)
    if len(axes) != len(groups):
        axes = [0] * len(groups)
    per_leaf = []
    for a in inputs:
        base = re.split(r"[\[.]", a.name, maxsplit=1)[0]
        axis = axes[groups.index(base)]
        per_leaf.append(axis if axis is not None and axis < len(a.shape) else None)
    sizes = [a.shape[ax] for a, ax in zip(inputs, per_leaf) if ax is not None]
    if not sizes:
        return None
    size = sizes[0]
    return Batch(size=size, in_axes=per_leaf, trips=min(size, MAX_TRIPS))


def _grids(vr: VariantResult, order: list[int],
           batch: Batch | None) -> tuple[list[TileGrid], list[TileGrid]]:
    inputs: list[TileGrid] = []
    outputs: list[TileGrid] = []
    leaf = 0
    for a in vr.arrays:
        split = None
        if batch is not None:
            if a.role == "input":
                axis = batch.in_axes[leaf] if leaf < len(batch.in_axes) else None
                leaf += 1
            else:
                axis = 0 if a.shape and a.shape[0] == batch.size else None
            if axis is not None:
                split = (axis, batch.trips)
        grid = tile_grid(a, order, split)
        (inputs if a.role == "input" else outputs).append(grid)
    return inputs, outputs
