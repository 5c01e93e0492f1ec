"""The storyboard on the cases issue 11 found wrong, and on what only a real run can confirm."""

from __future__ import annotations

import itertools
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.sharding import AxisType, Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

from jaxviz import core
from jaxviz.core import arguments, storyboard, trace
from jaxviz.model import Target, TraceRequest, VariantResult
from jaxviz.model.records import walk_equations
from tests.helpers.jax_requests import example_request
from tests.helpers.storyboard_oracle import (
    assert_collectives_match,
    check_variant,
    oracle_collectives,
)

# Not in the fast tier: every gallery example (or the corpus) through JAX.
pytestmark = pytest.mark.slow

MATMUL = "import jax.numpy as jnp\ndef f(x, w):\n    return x @ w\n"


def matmul_request(**overrides) -> TraceRequest:
    fields = dict(args="f32[16,64], f32[64,32]", in_axes="None, None", mesh="data=4,model=2",
                  specs="P('data','model'), P(None,'model')")
    fields.update(overrides)
    return TraceRequest(target=Target(MATMUL, "<editor:f.py>", "f"), variants=["sharded"],
                        want=["jaxpr", "story"], **fields)


def test_the_all_gather_comes_before_the_dot_with_real_groups_and_shapes():
    sb = check_variant(matmul_request(), "sharded")
    kinds = [(s.kind, s.collective.kind if s.collective else s.primitives) for s in sb.steps]
    assert kinds == [("collective", "all-gather"), ("compute", ["dot_general"])]
    gather, dot = sb.steps
    c = gather.collective
    assert [set(g) for g in c.groups] == [{0, 1}, {2, 3}, {4, 5}, {6, 7}]
    assert c.mesh_axes == ["model"] and c.dimensions == [1]
    assert gather.input_shapes == ["f32[4,32]"] and gather.output_shapes == ["f32[4,64]"]
    assert dot.input_shapes == ["f32[4,64]", "f32[64,16]"]
    assert dot.output_shapes == ["f32[4,16]"]
    assert sb.outputs[0].tile_shape == [4, 16]
    assert c.origin == "partitioner"
    assert "contracted dimension 1 of x is split over 'model'" in c.why
    assert "dimension 0 of w is not split" in c.why
    assert gather.source_lines == [3] and dot.source_lines == [3]


def test_with_a_batch_the_permute_comes_first_and_names_its_pairs():
    sb = check_variant(matmul_request(in_axes="0, 1", batch=8), "sharded")
    kinds = [s.collective.kind for s in sb.collectives]
    assert kinds == ["collective-permute", "all-gather"]
    permute, gather = sb.collectives
    pairs = permute.collective.pairs
    assert pairs and all(0 <= a < 8 and 0 <= b < 8 for a, b in pairs)
    assert sorted(a for a, _ in pairs) == sorted({a for a, _ in pairs})  # one target each
    assert gather.collective.groups and all(gather.collective.groups)
    assert all(s.collective.origin == "partitioner" and s.collective.why
               for s in sb.collectives)


def test_shared_tiles_are_one_tile_with_every_holder():
    sb = check_variant(example_request("tensor_parallel", ["sharded"], want=("jaxpr", "story")),
                       "sharded")
    x, w = sb.inputs
    assert [t.devices for t in x.tiles] == [[0, 1], [2, 3], [4, 5], [6, 7]]
    assert x.split_by == [["data"], []] and x.tile_shape == [4, 64] and not x.replicated
    assert [t.devices for t in w.tiles] == [[0, 2, 4, 6], [1, 3, 5, 7]]
    assert w.split_by == [[], ["model"]]
    out = sb.outputs[0]
    assert len(out.tiles) == 8 and all(len(t.devices) == 1 for t in out.tiles)
    assert out.split_by == [["data"], ["model"]]


def test_the_storyboard_survives_json():
    import json

    from jaxviz.model import from_plain, to_plain

    vr = core.trace_request(matmul_request(in_axes="0, 1", batch=8)).variant("sharded")
    again = from_plain(json.loads(json.dumps(to_plain(vr))))
    assert again.storyboard == vr.storyboard and again.storyboard.collectives


def test_replicated_parameters_say_so():
    sb = check_variant(example_request("mlp_predict", ["pmap"], want=("jaxpr", "story")),
                       "pmap")
    params = [a for a in sb.inputs if a.name.startswith("params")]
    assert len(params) == 4
    for a in params:
        assert a.replicated and a.split_by == [[] for _ in a.shape]
        assert [t.devices for t in a.tiles] == [list(range(8))]


def test_combined_psums_are_one_all_reduce_with_both_equations():
    req = example_request("data_parallel", ["pmap"], want=("jaxpr", "story"))
    vr = core.trace_request(req).variant("pmap")
    (step,) = vr.storyboard.collectives
    eqs = list(walk_equations(vr.equations))
    assert [eqs[i].primitive for i in step.equations] == ["psum", "psum"]
    assert len(step.input_shapes) == 2  # one all-reduce of a tuple of two values
    assert step.collective.origin == "jaxpr" and step.collective.mesh_axes == ["batch"]
    source = Path(req.target.filename).read_text().splitlines()
    assert "pmean" in source[step.source_lines[0] - 1]


