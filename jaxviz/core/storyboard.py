"""Build a variant's storyboard from the compiled program, the real shardings and the jaxpr.

* Tiles: ``sharding.devices_indices_map(shape)`` of every input and output,
  devices with identical index ranges grouped into one :class:`Tile`.
* Steps: the optimized, SPMD-partitioned HLO module in program order
  (:mod:`jaxviz.core.hlo_program`, :mod:`jaxviz.core.hlo_steps`): runs of local computation and the
  collectives between them, with the per-device shapes XLA gave them.
* Origins: each step is tied to the jaxpr equations it implements through the
  HLO metadata (the primitive in ``op_name`` and the source line of its stack
  frame), see :mod:`jaxviz.core.story_origins`. A collective no jaxpr
  equation asked for was inserted by the SPMD partitioner; why is computed
  from the shardings.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

import jax

from jaxviz.core import arguments, hlo_program, hlo_steps, jax_internals, layout, story_groups
from jaxviz.core.story_origins import JAXPR_COLLECTIVES, Origins
from jaxviz.model import ArrayTiles, MeshInfo, VariantResult
from jaxviz.model.records import walk_equations
from jaxviz.model.storyboard import CollectiveOp, Enclosing, Step, Storyboard, VmapBatch

#: Variants JAX runs as one compiled program (the others run op by op), until the
#: claims (:func:`jaxviz.core.claims.apply`) say how the call really runs.
ONE_PROGRAM = frozenset({"jit", "pmap", "sharded", "shard_map"})


def build(vr: VariantResult, compiled: Any, in_avals: list[Any], out_avals: list[Any],
          in_names: list[str], out_names: list[str], filename: str,
          hlo_text: str | None = None, function: str = "") -> Storyboard:
    """The storyboard of a compiled variant.

    Args:
        vr: the variant's result with its jaxpr equations already described.
        compiled: ``jax.jit(...).lower(...).compile()`` of the variant.
        in_avals, out_avals: the flat input and output avals.
        in_names, out_names: the flat input and output names.
        filename: the user's source file name (source lines are reported in it).
        hlo_text: ``compiled.as_text()``, if already at hand.
        function: the traced function's name (the groups' call stacks start
            at its frame; every frame of the user's file when ``""``).
    """
    devices = jax_internals.device_assignment(compiled)
    ids = [int(d.id) for d in devices]
    # an argument the program does not use has no sharding (None): jit never sends it
    in_shardings = jax.tree.leaves(compiled.input_shardings[0], is_leaf=lambda s: s is None)
    out_shardings = jax.tree.leaves(compiled.output_shardings)
    mesh = layout.mesh_info([s for s in in_shardings if s is not None] + out_shardings)
    arrays = [array_tiles(name, "input", aval, sharding, ids)
              for name, aval, sharding in zip(in_names, in_avals, in_shardings)
              if sharding is not None]
    arrays += [array_tiles(name, "output", aval, sharding, ids)
               for name, aval, sharding in zip(out_names, out_avals, out_shardings)]
    module = hlo_program.read_module(hlo_text or compiled.as_text() or "",
                                     jax_internals.hlo_schedule(compiled))
    raw = hlo_steps.program_steps(module, ids)
    origins = Origins(vr, module, filename, [a for a in arrays if a.role == "input"])
    steps = []
    for r in raw:
        within = [Enclosing(c.kind, c.hlo, c.part, c.trip_count) for c in r.within]
        if r.collective is None:
            steps.append(Step(kind="compute", input_shapes=r.input_types,
                              output_shapes=r.output_types, hlo=[i.name for i in r.instructions],
                              within=within))
            continue
        c = r.collective
        op = CollectiveOp(kind=c.kind, reduction=c.reduction, groups=c.groups, pairs=c.pairs,
                          dimensions=c.dimensions, channel_id=c.channel_id,
                          mesh_axes=mesh_axes_of(c.groups, mesh))
        steps.append(Step(kind="collective", input_shapes=c.operand_types,
                          output_shapes=c.result_types, hlo=[c.instruction.name],
                          within=within, collective=op))
    notes = origins.attach(raw, steps)
    story_groups.attach_sources(module, raw, steps, filename, function)
    groups = story_groups.group_steps(module, steps, filename, function)
    return Storyboard(variant=vr.variant, one_program=vr.variant in ONE_PROGRAM, mesh=mesh,
                      devices=ids, processes=[int(d.process_index) for d in devices],
                      arrays=arrays, steps=steps, notes=notes, hlo_module=module.name,
                      groups=groups)


def array_tiles(name: str, role: str, aval: Any, sharding: Any,
                program_devices: list[int]) -> ArrayTiles:
    """The distinct blocks of one array and the devices holding each, from JAX's sharding
    (its :func:`~jaxviz.core.layout.array_layout`, grouped by block)."""
    lay = layout.array_layout(name, role, aval.shape, layout.short_dtype(aval), sharding)
    spec = getattr(sharding, "spec", None)
    names = _spec_axes(spec, len(lay.shape)) if spec is not None else [[] for _ in lay.shape]
    return lay.as_tiles(names, program_devices)


def _spec_axes(spec: Any, ndim: int) -> list[list[str]]:
    """Per array axis, the mesh axis names a PartitionSpec puts on it."""
    out: list[list[str]] = []
    for k in range(ndim):
        entry = spec[k] if k < len(spec) else None
        if entry is None:
            out.append([])
        elif isinstance(entry, (tuple, list)):
            out.append([str(n) for n in entry])
        else:
            out.append([str(entry)])
    return out


def mesh_groups(mesh: MeshInfo, axes: tuple[str, ...]) -> list[list[int]]:
    """The device groups along ``axes`` of a mesh: devices sharing every other coordinate."""
    strides = []
    for k in range(len(mesh.axis_sizes)):
        stride = 1
        for size in mesh.axis_sizes[k + 1:]:
            stride *= size
        strides.append(stride)
    groups: dict[tuple[int, ...], list[int]] = {}
    for flat, device in enumerate(mesh.device_ids):
        coords = [(flat // strides[k]) % mesh.axis_sizes[k] for k in range(len(strides))]
        outer = tuple(c for k, c in enumerate(coords) if mesh.axis_names[k] not in axes)
        groups.setdefault(outer, []).append(device)
    return list(groups.values())


def mesh_axes_of(groups: list[list[int]], mesh: MeshInfo | None) -> list[str]:
    """The mesh axes whose device groups are exactly ``groups`` (as sets), or ``[]``."""
    if mesh is None or not groups:
        return []
    want = {frozenset(g) for g in groups}
    names = mesh.axis_names
    for n in range(1, len(names) + 1):
        for axes in combinations(names, n):
            if {frozenset(g) for g in mesh_groups(mesh, axes)} == want:
                return list(axes)
    return []


def vmap_batch(fn: Any, name: str, single: list[Any], batched: list[Any],
               in_axes: list[int | None], vr: VariantResult, filename: str,
               out_axes: Any = 0) -> VmapBatch:
    """The batch of a ``vmap`` variant and whether a Python loop of calls could replace it.

    Args:
        fn: the user's function (written for one example).
        name: its name, for the message.
        single: the arguments of one unbatched call (abstract or concrete).
        batched: the batched arguments the variant was called with.
        in_axes: the batch axis of each argument (``None``: shared).
        vr: the vmap variant (its jaxpr equations name the collectives).
        filename: the user's file (source lines are reported in it).
        out_axes: vmap's ``out_axes`` (an int, None, or a tree prefix of the outputs).
    """
    leaf_axes: list[int | None] = []
    for arg, axis in zip(batched, in_axes):
        leaf_axes += [axis] * len(jax.tree.leaves(arg))
    size = arguments.batch_size_of(batched, in_axes) or 1
    return VmapBatch(size=size, in_axes=leaf_axes,
                     loop_blocker=loop_blocker(fn, name, single, vr, filename),
                     out_axes=output_axes(fn, single, out_axes))


def output_axes(fn: Any, single: list[Any], out_axes: Any) -> list[int | None]:
    """Where ``jax.vmap(fn, out_axes=out_axes)`` puts the batch in each output leaf:
    ``out_axes`` broadcast over the outputs of one example (``jax.eval_shape``), a
    negative axis counted from the batched output's end; ``[]`` if JAX cannot say."""
    try:
        outs = jax.eval_shape(fn, *single)
        axes: list[int | None] = []

        def place(axis: int | None, out: Any) -> None:
            for leaf in jax.tree.leaves(out):
                rank = len(leaf.shape) + 1  # the batched output's
                axes.append(None if axis is None else axis % rank)

        jax.tree.map(place, out_axes, outs, is_leaf=lambda x: x is None)
        return axes
    except Exception:  # noqa: BLE001 - vmap itself reports a mismatch
        return []


