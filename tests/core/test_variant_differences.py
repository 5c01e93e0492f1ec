"""Where variants compute something different, and the notes that say so, against JAX itself
(first found in issue 12):

1. data_parallel under shard_map took a step 8x too large, silently.
2. normalize with 16 examples on 8 devices under pmap normalises over 8 values.
3. Sentences that were not true (the program's collectives, the docstrings).
4. shard_map's out_specs were inferred by compiling outside the shard_map, so a
   collective over a mesh axis broke them; --batched-args was ignored with
   in_axes None.
(5., call texts that are not Python, is tests/core/test_call_code.py.)
"""

from __future__ import annotations

import re
from collections import Counter

import jax
import jax.extend
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax
from jax.sharding import AxisType, NamedSharding
from jax.sharding import PartitionSpec as P

from jaxviz import core
from jaxviz.core import arguments
from jaxviz.core.trace import load
from jaxviz.model import TraceRequest, get_example
from jaxviz.model.errors import format_error
from jaxviz.model.sources import resolve_target
from jaxviz.views.window.window_state import find_field_errors
from tests.helpers.jax_requests import example_request, import_file

# Not in the fast tier: every gallery example (or the corpus) through JAX.
pytestmark = pytest.mark.slow

ISSUE_ARGS = ("(jnp.ones(4), jnp.float32(0.)), "
              "jnp.arange(8*32*4, dtype=jnp.float32).reshape(8,32,4)/1000., jnp.ones((8,32))")


def run_variant(req: TraceRequest, variant: str):
    """jaxviz's variant, run once on its own arguments; and its trace result."""
    vr = core.trace_request(req).variant(variant)
    assert vr.error is None, format_error(vr.error, debug=True)
    prepared = load(req).builder.prepare(variant)
    return prepared.fn(*arguments.concrete(prepared.args)), vr


def line_with(source: str, text: str) -> int:
    """The 1-based number of the first source line containing ``text``."""
    return 1 + next(i for i, line in enumerate(source.splitlines()) if text in line)


def eqns(jaxpr):
    for eqn in jaxpr.eqns:
        yield eqn
        for sub in jax.extend.core.jaxprs_in_params(eqn.params):
            yield from eqns(sub)


# --------------------------------------------------------------------------- #
# 1. data parallelism
# --------------------------------------------------------------------------- #


def data_parallel_module():
    return import_file(get_example("data_parallel").path)


def one_device_step():
    """One SGD step on the whole batch, on one device: what every variant must compute."""
    m = data_parallel_module()
    params = (jnp.ones(4), jnp.float32(0.))
    x = jnp.arange(8 * 32 * 4, dtype=jnp.float32).reshape(8, 32, 4) / 1000.
    y = jnp.ones((8, 32))
    grads = jax.grad(m.loss)(params, x.reshape(-1, 4), y.reshape(-1))
    return jax.tree.map(lambda p, g: p - 0.1 * g, params, grads)


@pytest.mark.parametrize("variant", ["vmap", "pmap", "shard_map"])
def test_data_parallel_every_variant_takes_the_mean_step(variant):
    want_w, want_b = one_device_step()
    (w, b), vr = run_variant(example_request("data_parallel", [variant],
                                             batched_args=ISSUE_ARGS), variant)
    np.testing.assert_allclose(np.asarray(b), np.full(8, want_b), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(w), np.tile(want_w, (8, 1)), rtol=1e-5)
    assert round(float(b[0]), 4) == -0.2092  # the issue's pmap figure
    assert not [n for n in vr.notes if n.differs]


def test_data_parallel_with_check_vma_sums_and_says_so():
    req = example_request("data_parallel", ["shard_map"], batched_args=ISSUE_ARGS,
                          check_vma=True, want=("jaxpr", "value"))
    (_, b), vr = run_variant(req, "shard_map")
    want_w, want_b = one_device_step()
    # the step uses the sum of the 8 devices' gradients: 8 x the mean step's change
    np.testing.assert_allclose(np.asarray(b), np.full(8, 8 * want_b), rtol=1e-5)
    [note] = [n for n in vr.notes if n.differs]
    assert note.kind == "reduced_twice"
    assert "jax.grad" in note.text and "'batch'" in note.text
    assert "2 psum_invariant in the backward pass" in note.text
    pmean_line = line_with(req.target.source, "lax.pmean(grads")
    assert f"pmean over 'batch' (line {pmean_line})" in note.text
    assert "not their mean" in note.text and "8 equal copies" in note.text


