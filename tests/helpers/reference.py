"""The reference side of the core tests: each variant of a gallery example built here
from the example's file with JAX's own API (importlib + jax.jit / jax.vmap / jax.pmap /
jax.shard_map / NamedSharding), independently of jaxviz's variant builder."""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import AxisType, Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

from jaxviz.model import list_examples
from jaxviz.model.partition_specs import parse_partition_specs
from jaxviz.model.specs import (
    DTYPES,
    Aval,
    Dict,
    Seq,
    parse_args,
    parse_in_axes,
    parse_mesh,
)
from tests.helpers.jax_requests import import_file


def _value(spec, ns):
    if isinstance(spec, Aval):
        return jax.ShapeDtypeStruct(spec.shape, jnp.dtype(DTYPES[spec.dtype]))
    if isinstance(spec, Seq):
        items = [_value(s, ns) for s in spec.items]
        return items if spec.kind == "list" else tuple(items)
    if isinstance(spec, Dict):
        return {k: _value(v, ns) for k, v in spec.items}
    return eval(spec.source, ns)


def _batched(args, in_axes, batch):
    def add(leaf, axis):
        if isinstance(leaf, jax.ShapeDtypeStruct):
            shape = list(leaf.shape)
            shape.insert(axis, batch)
            return jax.ShapeDtypeStruct(tuple(shape), leaf.dtype)
        return jnp.stack([jnp.asarray(leaf)] * batch, axis=axis)

    return [arg if ax is None else jax.tree.map(lambda leaf, ax=ax: add(leaf, ax), arg)
            for arg, ax in zip(args, in_axes)]


def reference_call(name: str, variant: str) -> tuple[Callable, list]:
    """The example's function transformed as ``variant`` does it, and its arguments
    (abstract where the example gives types), built with JAX's API alone."""
    ex = next(e for e in list_examples() if e.name == name)
    module = import_file(ex.path)
    ns = vars(module)
    f = getattr(module, ex.function)
    single = [_value(s, ns) for s in parse_args(ex.args)]
    in_axes = parse_in_axes(ex.in_axes, len(single))
    axis = ex.axis_name
    n = jax.device_count()
    if ex.batched_args:
        batched = [_value(s, ns) for s in parse_args(ex.batched_args)]
    else:
        batched = _batched(single, in_axes, ex.batch or n)
    mesh_axes = parse_mesh(ex.mesh or f"{axis}={n}")
    mesh = Mesh(np.array(jax.devices()[:int(np.prod([s for _, s in mesh_axes]))])
                .reshape([s for _, s in mesh_axes]), tuple(a for a, _ in mesh_axes),
                axis_types=(AxisType.Auto,) * len(mesh_axes))
    if ex.specs:
        specs = [P(*s) for s in parse_partition_specs(ex.specs)]
    else:
        specs = [P() if a is None else P(*([None] * a + [mesh_axes[0][0]])) for a in in_axes]
    is_batched = any(a is not None for a in in_axes)
    axes = tuple(in_axes)
    if variant == "as_written":  # the arguments placed by the specs, on the module's mesh
        where = module.MODULE_MESH or mesh
        return f, [jax.device_put(a, NamedSharding(where, s)) for a, s in zip(single, specs)] \
            if ex.specs else single
    if variant == "plain":
        return f, single
    if variant == "jit":
        return jax.jit(f), single
    if variant == "vmap":
        return jax.vmap(f, in_axes=axes, axis_name=axis), batched
    if variant == "pmap":
        return jax.pmap(f, axis_name=axis, in_axes=axes), batched
    shardings = tuple(NamedSharding(mesh, s) for s in specs)
    if variant == "sharded":
        g = jax.vmap(f, in_axes=axes, axis_name=axis) if is_batched else f
        args = batched if is_batched else single
        return jax.jit(g, in_shardings=shardings), args
    assert variant == "shard_map"
    if is_batched:
        local, args, out_specs = jax.vmap(f, in_axes=axes), batched, P(mesh_axes[0][0])
    else:
        local, args = f, single
        compiled = jax.jit(f, in_shardings=shardings).lower(*args).compile()
        out_specs = jax.tree.map(lambda s: s.spec, compiled.output_shardings)
    smap = jax.shard_map(local, mesh=mesh, in_specs=tuple(specs), out_specs=out_specs,
                         check_vma=ex.check_vma)
    return jax.jit(smap, in_shardings=shardings), args


def reference_context(name: str, variant: str):
    """The mesh a variant runs inside (``jax.set_mesh``): the mesh the example names (not for
    pmap, which builds its own), or for ``as_written`` the mesh the module set; else None."""
    ex = next(e for e in list_examples() if e.name == name)
    if variant == "as_written":
        return import_file(ex.path).MODULE_MESH
    if variant == "pmap" or not ex.mesh:
        return None
    axes = parse_mesh(ex.mesh)
    return jax.make_mesh(tuple(s for _, s in axes), tuple(a for a, _ in axes),
                         axis_types=(AxisType.Auto,) * len(axes))


def reference_jaxpr(name: str, variant: str) -> str:
    fn, args = reference_call(name, variant)
    context = reference_context(name, variant)
    if context is None:
        return str(jax.make_jaxpr(fn)(*args))
    with jax.set_mesh(context):
        return str(jax.make_jaxpr(fn)(*args))


def concrete(args: list) -> list:
    """Abstract arguments made real (zeros), for running a reference call."""
    return jax.tree.map(lambda leaf: jnp.zeros(leaf.shape, leaf.dtype)
                        if isinstance(leaf, jax.ShapeDtypeStruct) else leaf, args)
