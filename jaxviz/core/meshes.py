"""Meshes and partition specs for the variants: axis types, device order, pytree specs.

The mesh is built as the call's code builds it (``jax.make_mesh`` with the
axis types, on the devices in the order asked for). Partition specs are
trees (:mod:`jaxviz.model.partition_specs`): a ``PartitionSpec`` per argument
or a pytree of them, a prefix standing for a whole subtree, as ``jax.jit``'s
``in_shardings`` and ``shard_map``'s ``in_specs`` take them. Every check here
says which argument, which leaf and what to change.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import jax
import numpy as np
from jax.sharding import AxisType, Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

from jaxviz.model import ErrorInfo
from jaxviz.model.errors import UserError
from jaxviz.model.partition_specs import (
    SpecDict,
    SpecSeq,
    SpecTree,
    format_partition_spec,
    format_spec_tree,
    partition_axis_names,
)
from jaxviz.model.specs import format_mesh

_AXIS_TYPES = {"auto": AxisType.Auto, "explicit": AxisType.Explicit}


def is_spec(value: Any) -> bool:
    """True for a ``PartitionSpec`` (a leaf of a spec tree)."""
    return isinstance(value, P)


def to_jax(tree: SpecTree) -> Any:
    """A spec tree as ``PartitionSpec`` objects in lists, tuples and dicts."""
    if isinstance(tree, SpecSeq):
        items = [to_jax(t) for t in tree.items]
        return items if tree.kind == "list" else tuple(items)
    if isinstance(tree, SpecDict):
        return {k: to_jax(v) for k, v in tree.items}
    return P(*tree)


def shardings(mesh: Mesh, specs: Any) -> Any:
    """``NamedSharding(mesh, spec)`` for every spec of a tree."""
    return jax.tree.map(lambda s: NamedSharding(mesh, s), specs, is_leaf=is_spec)


def place(arg: Any, sharding: Any) -> Any:
    """An argument tree placed by a sharding tree (a prefix of it): abstract leaves get
    the sharding in their type, concrete ones are put on the devices (``jax.device_put``)."""
    def one(leaf: Any, where: NamedSharding) -> Any:
        if isinstance(leaf, jax.ShapeDtypeStruct):
            return jax.ShapeDtypeStruct(leaf.shape, leaf.dtype, sharding=where)
        return jax.device_put(leaf, where)

    full = jax.tree.broadcast(sharding, arg, is_leaf=lambda x: isinstance(x, NamedSharding))
    return jax.tree.map(one, arg, full)


def axis_types(types: list[str]) -> tuple[AxisType, ...]:
    """``AxisType`` members for ``['explicit', 'auto']``."""
    return tuple(_AXIS_TYPES[t] for t in types)


def build_mesh(axes: list[tuple[str, int]], types: list[str], devices: list[Any]) -> Mesh:
    """The mesh of ``axes`` with ``types`` on ``devices`` (used in that order)."""
    return jax.make_mesh(tuple(s for _, s in axes), tuple(n for n, _ in axes),
                         axis_types=axis_types(types), devices=devices)


def ordered_devices(devices: list[Any], order: list[int] | None, needed: int,
                    what: str = "the mesh") -> list[Any]:
    """The first ``needed`` devices, in the order given by device ids.

    Raises:
        UserError: the order names a device jaxviz does not use, or too few.
    """
    if order is None:
        return list(devices[:needed])
    by_id = {int(d.id): d for d in devices}
    missing = [i for i in order if i not in by_id]
    if missing:
        raise UserError(ErrorInfo(
            kind="option", field="devices_order",
            message=f"the device order names device {missing[0]}, but the devices are "
                    f"{', '.join(map(str, sorted(by_id)))}"))
    if len(order) < needed:
        raise UserError(ErrorInfo(
            kind="option", field="devices_order",
            message=f"{what} needs {needed} devices but the device order names "
                    f"{len(order)}: name {needed} device ids"))
    return [by_id[i] for i in order[:needed]]


def is_explicit(mesh: Mesh | None) -> bool:
    """Whether some axis of ``mesh`` is ``Explicit`` (types then carry shardings)."""
    return mesh is not None and AxisType.Explicit in tuple(mesh.axis_types)


@contextlib.contextmanager
def mesh_context(mesh: Mesh | None) -> Iterator[None]:
    """``with jax.set_mesh(mesh)`` (nothing when ``mesh`` is None)."""
    if mesh is None:
        yield
        return
    with jax.set_mesh(mesh):
        yield


def check_axis_names(mesh: Mesh, specs: list[SpecTree], texts: str | None,
                     names: list[str], field: str = "specs") -> None:
    """Every axis a spec names is an axis of the mesh.

    Raises:
        UserError: naming the argument, its spec and the mesh's axes.
    """
    known = set(mesh.axis_names)
    for i, spec in enumerate(specs):
        for axis_name in partition_axis_names(spec):
            if axis_name not in known:
                who = f"argument {i + 1} ({names[i]})" if i < len(names) else f"output {i + 1}"
                raise UserError(ErrorInfo(
                    kind="mesh", field=field,
                    position=max((texts or "").find(repr(axis_name)[1:-1]), 0),
                    message=f"partition spec {format_spec_tree(spec)} for {who} names axis "
                            f"{axis_name!r}, but the mesh has axes "
                            f"{', '.join(mesh.axis_names)}"))


def per_leaf(specs: Any, args: list[Any], names: list[str],
             texts: str | None = None) -> list[list[tuple[str, Any, P]]]:
    """Each argument's leaves with the spec that applies to each (prefixes broadcast).

    Returns:
        Per argument: ``(leaf name, leaf, PartitionSpec)`` for every leaf.

    Raises:
        UserError: a spec tree that does not fit its argument's structure (not a
            prefix of it), naming the argument and both structures.
    """
    out = []
    for i, (spec, arg) in enumerate(zip(specs, args)):
        try:
            full = jax.tree.broadcast(spec, arg, is_leaf=is_spec)
        except ValueError:
            shown = jax.tree.structure(arg)
            raise UserError(ErrorInfo(
                kind="spec", field="specs",
                position=_spec_position(texts, i),
                message=f"the partition specs of argument {i + 1} ({names[i]}) do not fit "
                        f"its structure {shown}: give one P(...) for the whole argument, or "
                        f"a list/tuple/dict of specs shaped like it (a spec may stand for "
                        f"a whole subtree)")) from None
        paths = jax.tree_util.tree_flatten_with_path(arg)[0]
        leaf_specs = jax.tree.leaves(full, is_leaf=is_spec)
        out.append([(names[i] + jax.tree_util.keystr(path), leaf, s)
                    for (path, leaf), s in zip(paths, leaf_specs)])
    return out


def _spec_position(texts: str | None, index: int) -> int:
    """Where argument ``index``'s spec starts in the typed specs (best effort: 0)."""
    if not texts:
        return 0
    from jaxviz.model.specs import call_nodes

    try:
        call, offset = call_nodes(texts)
    except Exception:  # noqa: BLE001 - the text parsed before; be safe
        return 0
    return offset(call.args[index]) if index < len(call.args) else 0


def divisible_problem(mesh: Mesh, spec: P, shape: tuple[int, ...]
                      ) -> tuple[int, tuple[str, ...], int] | None:
    """The first dimension ``spec`` splits unevenly: ``(dim, mesh axis names, parts)``,
    or None when every split is even."""
    sizes = dict(mesh.shape)
    for d, entry in enumerate(tuple(spec)[:len(shape)]):
        names = entry if isinstance(entry, tuple) else (entry,) if entry else ()
        parts = int(np.prod([sizes[n] for n in names] or [1]))
        if shape[d] % parts:
            return d, tuple(names), parts
    return None


def spec_text(spec: P) -> str:
    """``P('data', None)`` for a jax PartitionSpec."""
    return format_partition_spec(tuple(spec))


def mesh_words(axes: list[tuple[str, int]], types: list[str]) -> str:
    """``X=2,Y=4 (explicit)``: a mesh and its axis types in words."""
    kinds = sorted(set(types))
    words = kinds[0] if len(kinds) == 1 else ", ".join(f"{n}: {t}" for (n, _), t in
                                                         zip(axes, types))
    return f"{format_mesh(axes)} ({words})"
