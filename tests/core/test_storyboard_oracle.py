"""The storyboard against JAX: collectives, tiles, holders and values, for every gallery example.

Each claim of the storyboard is checked against something jaxviz does not
compute: the collectives against the tests' own reader of the compiled HLO
text (tests/core/hlo_oracle.py), the tiles against ``devices_indices_map`` of
the real shardings, and the output tiles against the real run's per-device
shards.
"""

from __future__ import annotations

import jax
import numpy as np
import pytest

from jaxviz import core
from jaxviz.core import arguments
from jaxviz.core.trace import load
from jaxviz.model import TraceRequest, list_examples
from jaxviz.model.errors import format_error

from . import hlo_oracle
from .conftest import example_request

CASES = [(ex.name, v) for ex in list_examples() for v in ex.variants]


def compiled_program(req: TraceRequest, variant: str):
    """The variant's compiled program, built by the test with JAX (jit where JAX would)."""
    prepared = load(req).builder.prepare(variant)
    fn = prepared.fn if hasattr(prepared.fn, "lower") else jax.jit(prepared.fn)
    return prepared, fn.lower(*prepared.args).compile()


def oracle_collectives(compiled) -> list[hlo_oracle.Found]:
    devices = [d.id for d in compiled.runtime_executable().local_devices()]
    return hlo_oracle.read(compiled.as_text(), devices)


def assert_collectives_match(storyboard, found: list[hlo_oracle.Found]) -> None:
    steps = storyboard.collectives
    assert [s.collective.kind for s in steps] == [f.kind for f in found]
    for step, f in zip(steps, found):
        c = step.collective
        assert c.groups == f.groups, (c.kind, f.name)
        assert sorted(map(tuple, c.pairs)) == sorted(f.pairs), (c.kind, f.name)
        assert step.input_shapes == f.operands, (c.kind, f.name)
        assert step.output_shapes == f.results, (c.kind, f.name)
        if c.kind == "collective-permute":
            assert c.pairs
        else:
            assert c.groups and all(c.groups)


def index_holders(sharding, shape) -> dict[tuple, set[int]]:
    """Index ranges -> the devices holding them, straight from JAX."""
    out: dict[tuple, set[int]] = {}
    for device, index in sharding.devices_indices_map(tuple(shape)).items():
        key = tuple(tuple(sl.indices(n)[:2]) for sl, n in zip(index, shape))
        out.setdefault(key, set()).add(device.id)
    return out


def tile_holders(array_tiles) -> dict[tuple, set[int]]:
    return {tuple(tuple(r) for r in t.index): set(t.devices) for t in array_tiles.tiles}


def assert_outputs_assemble(storyboard, out) -> None:
    """Each output, put together from the real per-device shards at the storyboard's tiles."""
    leaves = jax.tree.leaves(out)
    outputs = storyboard.outputs
    assert len(outputs) == len(leaves)
    for tiles, real in zip(outputs, leaves):
        want = np.asarray(real)
        assert tiles.shape == list(want.shape)
        by_device = {s.device.id: np.asarray(s.data) for s in real.addressable_shards}
        assembled = np.full(want.shape, np.nan, dtype=np.float64)
        for tile in tiles.tiles:
            where = tuple(slice(a, b) for a, b in tile.index)
            pieces = [by_device[d] for d in tile.devices]
            for piece in pieces[1:]:  # a shared tile is the same on every holder
                np.testing.assert_array_equal(piece, pieces[0])
            assembled[where] = pieces[0]
        np.testing.assert_allclose(assembled, want, rtol=1e-6, atol=1e-6)


def check_variant(req: TraceRequest, variant: str, allow_user_error: bool = False):
    """Trace with jaxviz and check its storyboard against JAX; return the storyboard."""
    vr = core.trace_request(req).variant(variant)
    if allow_user_error and vr.error is not None and vr.error.kind == "trace":
        return None  # the function itself fails on per-shard operands: nothing to draw
    if allow_user_error and vr.error is not None and vr.error.field == "out_specs":
        # shard_map's per-device outputs differ across an axis no output dimension is
        # split along: no out_specs lays them out, and the message says so
        assert "--out-specs" in vr.error.message or "lax.psum" in vr.error.message
        return None
    assert vr.error is None, format_error(vr.error, debug=True)
    sb = vr.storyboard
    prepared, compiled = compiled_program(req, variant)
    assert_collectives_match(sb, oracle_collectives(compiled))
    in_shardings = jax.tree.leaves(compiled.input_shardings[0])
    assert len(sb.inputs) == len(in_shardings)
    for tiles, sharding in zip(sb.inputs, in_shardings):
        assert tile_holders(tiles) == index_holders(sharding, tiles.shape), tiles.name
    out = prepared.fn(*arguments.concrete(prepared.args))
    for tiles, real in zip(sb.outputs, jax.tree.leaves(out)):
        assert tile_holders(tiles) == index_holders(real.sharding, real.shape), tiles.name
        assert tiles.replicated == (real.sharding.is_fully_replicated and len(tiles.devices) > 1)
    assert_outputs_assemble(sb, out)
    return sb


