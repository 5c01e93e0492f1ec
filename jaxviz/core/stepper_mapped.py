"""The devices of a mapped body (``pmap``/``shard_map``): their blocks and their collectives.

Inside a ``shard_map`` body (``pmap`` is ``jit(shard_map(...))`` in JAX 0.10)
every device runs the same equations on its own block. The stepper runs the
body once per device (a *lane*), so it must know

* which block of each input a device gets (from the ``in_specs`` and the mesh,
  checked against the real ``NamedSharding.devices_indices_map``),
* how the devices' blocks of each output make the global array (``out_specs``),
* what each collective gives each device: the stepper computes it itself,
  across the devices of each group, from the devices' own values.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.sharding import NamedSharding

from jaxviz.core import jax_internals
from jaxviz.model import ErrorInfo, MeshInfo
from jaxviz.model.errors import UserError

#: (mesh, spec, shape) whose blocks were checked against JAX's devices_indices_map.
_CHECKED: set[tuple[Any, Any, tuple[int, ...]]] = set()


@dataclass
class MeshLanes:
    """The devices of a mesh as lanes, in mesh (row-major) order.

    Attributes:
        mesh: the JAX mesh.
        names, sizes: the mesh axes.
        coords: each lane's coordinate along every axis.
        devices: each lane's device id.
    """

    mesh: Any
    names: list[str]
    sizes: list[int]
    coords: list[tuple[int, ...]]
    devices: list[int]

    @classmethod
    def of(cls, mesh: Any) -> MeshLanes:
        names, sizes, ids = jax_internals.mesh_parts(mesh)
        coords = list(itertools.product(*(range(s) for s in sizes)))
        return cls(mesh, names, sizes, coords, [int(ids[c]) for c in coords])

    def info(self) -> MeshInfo:
        return MeshInfo(axis_names=list(self.names), axis_sizes=list(self.sizes),
                        device_ids=list(self.devices))

    def size(self, axes: tuple[str, ...]) -> int:
        return int(np.prod([self.sizes[self.names.index(a)] for a in axes]))

    def axis_index(self, lane: int, axes: tuple[str, ...]) -> int:
        """The lane's index along ``axes`` (several axes: row-major, first axis major)."""
        index = 0
        for axis in axes:
            k = self.names.index(axis)
            index = index * self.sizes[k] + self.coords[lane][k]
        return index

    def groups(self, axes: tuple[str, ...]) -> list[list[int]]:
        """The lanes that share a collective over ``axes``, each group in axis-index order."""
        others = [k for k, n in enumerate(self.names) if n not in axes]
        found: dict[tuple[int, ...], list[int]] = {}
        for lane, coord in enumerate(self.coords):
            found.setdefault(tuple(coord[k] for k in others), []).append(lane)
        return [sorted(g, key=lambda lane: self.axis_index(lane, axes)) for g in found.values()]

    # -- blocks ------------------------------------------------------------- #

    def block(self, lane: int, spec: Any, shape: tuple[int, ...]) -> tuple[slice, ...]:
        """The part of an array of ``shape`` that the lane holds under a PartitionSpec."""
        index = []
        for dim, axes in zip(shape, jax_internals.spec_entries(spec, len(shape))):
            parts = self.size(axes)
            if dim % parts:
                raise UserError(ErrorInfo(
                    kind="mesh", message=f"an axis of size {dim} does not split into {parts} "
                                         f"blocks over mesh axes {', '.join(axes)}"))
            step = dim // parts
            start = self.axis_index(lane, axes) * step
            index.append(slice(start, start + step))
        return tuple(index)

    def check_blocks(self, spec: Any, shape: tuple[int, ...]) -> None:
        """Fail loudly if :meth:`block` disagrees with JAX's own ``devices_indices_map``."""
        key = (self.mesh, spec, shape)
        if key in _CHECKED:
            return
        sharding = NamedSharding(self.mesh, spec)
        indices: Any = sharding.devices_indices_map(shape)
        by_id = {d.id: idx for d, idx in indices.items()}
        for lane, device in enumerate(self.devices):
            mine = self.block(lane, spec, shape)
            theirs = tuple(slice(s.start or 0, dim if s.stop is None else s.stop)
                           for s, dim in zip(by_id[device], shape))
            if mine != theirs:
                raise RuntimeError(f"the stepper's block of device {device} under {spec} is "
                                   f"{mine}, but JAX places {theirs} there")
        _CHECKED.add(key)

    def split(self, value: Any, spec: Any) -> list[Any]:
        """Every lane's block of a global value."""
        shape = tuple(np.shape(value))
        self.check_blocks(spec, shape)
        if not any(jax_internals.spec_entries(spec, len(shape))):
            return [value] * len(self.devices)
        return [value[self.block(lane, spec, shape)] for lane in range(len(self.devices))]

    def assemble(self, blocks: list[Any], spec: Any) -> tuple[Any, str]:
        """The global array the lanes' blocks make under ``spec``, and a note.

        Lanes that hold copies of the same block (mesh axes the spec does not
        name) should agree; the first lane's copy is used, and the note says
        so when they do not.
        """
        block_shape = tuple(np.shape(blocks[0]))
        entries = jax_internals.spec_entries(spec, len(block_shape))
        shape = tuple(d * self.size(axes) for d, axes in zip(block_shape, entries))
        dtype = getattr(blocks[0], "dtype", None) or np.asarray(blocks[0]).dtype
        out = np.zeros(shape, dtype=dtype)
        placed: dict[tuple, int] = {}
        note = ""
        for lane, block in enumerate(blocks):
            index = self.block(lane, spec, shape)
            key = tuple((s.start, s.stop) for s in index)
            if key in placed:
                if not note and not np.array_equal(np.asarray(block), out[index]):
                    note = (f"devices {self.devices[placed[key]]} and {self.devices[lane]} hold "
                            f"different copies of one block; the output has device "
                            f"{self.devices[placed[key]]}'s")
                continue
            placed[key] = lane
            out[index] = np.asarray(block)
        return jnp.asarray(out), note