def test_vmap_collectives_need_no_exchange_and_run_op_by_op():
    vr = core.trace_request(example_request("normalize", ["vmap"], want=("jaxpr", "story"))
                            ).variant("vmap")
    sb = vr.storyboard
    assert not sb.one_program and not sb.collectives and sb.devices == [sb.devices[0]]
    assert any("op by op" in n for n in sb.notes)
    assert any(n.startswith("psum (line") and "no exchange" in n for n in sb.notes)


def test_vmap_batch_and_the_loop_that_could_replace_it():
    """A loop of calls on one example each is possible exactly when JAX can trace one call."""
    from jaxviz.core.loader import find_function, load_namespace

    for name, possible in (("convolve", True), ("normalize", False), ("psum_ones", False),
                           ("data_parallel", False), ("mlp_predict", True)):
        req = example_request(name, ["vmap"], want=("jaxpr", "story"))
        vr = core.trace_request(req).variant("vmap")
        batch = vr.storyboard.batch
        prepared = core.trace.load(req).builder.prepare("vmap")
        args = arguments.concrete(prepared.args)
        in_axes = core.trace.load(req).settings.in_axes
        assert batch.size == 8 and len(batch.in_axes) == len(vr.storyboard.inputs)
        leaves = [ax for a, ax in zip(args, in_axes) for _ in jax.tree.leaves(a)]
        assert batch.in_axes == leaves
        fn = find_function(load_namespace(req.target), req.target)
        examples = [[a if ax is None else jax.tree.map(lambda v, k=k, ax=ax: jnp.take(v, k, ax), a)
                     for a, ax in zip(args, in_axes)] for k in range(batch.size)]
        if possible:  # the loop runs and computes what vmap computes
            assert batch.loop_blocker == ""
            looped = [jax.jit(fn)(*example) for example in examples]
            stacked = jax.tree.map(lambda *xs: jnp.stack(xs), *looped)
            want = prepared.fn(*args)
            for a, b in zip(jax.tree.leaves(stacked), jax.tree.leaves(want)):
                # float32 sums in another order (one example vs the batched dot)
                np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
        else:  # one call on one example is refused by JAX, and the storyboard says why
            with pytest.raises(NameError, match="unbound axis name"):
                fn(*examples[0])
            assert "unbound axis name" in batch.loop_blocker and "psum" in batch.loop_blocker
    pmap = core.trace_request(example_request("convolve", ["pmap"], want=("jaxpr", "story")))
    assert pmap.variant("pmap").storyboard.batch is None


LOOPS = """\
import jax.numpy as jnp
from jax import lax

def f(x):
    def step(i, c):
        return c * 0.5 + lax.psum(c, 'i')
    y = lax.fori_loop(0, 3, step, x)
    total = lax.psum(y, 'i').sum()  # the same on every device: a safe predicate
    return lax.cond(total > 0, lambda v: v + lax.pmax(v, 'i'), lambda v: v, y)
"""


@pytest.mark.parametrize("variant", ["pmap", "shard_map"])
def test_collectives_inside_loops_and_branches_appear_in_order(variant):
    req = TraceRequest(target=Target(LOOPS, "<editor:loops.py>", "f"), variants=[variant],
                       want=["jaxpr", "story"], args="f32[4]", batched_args="jnp.ones((8, 4))",
                       axis_name="i")
    sb = check_variant(req, variant)
    psum, total, pmax = sb.collectives
    assert [(w.kind, w.part, w.trip_count) for w in psum.within] == [("while", "body", 3)]
    assert psum.collective.reduction == "sum" and psum.source_lines == [6]
    assert total.within == [] and total.source_lines == [8]
    # pmap runs a real conditional; the shard_map variant vmaps f over each device's
    # rows, which turns the cond into a select: the pmax then always runs.
    branch = [("conditional", "branch 1")] if variant == "pmap" else []
    assert [(w.kind, w.part) for w in pmax.within] == branch
    assert pmax.collective.reduction == "max" and pmax.source_lines == [9]


def storyboard_of(fn, *args):
    """Trace and build a storyboard straight from a jitted function (any device order)."""
    closed = jax.make_jaxpr(fn)(*args)
    vr = VariantResult("sharded")
    trace.describe_jaxpr(vr, closed, __file__)
    compiled = fn.lower(*args).compile()
    names = [f"arg{i}" for i in range(len(closed.in_avals))]
    outs = [f"out{i}" for i in range(len(closed.out_avals))]
    sb = storyboard.build(vr, compiled, list(closed.in_avals), list(closed.out_avals), names,
                          outs, __file__)
    return sb, compiled