@pytest.mark.parametrize("name, variant", CASES, ids=[f"{n}-{v}" for n, v in CASES])
def test_gallery_storyboard_equals_jax(name, variant):
    sb = check_variant(example_request(name, [variant], want=("jaxpr", "story")), variant)
    assert sb.variant == variant
    assert sb.steps, "every program has at least one step"


# --------------------------------------------------------------------------- #
# Generated cases: elementwise ops, reductions, matmuls with random specs
# --------------------------------------------------------------------------- #

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from jaxviz.model import Target  # noqa: E402

MESHES = {1: ["a=8"], 2: ["a=2,b=4", "a=4,b=2"], 3: ["a=2,b=2,c=2"]}

PROGRAMS = {
    # name: (source, arg shapes (rows, cols) symbolic)
    "elementwise": ("import jax.numpy as jnp\ndef f(x, y):\n    return jnp.sin(x) * y + 1.0\n",
                    ("m,n", "m,n")),
    "sum_rows": ("def f(x):\n    return x.sum(axis=0)\n", ("m,n",)),
    "max_cols": ("def f(x):\n    return x.max(axis=1)\n", ("m,n",)),
    "matmul": ("def f(x, w):\n    return x @ w\n", ("m,k", "k,n")),
    "matmul_tanh": ("import jax.numpy as jnp\n"
                    "def f(x, w):\n    return jnp.tanh(x @ w).sum(axis=1)\n",
                    ("m,k", "k,n")),
}


def _spec_entry(axes_left: list[str], draw) -> str | None:
    choice = draw(st.sampled_from(["none", "one", "two"] if len(axes_left) >= 2 else
                                  ["none", "one"] if axes_left else ["none"]))
    if choice == "none":
        return None
    picked = draw(st.permutations(axes_left))[:1 if choice == "one" else 2]
    for a in picked:
        axes_left.remove(a)
    return picked[0] if len(picked) == 1 else tuple(picked)


@st.composite
def sharded_case(draw):
    ndim = draw(st.sampled_from([1, 2, 3]))
    mesh = draw(st.sampled_from(MESHES[ndim]))
    names = [part.split("=")[0] for part in mesh.split(",")]
    program = draw(st.sampled_from(sorted(PROGRAMS)))
    source, shapes = PROGRAMS[program]
    sizes = {d: draw(st.sampled_from([8, 16])) for d in "mkn"}
    batch = draw(st.sampled_from([None, 8]))
    args, specs = [], []
    for shape in shapes:
        dims = [sizes[d] for d in shape.split(",")]
        args.append("f32[" + ",".join(map(str, dims)) + "]")
        left = list(names)
        entries = [_spec_entry(left, draw) for _ in range(len(dims) + (batch is not None))]
        specs.append("P(" + ", ".join(repr(e) for e in entries) + ")")
    variant = draw(st.sampled_from(["sharded", "sharded", "shard_map"]))
    if variant == "shard_map" and program == "elementwise":
        specs[1] = specs[0]  # per-shard operands must have the same shape
    return dict(source=source, args=", ".join(args), specs=", ".join(specs), mesh=mesh,
                batch=batch, in_axes=", ".join(["0"] * len(shapes)) if batch else
                ", ".join(["None"] * len(shapes)), variant=variant)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sharded_case())
def test_generated_storyboard_equals_jax(case):
    req = TraceRequest(target=Target(case["source"], "<generated:f.py>", "f"),
                       variants=[case["variant"]], want=["jaxpr", "story"], args=case["args"],
                       in_axes=case["in_axes"], batch=case["batch"], mesh=case["mesh"],
                       specs=case["specs"])
    check_variant(req, case["variant"], allow_user_error=case["variant"] == "shard_map")