def test_data_parallel_programs_match_what_the_explanation_says():
    """check_vma=True: psum_invariant from jax.grad (backward pass) and from the pmean;
    check_vma=False (pmap's way): one psum per gradient leaf, nothing invariant."""
    m = data_parallel_module()
    mesh = jax.make_mesh((8,), ("batch",), axis_types=(AxisType.Auto,))
    params = (jnp.ones(4), jnp.float32(0.))
    x, y = jnp.ones((8, 32, 4)), jnp.ones((8, 32))
    counts = {}
    for vma in (True, False):
        smap = jax.shard_map(jax.vmap(m.train_step, in_axes=(None, 0, 0)), mesh=mesh,
                             in_specs=(P(), P("batch"), P("batch")), out_specs=P("batch"),
                             check_vma=vma)
        closed = jax.make_jaxpr(smap)(params, x, y)
        counts[vma] = Counter(e.primitive.name for e in eqns(closed.jaxpr))
        backward = [e for e in eqns(closed.jaxpr) if e.primitive.name == "psum_invariant"
                    and "transpose" in str(e.source_info.name_stack)]
        if vma:
            assert len(backward) == len(jax.tree.leaves(params))
        req = example_request("data_parallel", ["shard_map"], check_vma=vma)
        vr = core.trace_request(req).variant("shard_map")
        shardings = tuple(NamedSharding(mesh, s) for s in (P(), P("batch"), P("batch")))
        jitted = jax.jit(smap, in_shardings=shardings)
        args = [(jax.ShapeDtypeStruct((4,), jnp.float32), jax.ShapeDtypeStruct((), jnp.float32)),
                jax.ShapeDtypeStruct((8, 32, 4), jnp.float32),
                jax.ShapeDtypeStruct((8, 32), jnp.float32)]
        assert vr.jaxpr_text == str(jax.make_jaxpr(jitted)(*args))
    assert counts[True]["psum_invariant"] == 4 and counts[True]["psum"] == 0
    assert counts[False]["psum"] == len(jax.tree.leaves(params))
    assert counts[False]["psum_invariant"] == 0 and counts[False]["pvary"] == 0
    explanation = get_example("data_parallel").explanation
    assert "one `psum` per gradient" in explanation and "check_vma=True" in explanation


def test_data_parallel_advice_for_check_vma_true_takes_the_mean_step():
    """The explanation's advice: under check_vma=True, differentiate the pmean of the loss."""
    m = data_parallel_module()

    def train_step(params, x, y):
        grads = jax.grad(lambda p: lax.pmean(m.loss(p, x, y), "batch"))(params)
        return jax.tree.map(lambda p, g: p - 0.1 * g, params, grads)

    mesh = jax.make_mesh((8,), ("batch",), axis_types=(AxisType.Auto,))
    smap = jax.shard_map(jax.vmap(train_step, in_axes=(None, 0, 0)), mesh=mesh,
                         in_specs=(P(), P("batch"), P("batch")), out_specs=P("batch"))
    params = (jnp.ones(4), jnp.float32(0.))
    x = jnp.arange(8 * 32 * 4, dtype=jnp.float32).reshape(8, 32, 4) / 1000.
    _, b = jax.jit(smap)(params, x, jnp.ones((8, 32)))
    np.testing.assert_allclose(np.asarray(b), np.full(8, one_device_step()[1]), rtol=1e-5)


# --------------------------------------------------------------------------- #
# 2. normalize, 16 examples on 8 devices
# --------------------------------------------------------------------------- #


def test_normalize_16_examples_pmap_says_it_normalises_per_device():
    req16 = {"batched_args": "jnp.arange(16.)"}
    out, vr = run_variant(example_request("normalize", ["pmap"], **req16), "pmap")
    values = np.asarray(out).reshape(16)
    x = np.arange(16.)
    # what pmap(vmap(f)) computes: each position normalised over the 8 devices
    np.testing.assert_allclose(values.reshape(8, 2), (x.reshape(8, 2) / x.reshape(8, 2).sum(0)),
                               rtol=1e-6)
    assert abs(values.sum() - 1) > 0.5
    for variant in ("vmap", "sharded"):
        other, ovr = run_variant(example_request("normalize", [variant], **req16), variant)
        np.testing.assert_allclose(np.asarray(other).sum(), 1.0, rtol=1e-6)
        assert not [n for n in ovr.notes if n.differs]
    [note] = [n for n in vr.notes if n.differs]
    assert note.kind == "per_device_collective"
    psum_line = line_with(example_request("normalize").target.source, "return x / lax.psum(")
    assert (f"pmap(vmap(normalize)) with 2 examples per device: psum over 'p' (line {psum_line}) "
            f"sums 8 values per position, not 16") in note.text


# --------------------------------------------------------------------------- #
# 3. sentences that were not true
# --------------------------------------------------------------------------- #


