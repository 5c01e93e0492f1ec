"""Inferring shard_map's ``out_specs`` from the function's outputs under the mesh.

``shard_map`` needs to be told how the per-device outputs form the global
result. jaxviz infers it by tracing the body *under the mesh* (so collectives
over mesh axes are bound, as they will be) and reading, for every output,
the mesh axes it varies over: with ``check_vma=True``, JAX 0.10 types each
value with the set of manual mesh axes it varies across
(:func:`jaxviz.core.jax_internals.varying_axes`). An output that varies over no axis is the same on
every device: ``P()``. An axis it varies over is placed at the output
dimension where that axis splits the inputs (or at the batch dimension, for
the batch the variant adds). When no dimension fits, :class:`OutSpecsError`
says which ``--out-specs`` to give instead.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
from jax.sharding import Mesh
from jax.sharding import PartitionSpec as P

from jaxviz.core import jax_internals
from jaxviz.model.partition_specs import format_partition_spec


@dataclass
class OutputAxes:
    """What tracing under the mesh says about one output leaf."""

    shape: tuple[int, ...]
    dtype: str
    varies: tuple[str, ...]


class OutSpecsError(ValueError):
    """No out_specs can be inferred; ``message`` says what to give instead."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


def output_axes(local: Callable, mesh: Mesh, in_specs: tuple[P, ...],
                args: list[Any]) -> tuple[list[OutputAxes], Any]:
    """Trace ``local`` under ``shard_map`` on ``mesh`` and read each output's varying axes.

    The trace uses ``check_vma=True`` (the types that say which axes a value
    varies over) and a provisional ``out_specs=P()``: the body's outputs are
    recorded, and replaced by invariant zeros so that the provisional specs hold.

    Returns:
        The per-device shape, dtype and varying mesh axes of every output leaf,
        and the output's tree structure.
    """
    seen: dict[str, Any] = {}

    def probe(*xs: Any) -> Any:
        out = local(*xs)
        leaves, treedef = jax.tree.flatten(out)
        seen["treedef"] = treedef
        seen["leaves"] = [OutputAxes(tuple(jnp.shape(x)), str(jnp.result_type(x)),
                                     tuple(sorted(jax_internals.varying_axes(x))))
                          for x in leaves]
        return [jnp.zeros((), jnp.float32) for _ in leaves]

    probe.__name__ = probe.__qualname__ = getattr(local, "__name__", "f")

    jax.eval_shape(jax.shard_map(probe, mesh=mesh, in_specs=in_specs, out_specs=P(),
                                 check_vma=True), *args)
    return seen["leaves"], seen["treedef"]


def axis_dims(in_specs: tuple[Any, ...]) -> dict[str, set[int]]:
    """For each mesh axis, the dimensions at which it splits some input (specs may be
    pytrees of specs, for pytree arguments)."""
    dims: dict[str, set[int]] = {}
    for spec in jax.tree.leaves(in_specs, is_leaf=lambda x: isinstance(x, P)):
        for d, entry in enumerate(tuple(spec)):
            names = entry if isinstance(entry, tuple) else (entry,) if entry else ()
            for name in names:
                dims.setdefault(name, set()).add(d)
    return dims


def leaf_spec(leaf: OutputAxes, dims: dict[str, set[int]], batch_axes: tuple[str, ...],
              mesh_axes: tuple[str, ...], index: int, count: int) -> P:
    """The PartitionSpec of one output leaf.

    Args:
        leaf: its per-device shape and varying axes.
        dims: :func:`axis_dims` of the input specs.
        batch_axes: mesh axes the added batch is split over (dimension 0 of
            every output of a batched variant); empty when nothing was batched.
        mesh_axes: the mesh's axis names, in order.
        index, count: the leaf's position among the outputs (for messages).

    Raises:
        OutSpecsError: an axis the output varies over has no dimension to go to.
    """
    rank = len(leaf.shape)
    entries: list[list[str]] = [[] for _ in range(rank)]
    if batch_axes and rank:
        entries[0].extend(batch_axes)
    for name in (n for n in mesh_axes if n in leaf.varies and n not in batch_axes):
        choices = sorted(d for d in dims.get(name, ()) if d < rank
                         and not (batch_axes and d == 0))
        if len(choices) != 1:
            raise OutSpecsError(_cannot(leaf, name, choices, batch_axes, mesh_axes, index,
                                        count))
        entries[choices[0]].append(name)
    spec = [None if not e else e[0] if len(e) == 1 else tuple(e) for e in entries]
    while spec and spec[-1] is None:
        spec.pop()
    return P(*spec)