def test_device_ids_follow_the_executables_device_assignment():
    order = [3, 1, 7, 5, 0, 2, 4, 6]
    mesh = Mesh(np.array(jax.devices())[order].reshape(4, 2), ("data", "model"),
                axis_types=(AxisType.Auto,) * 2)
    fn = jax.jit(lambda x: x @ x.T, in_shardings=NamedSharding(mesh, P("data", "model")))
    sb, compiled = storyboard_of(fn, jnp.arange(64.0).reshape(8, 8))
    assert sb.devices == order
    assert_collectives_match(sb, oracle_collectives(compiled))
    by_axis = {s.collective.kind: s.collective.mesh_axes for s in sb.collectives}
    assert by_axis == {"all-gather": ["data"], "all-reduce": ["model"]}
    rows = {frozenset(g) for g in ([[3, 7, 0, 4], [1, 5, 2, 6]])}  # mesh columns
    gather = next(s for s in sb.collectives if s.collective.kind == "all-gather")
    assert {frozenset(g) for g in gather.collective.groups} == rows


RESHARD_MESHES = [((8,), ("a",)), ((2, 4), ("a", "b")), ((4, 2), ("a", "b")),
                  ((2, 2, 2), ("a", "b", "c"))]


def _specs(names):
    single = [None, *names]
    pairs = [p for p in itertools.permutations(names, 2)]
    for d0, d1 in itertools.product(single + pairs, repeat=2):
        used0 = () if d0 is None else (d0,) if isinstance(d0, str) else d0
        used1 = () if d1 is None else (d1,) if isinstance(d1, str) else d1
        if not set(used0) & set(used1):
            yield P(d0, d1)


STRIDE = 7  # every 7th (source, target) spec pair: ~400 programs compiled in ~15 s


def test_all_gather_groups_move_the_real_data():
    """Replay every resharding that XLA does with one all-gather, from the real shards."""
    replayed, forms = 0, set()
    x = jnp.arange(16 * 16, dtype=jnp.float32).reshape(16, 16)
    for shape, names in RESHARD_MESHES:
        mesh = jax.make_mesh(shape, names, axis_types=(AxisType.Auto,) * len(names))
        specs = list(_specs(names))
        for src, dst in itertools.islice(itertools.product(specs, specs), 0, None, STRIDE):
            fn = jax.jit(lambda v: v, in_shardings=NamedSharding(mesh, src),
                         out_shardings=NamedSharding(mesh, dst))
            sb, compiled = storyboard_of(fn, x)
            steps = sb.collectives
            if [s.collective.kind for s in steps] != ["all-gather"]:
                continue
            (gather,) = steps
            assert_collectives_match(sb, oracle_collectives(compiled))
            if (gather.input_shapes != [sb.inputs[0].tile_type_str]
                    or gather.output_shapes != [sb.outputs[0].tile_type_str]):
                continue  # a transposed view goes in, or a slice of it comes out
            line = compiled.as_text().split("all-gather(")[1].split("\n")[0]
            forms.add("mesh" if "replica_groups=mesh" in line else
                      "iota" if "<=[" in line else "explicit")
            forms.update({"device order"} if "device_ids=(" in line else set())
            forms.update({"sub-axis"} if "':(" in line else set())
            shards_in = {s.device.id: np.asarray(s.data)
                         for s in jax.device_put(x, NamedSharding(mesh, src)).addressable_shards}
            shards_out = {s.device.id: np.asarray(s.data) for s in fn(x).addressable_shards}
            (dim,) = gather.collective.dimensions
            for group in gather.collective.groups:
                joined = np.concatenate([shards_in[d] for d in group], axis=dim)
                for d in group:
                    np.testing.assert_array_equal(joined, shards_out[d])
            replayed += 1
    print(f"replayed {replayed} all-gathers, replica-group forms {sorted(forms)}")
    assert replayed >= 10, replayed
    assert {"mesh", "iota"} <= forms, forms


@pytest.mark.parametrize("name", ["convolve", "data_parallel", "mlp_predict", "normalize"])
def test_every_equation_belongs_to_a_step(name):
    """Each equation without nested jaxprs is in some step; step facts come from its equations."""
    req = example_request(name, want=("jaxpr", "story"))
    for vr in core.trace_request(req).variants:
        eqs = list(walk_equations(vr.equations))
        leaves = {i for i, e in enumerate(eqs) if not e.subjaxprs}
        sb = vr.storyboard
        covered = {i for s in sb.steps for i in s.equations}
        assert covered <= leaves | {i for i, e in enumerate(eqs) if e.subjaxprs}
        if any(s.kind == "compute" for s in sb.steps):
            assert leaves <= covered, (vr.variant, sorted(leaves - covered))
        for s in sb.steps:
            assert s.primitives == list(dict.fromkeys(eqs[i].primitive for i in s.equations))
            lines = {eqs[i].source.line for i in s.equations if eqs[i].source}
            assert set(s.source_lines) <= lines