def test_the_collectives_note_counts_what_the_programs_have():
    """data_parallel under pmap: 2 psum in the jaxpr, XLA's compiled program has fewer
    all-reduces (it combines them). Counted here with make_jaxpr and a regex on the HLO."""
    req = example_request("data_parallel", ["pmap"], want=("jaxpr", "hlo"))
    vr = core.trace_request(req).variant("pmap")
    m = data_parallel_module()
    params = (jnp.ones(4), jnp.float32(0.))
    f = jax.pmap(m.train_step, in_axes=(None, 0, 0), axis_name="batch")
    x, y = jnp.ones((8, 32, 4)), jnp.ones((8, 32))
    psums = sum(e.primitive.name == "psum" for e in eqns(jax.make_jaxpr(f)(params, x, y).jaxpr))
    hlo = f.lower(params, x, y).compile().as_text()
    all_reduces = len(re.findall(r"\sall-reduce(?:-start)?\(", hlo))
    [note] = [n for n in vr.notes if n.kind == "collectives"]
    assert note.text.startswith(f"the jaxpr has {psums} psum; the compiled program runs "
                                f"{all_reduces} all-reduce")
    assert psums == 2
    assert all_reduces == 1
    assert "(XLA combined 2 jaxpr collectives into 1 op)" in note.text


def test_collectives_the_partitioner_combined_are_not_called_the_jaxprs():
    """A data-parallel gradient of two weights: the jaxpr has no collective, XLA's SPMD
    partitioner inserts an all-reduce per gradient and its combiner makes them one op on
    a tuple (read from the compiled HLO here); they were called "2 jaxpr collectives"."""
    from jax.sharding import NamedSharding
    from jax.sharding import PartitionSpec as P

    from jaxviz.core.variant_notes import collectives_note

    mesh = jax.make_mesh((8,), ("data",))
    rep, rows = NamedSharding(mesh, P()), NamedSharding(mesh, P("data"))

    def loss(w, b, x):
        return jnp.sum((x @ w + b) ** 2)

    f = jax.jit(jax.grad(loss, argnums=(0, 1)), in_shardings=(rep, rep, rows))
    args = (jnp.ones((4, 3)), jnp.ones(3), jnp.ones((16, 4)))
    hlo = f.lower(*args).compile().as_text()
    tuples = re.findall(r"= \([^)]*\) all-reduce(?:-start)?\(", hlo)
    assert len(tuples) == 1 and len(re.findall(r"\sall-reduce(?:-start)?\(", hlo)) == 1
    assert not [e for e in eqns(jax.make_jaxpr(f)(*args).jaxpr) if "psum" in e.primitive.name]
    note = collectives_note(jax.make_jaxpr(f)(*args), hlo)
    assert note is not None
    assert note.text == ("the jaxpr has no collective; the compiled program runs 1 all-reduce "
                         "(inserted by XLA's SPMD partitioner; XLA combined 2 collectives "
                         "into 1 op)")


def test_an_all_to_all_on_a_tuple_is_one_collective_not_a_combination():
    """Resharding rows to columns: XLA's all-to-all takes one operand per device's chunk
    (a tuple of 8), which is one all-to-all -- it was called "8 collectives combined"."""
    from jax.sharding import AxisType, NamedSharding
    from jax.sharding import PartitionSpec as P

    from jaxviz.core.variant_notes import collectives_note

    mesh = jax.make_mesh((8,), ("x",), axis_types=(AxisType.Auto,))
    f = jax.jit(lambda x: x * 2, in_shardings=NamedSharding(mesh, P("x", None)),
                out_shardings=NamedSharding(mesh, P(None, "x")))
    x = jnp.ones((64, 64))
    hlo = f.lower(x).compile().as_text()
    [line] = [ln for ln in hlo.splitlines() if re.search(r"\sall-to-all(?:-start)?\(", ln)]
    assert line.count("f32[8,1,8]") == 8  # one operand per device's chunk
    note = collectives_note(jax.make_jaxpr(f)(x), hlo)
    assert note is not None and "combined" not in note.text
    assert note.text == ("the jaxpr has no collective; the compiled program runs 1 all-to-all "
                         "(inserted by XLA's SPMD partitioner)")


