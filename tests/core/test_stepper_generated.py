"""Generated programs: the stepper's values equal the real compiled run (Hypothesis).

Two families, written as user files and stepped as ``jaxviz step`` would:

* host programs: compositions of elementwise ops, reductions and matmuls, as
  plain, jit and vmap variants;
* per-device programs: chains of collectives (psum, pmean, pmax, pmin,
  axis_index, ppermute, all_gather, psum_scatter, all_to_all) inside
  ``shard_map`` over 1-D and 2-D meshes, over one axis or a tuple of axes
  (sums are divided by the group size, so that values stay near 1 and the
  compiled run's other summation order stays within the oracle's tolerance).

The reference is the same file imported with importlib and run with JAX's own
``jax.jit``/``jax.vmap``/``jax.shard_map``.
"""

from __future__ import annotations

import importlib.util
import itertools

import jax
import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from jax.sharding import AxisType, Mesh
from jax.sharding import PartitionSpec as P

from jaxviz.core.stepper import step
from jaxviz.model import TraceRequest
from jaxviz.model.sources import resolve_target
from jaxviz.model.stepping import StepRequest
from tests.helpers.stepping import check_against_real_run

# Not in the fast tier: runs generated programs and fresh interpreters through JAX.
pytestmark = pytest.mark.slow

SETTINGS = settings(max_examples=25, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])
_files = itertools.count()

# -- host programs ---------------------------------------------------------- #

HOST_OPS = [
    "jnp.sin(v)", "jnp.tanh(v)", "jnp.abs(v) - 1.5", "v * v", "jnp.exp(-jnp.abs(v))",
    "jnp.maximum(v, 0.25)", "v + y", "v * y", "v @ w", "v + jnp.sum(v, axis=0, keepdims=True)",
    "v - jnp.max(v, axis=1, keepdims=True)", "jnp.where(v > 0, v, y)", "jnp.cumsum(v, axis=0)",
    "jnp.sort(v, axis=1)", "v / (1.0 + jnp.abs(y))",
]
HOST_ARGS = {"x": (4, 3), "y": (4, 3), "w": (3, 3)}


def _write(tmp_path_factory, source: str) -> str:
    path = tmp_path_factory.mktemp("generated") / f"generated_{next(_files)}.py"
    path.write_text(source)
    return str(path)


