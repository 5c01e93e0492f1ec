"""Every variant jaxviz shows is exactly what JAX produces.

The reference side of each comparison is built here from the example's file
with JAX's own API (importlib + jax.make_jaxpr / jax.jit / jax.vmap /
jax.pmap / jax.shard_map), independently of jaxviz's variant builder.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.sharding import AxisType, Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

from jaxviz import core
from jaxviz.model import list_examples
from jaxviz.model.errors import format_error
from jaxviz.model.sources import resolve_target
from jaxviz.model.specs import (
    DTYPES,
    Aval,
    Dict,
    Seq,
    parse_args,
    parse_in_axes,
    parse_mesh,
    parse_partition_specs,
)

from .conftest import example_request, import_file

CASES = [(ex.name, v) for ex in list_examples() for v in ex.variants]


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


def reference_jaxpr(name: str, variant: str) -> str:
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
    if variant == "plain":
        return str(jax.make_jaxpr(f)(*single))
    if variant == "jit":
        return str(jax.make_jaxpr(jax.jit(f))(*single))
    if variant == "vmap":
        return str(jax.make_jaxpr(jax.vmap(f, in_axes=axes, axis_name=axis))(*batched))
    if variant == "pmap":
        return str(jax.make_jaxpr(jax.pmap(f, axis_name=axis, in_axes=axes))(*batched))
    shardings = tuple(NamedSharding(mesh, s) for s in specs)
    if variant == "sharded":
        g = jax.vmap(f, in_axes=axes, axis_name=axis) if is_batched else f
        args = batched if is_batched else single
        return str(jax.make_jaxpr(jax.jit(g, in_shardings=shardings))(*args))
    assert variant == "shard_map"
    if is_batched:
        local, args, out_specs = jax.vmap(f, in_axes=axes), batched, P(mesh_axes[0][0])
    else:
        local, args = f, single
        compiled = jax.jit(f, in_shardings=shardings).lower(*args).compile()
        out_specs = jax.tree.map(lambda s: s.spec, compiled.output_shardings)
    smap = jax.shard_map(local, mesh=mesh, in_specs=tuple(specs), out_specs=out_specs)
    return str(jax.make_jaxpr(jax.jit(smap, in_shardings=shardings))(*args))


@pytest.mark.parametrize("name, variant", CASES, ids=[f"{n}-{v}" for n, v in CASES])
def test_jaxpr_text_equals_make_jaxpr(name, variant):
    result = core.trace_request(example_request(name, [variant]))
    assert result.error is None
    vr = result.variant(variant)
    assert vr.error is None, format_error(vr.error, debug=True)
    assert vr.jaxpr_text == reference_jaxpr(name, variant)


def test_pmap_shows_it_became_jit_of_shard_map():
    vr = core.trace_request(example_request("convolve", ["pmap"])).variant("pmap")
    outer = vr.equations[0]
    assert outer.primitive == "jit"
    inner = outer.subjaxprs[0].equations[0]
    assert inner.primitive == "shard_map"
    assert "jit[" in vr.jaxpr_text and "shard_map[" in vr.jaxpr_text


@pytest.mark.parametrize("collective, primitive", [
    ("lax.psum(x, 'i')", "psum"), ("lax.all_gather(x, 'i')", "all_gather"),
    ("lax.axis_index('i') + x", "axis_index"),
    ("lax.ppermute(x, 'i', [(j, (j + 1) % 8) for j in range(8)])", "ppermute")])
def test_collectives_work_where_the_axis_is_bound(user_file, collective, primitive):
    from jaxviz.model import TraceRequest

    target, _ = resolve_target(user_file(
        f"from jax import lax\n\ndef f(x):\n    return {collective}\n", "f"))
    variants = ["pmap", "shard_map"] + ([] if primitive == "ppermute" else ["vmap"])
    req = TraceRequest(target=target, args="f32[3]", variants=variants, axis_name="i",
                       want=["jaxpr", "value"])
    result = core.trace_request(req)
    for vr in result.variants:
        assert vr.error is None, format_error(vr.error, debug=True)
    for name in ("pmap", "shard_map"):
        assert any(c.startswith(primitive) for c in result.variant(name).collectives)
    # Bound by vmap, pmap or a mesh axis, the collective computes the same numbers.
    values = {vr.variant: vr.value for vr in result.variants}
    assert values["pmap"] == values["shard_map"]
    if "vmap" in values:
        assert values["vmap"] == values["pmap"]