def test_a_collective_inside_a_loop_is_said_to_run_once_per_iteration():
    """A ring pass written with shard_map and fori_loop: its one ppermute is inside the
    jaxpr's while loop, and so is the compiled collective-permute."""
    from jax.sharding import AxisType
    from jax.sharding import PartitionSpec as P

    from jaxviz.core.variant_notes import collectives_note

    mesh = jax.make_mesh((8,), ("x",), axis_types=(AxisType.Auto,))
    perm = [(i, (i + 1) % 8) for i in range(8)]

    def ring(block):
        def body(i, carry):
            acc, cur = carry
            cur = jax.lax.ppermute(cur, "x", perm)
            return acc + cur, cur
        return jax.lax.fori_loop(0, 7, body, (block, block))[0]

    f = jax.jit(jax.shard_map(ring, mesh=mesh, in_specs=P("x"), out_specs=P("x")))
    x = jnp.ones((64, 16))
    closed = jax.make_jaxpr(f)(x)
    # (fori_loop with static bounds is a scan)
    [loop] = [e for e in eqns(closed.jaxpr) if e.primitive.name in ("while", "scan")]
    assert [e for sub in jax.extend.core.jaxprs_in_params(loop.params) for e in eqns(sub)
            if e.primitive.name == "ppermute"]
    note = collectives_note(closed, f.lower(x).compile().as_text())
    assert note is not None
    assert note.text == ("the jaxpr has 1 ppermute; the compiled program runs 1 "
                         "collective-permute (inside a loop, once per iteration)")


@pytest.mark.parametrize("name, untrue", [
    ("async_dispatch", "stays flat"), ("jit_composition", "smooth step"),
    ("data_parallel", "one collective in the jaxpr"),
    ("data_parallel", "psum averages them"),
])
def test_untrue_sentences_are_gone(name, untrue):
    ex = get_example(name)
    assert untrue not in f"{ex.title}\n{ex.explanation}"


def test_selu_is_described_as_what_it_is():
    m = import_file(get_example("jit_composition").path)
    x = jnp.array([-1.0, 2.0])
    lmbda, alpha = 1.05, 1.67
    # what the explanation says it is: lmbda * x above zero, lmbda * alpha * (exp(x) - 1) below
    np.testing.assert_allclose(np.asarray(m.selu(x)),
                               [lmbda * alpha * (np.exp(-1.0) - 1), lmbda * 2.0], rtol=1e-6)
    text = " ".join(get_example("jit_composition").explanation.split())
    assert "scaled exponential linear unit" in text
    assert "`lmbda * x` for positive `x`, `lmbda * alpha * (exp(x) - 1)` otherwise" in text


# --------------------------------------------------------------------------- #
# 4. shard_map out_specs, and batched arguments that would be ignored
# --------------------------------------------------------------------------- #


TENSOR_PSUM = "from jax import lax\n\ndef layer(x, w):\n    return lax.psum(x @ w, 'model')\n"


def test_shard_map_with_a_collective_over_a_mesh_axis(user_file):
    """The issue's command: specs P('data','model'), P('model',None) on data=4,model=2."""
    target, _ = resolve_target(user_file(TENSOR_PSUM, "layer"))
    req = TraceRequest(target=target, args="f32[16,64], f32[64,32]", variants=["shard_map"],
                       in_axes="None, None", mesh="data=4,model=2",
                       specs="P('data','model'), P('model',None)", want=["jaxpr", "value"])
    out, vr = run_variant(req, "shard_map")
    assert "out_specs=P('data')" in vr.call
    x, w = arguments.concrete(load(req).single)
    np.testing.assert_allclose(np.asarray(out), np.asarray(x) @ np.asarray(w), rtol=1e-4,
                               atol=1e-4)
    # the same out_specs in the jaxpr JAX prints
    assert "out_specs=(P('data',),)" in vr.jaxpr_text


def test_impossible_out_specs_say_what_to_give(user_file):
    target, _ = resolve_target(user_file("def f(x):\n    return x.max(axis=1)\n", "f"))
    req = TraceRequest(target=target, args="f32[8,8]", variants=["shard_map"], in_axes="None",
                       mesh="i=8", specs="P(None, 'i')")
    vr = core.trace_request(req).variant("shard_map")
    assert vr.error is not None and vr.error.field == "out_specs"
    assert "differs across mesh axis 'i'" in vr.error.message
    assert '--out-specs "' in vr.error.message
    # what the message proposes works
    given = re.search(r'--out-specs "([^"]+)"', vr.error.message).group(1)
    req.out_specs = given
    assert core.trace_request(req).variant("shard_map").error is None


def test_batched_args_with_every_in_axes_none_is_refused():
    req = example_request("tensor_parallel", ["sharded"], batched_args="f32[8,16,64], f32[64,32]")
    result = core.trace_request(req)
    assert result.error is not None and result.error.field == "batched_args"
    assert "would be ignored" in result.error.message
    errors = find_field_errors({"args": "f32[3]", "batched_args": "f32[8,3]",
                                "in_axes": "None"}, 8)
    assert "would be ignored" in errors["batched_args"][0]