def infer(local: Callable, mesh: Mesh, in_specs: tuple[P, ...], args: list[Any],
          batch_axes: tuple[str, ...]) -> Any:
    """The out_specs for ``shard_map(local, mesh, in_specs)`` (one P, or a tree of them).

    Raises:
        OutSpecsError: no out_specs fits (the message says what to give).
    """
    leaves, treedef = output_axes(local, mesh, in_specs, args)
    dims = axis_dims(in_specs)
    names = tuple(mesh.axis_names)
    specs = [leaf_spec(leaf, dims, batch_axes, names, i, len(leaves))
             for i, leaf in enumerate(leaves)]
    if specs and all(s == specs[0] for s in specs):
        return specs[0]
    return jax.tree.unflatten(treedef, specs)


def _cannot(leaf: OutputAxes, axis: str, choices: list[int], batch_axes: tuple[str, ...],
            mesh_axes: tuple[str, ...], index: int, count: int) -> str:
    which = "the output" if count == 1 else f"output {index + 1} of {count}"
    local = f"{_short(leaf.dtype)}[{','.join(map(str, leaf.shape))}]"
    head = (f"cannot infer shard_map's out_specs: {which} ({local} on each device) differs "
            f"across mesh axis {axis!r}")
    if not leaf.shape or (batch_axes and len(leaf.shape) == 1):
        return (f"{head}, and it has no axis to lay the devices' values along. Reduce it over "
                f"{axis!r} (e.g. lax.psum(..., {axis!r})) so that every device holds the same "
                f"value, or return it with an axis (e.g. jnp.expand_dims(..., 0)) and give "
                f"--out-specs \"{_example(len(leaf.shape) + 1, axis, batch_axes)}\"")
    where = ("no input is split along it at a dimension the output has" if not choices else
             f"inputs are split along it at dimensions {', '.join(map(str, choices))}")
    options = [format_partition_spec(_with(len(leaf.shape), d, axis, batch_axes))
               for d in range(1 if batch_axes else 0, len(leaf.shape))]
    return (f"{head}, and {where}: say along which dimension to put the devices' blocks, "
            f"e.g. --out-specs \"{options[0]}\""
            + (f" (or {', '.join(repr(o) for o in options[1:3])})" if len(options) > 1 else "")
            + (f"; the mesh has axes {', '.join(mesh_axes)}" if len(mesh_axes) > 1 else ""))


def _with(rank: int, dim: int, axis: str, batch_axes: tuple[str, ...]) -> tuple:
    entries: list[Any] = [None] * rank
    if batch_axes:
        entries[0] = batch_axes[0] if len(batch_axes) == 1 else batch_axes
    entries[dim] = axis
    while entries and entries[-1] is None:
        entries.pop()
    return tuple(entries)


def _example(rank: int, axis: str, batch_axes: tuple[str, ...]) -> str:
    return format_partition_spec(_with(rank, 1 if batch_axes and rank > 1 else 0, axis,
                                       batch_axes))


def _short(dtype: str) -> str:
    table = {"float32": "f32", "float64": "f64", "float16": "f16", "bfloat16": "bf16",
             "int32": "i32", "int64": "i64", "bool": "bool"}
    return table.get(dtype, dtype)