# --------------------------------------------------------------------------- #
# collectives, evaluated across the lanes of each group
# --------------------------------------------------------------------------- #

_REDUCERS: dict[str, Callable[[Any, Any], Any]] = {
    "psum": lax.add, "psum_invariant": lax.add, "pmax": lax.max, "pmin": lax.min}
_LOCAL: dict[str, Callable[..., Any]] = {
    "psum": jnp.sum, "psum_invariant": jnp.sum, "pmax": jnp.max, "pmin": jnp.min}


def collective_groups(lanes: MeshLanes, coll: jax_internals.Collective) -> list[list[int]]:
    """The lanes each group of a collective works over, each in axis-index order."""
    if coll.groups is not None:
        raise UserError(ErrorInfo(
            kind="trace", message=f"{coll.kind} with axis_index_groups cannot be stepped yet"))
    return lanes.groups(coll.axes)


def evaluate(coll: jax_internals.Collective, operands: list[list[Any]], lanes: MeshLanes,
             active: list[int]) -> tuple[list[list[Any]], list[list[int]]]:
    """Each lane's outputs of a collective, and the groups (as lanes) it combined.

    Args:
        coll: the collective.
        operands: per operand, every lane's value (None for lanes not running).
        lanes: the mesh's lanes.
        active: the lanes running this equation.

    Returns:
        ``(outputs, groups)``: per output, every lane's value; the groups
        (none for ``pvary``, which moves nothing: it only marks a value as
        varying across devices; for ``axis_index`` the groups it counts in).

    Raises:
        UserError: a group has lanes that are not running (devices took
            different branches before the collective).
    """
    n = len(lanes.devices)
    if coll.kind == "pvary":
        return [list(values) for values in operands], []
    groups = collective_groups(lanes, coll) if coll.axes else [[lane] for lane in active]
    running = set(active)
    if coll.kind == "axis_index":
        out: list[Any] = [None] * n
        for lane in active:
            out[lane] = jnp.asarray(lanes.axis_index(lane, coll.axes), dtype=jnp.int32)
        return [out], [g for g in groups if running.intersection(g)]
    groups = [g for g in groups if running.intersection(g)]
    for g in groups:
        if not running.issuperset(g):
            raise UserError(ErrorInfo(
                kind="trace", message=f"{coll.kind} over {', '.join(coll.axes)} is reached by "
                                      f"some devices of a group but not by the others (they "
                                      f"took another branch or loop count); the stepper "
                                      f"cannot evaluate it"))
    if coll.kind == "ppermute":
        # ppermute's (source, destination) indices count the group's devices in mesh
        # order, whatever order the axes are named in (JAX sorts the replica group).
        groups = [sorted(g) for g in groups]
    outputs = []
    for values in operands:
        out = [None] * n
        for group in groups:
            results = _combine(coll, [values[lane] for lane in group], lanes, group)
            for lane, result in zip(group, results):
                out[lane] = result
        outputs.append(out)
    return outputs, groups


def _combine(coll: jax_internals.Collective, values: list[Any], lanes: MeshLanes,
             group: list[int]) -> list[Any]:
    """One group's collective: its lanes' inputs (in axis-index order) to their outputs."""
    kind = coll.kind
    if kind in _REDUCERS:
        if coll.positional:
            values = [_LOCAL[kind](v, axis=coll.positional) for v in values]
        if not coll.axes:
            return values
        total = functools.reduce(_REDUCERS[kind], values)
        return [total] * len(values)
    if kind in ("all_gather", "all_gather_invariant"):
        joined = (jnp.concatenate(values, axis=coll.dimension) if coll.tiled
                  else jnp.stack(values, axis=coll.dimension))
        return [joined] * len(values)
    if kind == "reduce_scatter":
        total = functools.reduce(lax.add, values)
        chunks = jnp.split(total, len(values), axis=coll.dimension)
        return chunks if coll.tiled else [jnp.squeeze(c, coll.dimension) for c in chunks]
    if kind == "ppermute":
        n = len(values)
        out = [jnp.zeros_like(v) for v in values]
        for source, dest in coll.perm:
            out[dest % n] = values[source % n]
        return out
    if kind == "all_to_all":
        pieces = [jnp.split(v, len(values), axis=coll.split_axis) for v in values]
        return [jnp.concatenate([pieces[src][dst] for src in range(len(values))],
                                axis=coll.concat_axis) for dst in range(len(values))]
    if kind == "pbroadcast":
        return [values[coll.source]] * len(values)
    raise UserError(ErrorInfo(kind="trace",
                              message=f"the stepper cannot evaluate the collective {kind}"))
