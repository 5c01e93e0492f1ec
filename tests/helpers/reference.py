"""The reference side of the core tests: each variant of a gallery example built here
from the example's file with JAX's own API (importlib + jax.jit / jax.vmap / jax.pmap /
jax.shard_map / NamedSharding), independently of jaxviz's variant builder. The example's
settings are read here too (its ``JAXVIZ`` dict, the argument types, ``in_axes``, the mesh,
the partition specs), with Python and JAX alone: a bug in jaxviz's spec parsers is not
shared by the subject and its oracle."""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import AxisType, Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

from tests.helpers.jax_requests import import_file

EXAMPLES = Path(__file__).resolve().parents[2] / "resources" / "examples"

#: The settings an example's ``JAXVIZ`` dict may leave out, as the README documents them.
DEFAULTS = {"args": "", "batched_args": None, "in_axes": None, "axis_name": "i", "batch": None,
            "mesh": None, "specs": None, "check_vma": True}

#: Abstract types in jaxpr notation (``f32[8,3]``, ``i32[]``): the dtype names JAX prints.
DTYPES = {"bool": jnp.bool_, "i8": jnp.int8, "i16": jnp.int16, "i32": jnp.int32,
          "i64": jnp.int64, "u8": jnp.uint8, "u16": jnp.uint16, "u32": jnp.uint32,
          "u64": jnp.uint64, "bf16": jnp.bfloat16, "f16": jnp.float16, "f32": jnp.float32,
          "f64": jnp.float64, "c64": jnp.complex64, "c128": jnp.complex128}


class _Type:
    """``f32[8, 3]`` evaluates to ``jax.ShapeDtypeStruct((8, 3), float32)``."""

    def __init__(self, dtype) -> None:
        self.dtype = jnp.dtype(dtype)

    def __getitem__(self, dims) -> jax.ShapeDtypeStruct:
        dims = dims if isinstance(dims, tuple) else (dims,)
        return jax.ShapeDtypeStruct(tuple(int(d) for d in dims), self.dtype)


def _tuple_of(text: str, names: dict) -> tuple:
    """``text`` as the items of a Python tuple, evaluated with ``names``; ``f32[]`` is a
    scalar type (Python has no empty subscript, so it is read as ``f32[()]``)."""
    text = re.sub(rf"\b({'|'.join(DTYPES)})\[\s*\]", r"\1[()]", text)
    return eval(f"({text},)", names)  # noqa: S307 - the gallery's own settings


def example_settings(name: str) -> dict:
    """The example's ``JAXVIZ`` dict (read from its file, not run), with the defaults."""
    path = EXAMPLES / f"{name}.py"
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "JAXVIZ":
            return {**DEFAULTS, **ast.literal_eval(node.value), "path": str(path)}
    raise AssertionError(f"{path} has no JAXVIZ dict")


def args_of(text: str | None, ns: dict) -> list:
    """The arguments of one call: abstract types become ``ShapeDtypeStruct``s, nested in the
    lists, tuples and dicts written around them; anything else is evaluated in ``ns``."""
    if not text or not text.strip():
        return []
    return list(_tuple_of(text, {**ns, **{k: _Type(v) for k, v in DTYPES.items()}}))


def in_axes_of(text: str | None, nargs: int) -> list:
    """``"0, None"``: one batch axis (or None) per argument; none given is 0 for each, and
    one value applies to every argument."""
    if text is None or not text.strip():
        return [0] * nargs
    axes = list(_tuple_of(text, {}))
    return axes * nargs if len(axes) == 1 else axes


def mesh_axes_of(text: str) -> list[tuple[str, int]]:
    """``"data=4,model=2"`` as ``[("data", 4), ("model", 2)]``."""
    return [(name.strip(), int(size)) for name, size in
            (item.split("=") for item in text.split(","))]


def specs_of(text: str) -> list:
    """``"P('data', None), P()"``: one ``PartitionSpec`` (or pytree of them) per argument."""
    return list(_tuple_of(text, {"P": P, "PartitionSpec": P}))


def batched(args, in_axes, batch):
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
    ex = example_settings(name)
    module = import_file(ex["path"])
    ns = vars(module)
    f = getattr(module, ex["function"])
    single = args_of(ex["args"], ns)
    in_axes = in_axes_of(ex["in_axes"], len(single))
    axis = ex["axis_name"]
    n = jax.device_count()
    if ex["batched_args"]:
        stacked = args_of(ex["batched_args"], ns)
    else:
        stacked = batched(single, in_axes, ex["batch"] or n)
    mesh_axes = mesh_axes_of(ex["mesh"] or f"{axis}={n}")
    mesh = Mesh(np.array(jax.devices()[:int(np.prod([s for _, s in mesh_axes]))])
                .reshape([s for _, s in mesh_axes]), tuple(a for a, _ in mesh_axes),
                axis_types=(AxisType.Auto,) * len(mesh_axes))
    if ex["specs"]:
        specs = specs_of(ex["specs"])
    else:
        specs = [P() if a is None else P(*([None] * a + [mesh_axes[0][0]])) for a in in_axes]
    is_batched = any(a is not None for a in in_axes)
    axes = tuple(in_axes)
    if variant == "as_written":  # the arguments placed by the specs, on the module's mesh
        where = module.MODULE_MESH or mesh
        return f, [jax.device_put(a, NamedSharding(where, s)) for a, s in zip(single, specs)] \
            if ex["specs"] else single
    if variant == "plain":
        return f, single
    if variant == "jit":
        return jax.jit(f), single
    if variant == "vmap":
        return jax.vmap(f, in_axes=axes, axis_name=axis), stacked
    if variant == "pmap":
        return jax.pmap(f, axis_name=axis, in_axes=axes), stacked
    shardings = tuple(NamedSharding(mesh, s) for s in specs)
    if variant == "sharded":
        g = jax.vmap(f, in_axes=axes, axis_name=axis) if is_batched else f
        args = stacked if is_batched else single
        return jax.jit(g, in_shardings=shardings), args
    assert variant == "shard_map"
    if is_batched:
        local, args, out_specs = jax.vmap(f, in_axes=axes), stacked, P(mesh_axes[0][0])
    else:
        local, args = f, single
        compiled = jax.jit(f, in_shardings=shardings).lower(*args).compile()
        out_specs = jax.tree.map(lambda s: s.spec, compiled.output_shardings)
    smap = jax.shard_map(local, mesh=mesh, in_specs=tuple(specs), out_specs=out_specs,
                         check_vma=ex["check_vma"])
    return jax.jit(smap, in_shardings=shardings), args


def reference_context(name: str, variant: str):
    """The mesh a variant runs inside (``jax.set_mesh``): the (Auto) mesh the example names,
    for the variants that use it (sharded and shard_map: the others run as the function
    would without it, and pmap builds its own), or for ``as_written`` the mesh the module
    set; else None."""
    ex = example_settings(name)
    if variant == "as_written":
        return import_file(ex["path"]).MODULE_MESH
    if variant not in ("sharded", "shard_map") or not ex["mesh"]:
        return None
    axes = mesh_axes_of(ex["mesh"])
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