def loop_blocker(fn: Any, name: str, single: list[Any], vr: VariantResult,
                 filename: str) -> str:
    """Why a loop of calls on one example each cannot compute what vmap does ("" if it can).

    Asks JAX: the function is traced on one example. A collective over the
    batch axis (psum, all_gather, axis_index ...) needs the axis that only
    ``vmap(axis_name=...)`` binds, and JAX refuses to trace it without.
    """
    try:
        jax.make_jaxpr(fn)(*single)
    except NameError as exc:  # JAX: "Found an unbound axis name: p. ..."
        text = str(exc)
        if "unbound axis name" not in text:
            raise
        axis = text.split("unbound axis name:", 1)[1].split(".")[0].strip()
        uses = []
        for eq in walk_equations(vr.equations):
            if eq.primitive in JAXPR_COLLECTIVES or eq.primitive == "axis_index":
                line = (f" (line {eq.source.line})" if eq.source is not None
                        and eq.source.file == filename else "")
                if f"{eq.primitive}{line}" not in uses:
                    uses.append(f"{eq.primitive}{line}")
        what = " and ".join(uses) or "a collective"
        return (f"{name} uses {what} over the batch axis {axis!r}: called on one example "
                f"there is no axis {axis!r}, and JAX refuses it (unbound axis name: {axis})")
    return ""