def _import(path: str):
    spec = importlib.util.spec_from_file_location(f"generated_ref_{next(_files)}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _program(ops: list[str], args: str, tail: str) -> str:
    body = "".join(f"    v = {op}\n" for op in ops)
    return (f"import jax\nimport jax.numpy as jnp\nfrom jax import lax\n\n\n"
            f"def f({args}):\n    v = x\n{body}    return {tail}\n")


@SETTINGS
@given(ops=st.lists(st.sampled_from(HOST_OPS), min_size=1, max_size=6),
       variant=st.sampled_from(["plain", "jit", "vmap"]), seed=st.integers(0, 2**16))
def test_generated_host_programs(tmp_path_factory, ops, variant, seed):
    path = _write(tmp_path_factory, _program(ops, "x, y, w",
                                             "v, jnp.sum(v), jnp.max(v, axis=0)"))
    target, _ = resolve_target(f"{path}:f")
    spec = ", ".join(f"f32[{a},{b}]" for a, b in HOST_ARGS.values())
    stepped = step(StepRequest(TraceRequest(target=target, args=spec, batch=3),
                               variant=variant, seed=seed))
    f = _import(path).f
    shapes = [((3,) if variant == "vmap" else ()) + s for s in HOST_ARGS.values()]
    fn = {"plain": f, "jit": jax.jit(f), "vmap": jax.vmap(f)}[variant]
    check_against_real_run(stepped, fn, [jax.ShapeDtypeStruct(s, np.float32) for s in shapes],
                           seed=seed)


# -- per-device programs: collectives in shard_map --------------------------- #

MESHES = {"a=8": {"a": 8}, "a=4,b=2": {"a": 4, "b": 2}, "a=2,b=4": {"a": 2, "b": 4}}
BLOCK = (8, 2)


@st.composite
def collective_programs(draw):
    mesh_text = draw(st.sampled_from(sorted(MESHES)))
    sizes = MESHES[mesh_text]
    names = list(sizes)
    if len(names) == 1:
        spec, axes_choices = ("a",), [("a",)]
    else:
        spec = draw(st.sampled_from([("a", "b"), ("b", "a"), (("a", "b"),), (("b", "a"),)]))
        axes_choices = [("a",), ("b",), ("a", "b"), ("b", "a")]
    ops = []
    for _ in range(draw(st.integers(1, 4))):
        axes = draw(st.sampled_from(axes_choices))
        n = int(np.prod([sizes[a] for a in axes]))
        ax = repr(axes[0]) if len(axes) == 1 else repr(axes)
        kind = draw(st.sampled_from(["psum", "pmean", "pmax", "pmin", "axis_index", "ppermute",
                                     "all_gather", "psum_scatter", "all_to_all", "sin"]))
        if kind == "ppermute":
            shift = draw(st.integers(1, n - 1)) if n > 1 else 0
            keep = draw(st.lists(st.booleans(), min_size=n, max_size=n))
            perm = [(i, (i + shift) % n) for i in range(n) if keep[i]] or [(0, shift % n)]
            ops.append(f"lax.ppermute(v, {ax}, {perm})")
        elif kind == "all_gather":  # an order-sensitive mean of the gathered blocks
            ops.append(f"(lax.all_gather(v, {ax}) * jnp.arange(1, {n + 1}, "
                       f"dtype=v.dtype)[:, None, None]).sum(0) / {n * (n + 1) // 2}")
        elif kind == "psum_scatter":
            ops.append(f"lax.all_gather(lax.psum_scatter(v, {ax}, scatter_dimension=0, "
                       f"tiled=True), {ax}, axis=0, tiled=True) / {n}")
        elif kind == "all_to_all":
            ops.append(f"lax.all_to_all(v, {ax}, 0, 0, tiled=True)")
        elif kind == "axis_index":
            ops.append(f"v + lax.axis_index({ax})")
        elif kind == "sin":
            ops.append("jnp.sin(v) * 2.0")
        elif kind == "psum":
            ops.append(f"lax.psum(v, {ax}) / {n}")
        else:
            ops.append(f"lax.{kind}(v, {ax})")
    return mesh_text, spec, ops


def _spec_text(spec) -> str:
    return "P(" + ", ".join(repr(e) for e in spec) + ")"


@SETTINGS
@given(program=collective_programs(), seed=st.integers(0, 2**16))
def test_generated_collectives_in_shard_map(tmp_path_factory, program, seed):
    mesh_text, spec, ops = program
    sizes = MESHES[mesh_text]
    shape = []
    for dim, entry in zip(BLOCK, spec + (None,) * (2 - len(spec))):
        axes = () if entry is None else (entry,) if isinstance(entry, str) else entry
        shape.append(dim * int(np.prod([sizes[a] for a in axes])))
    path = _write(tmp_path_factory, _program(ops, "x", "v"))
    devices = np.array(jax.devices()[:8]).reshape(list(sizes.values()))
    mesh = Mesh(devices, tuple(sizes), axis_types=(AxisType.Auto,) * len(sizes))
    f = _import(path).f
    fn = jax.jit(jax.shard_map(f, mesh=mesh, in_specs=(P(*spec),), out_specs=P(*spec)))
    abstract = [jax.ShapeDtypeStruct(tuple(shape), np.float32)]
    try:
        fn.trace(*abstract)
    except ValueError:  # JAX itself refuses the program (e.g. psum over a mix of
        assume(False)  # varying and invariant axes): nothing to compare
    target, _ = resolve_target(f"{path}:f")
    spec_text = _spec_text(spec)
    req = TraceRequest(target=target, args=f"f32[{shape[0]},{shape[1]}]", in_axes="None",
                       mesh=mesh_text, specs=spec_text, out_specs=spec_text, axis_name="a")
    stepped = step(StepRequest(req, variant="shard_map", seed=seed))
    check_against_real_run(stepped, fn, abstract, seed=seed)
    kinds = {s.primitive for s in stepped.result.steps}
    assert "shard_map" in kinds
