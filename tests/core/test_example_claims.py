"""What each gallery example's explanation claims, checked against JAX 0.10 itself.

Issue 12: every caption and docstring claim is computed or reviewed against
JAX's behaviour in this version. The claims that depend on the program are
checked here, each next to the sentence that makes it (the test fails if the
sentence goes, so a rewrite has to bring its check along). Built from the
example's file with JAX's API alone; the HLO is read with a regular expression
written here.
"""

from __future__ import annotations

import re

import jax
import jax.extend
import jax.numpy as jnp
import numpy as np
import pytest
from jax.sharding import AxisType, NamedSharding
from jax.sharding import PartitionSpec as P

from jaxviz.model import get_example
from tests.helpers.jax_requests import import_file

# Not in the fast tier: every gallery example (or the corpus) through JAX.
pytestmark = pytest.mark.slow

COLLECTIVE = re.compile(
    r"\s(all-reduce|all-gather|reduce-scatter|all-to-all|collective-permute)(?:-start)?\(")


def said(name: str, sentence: str) -> None:
    """The example's explanation says ``sentence`` (whitespace-insensitive)."""
    text = " ".join(get_example(name).explanation.split())
    assert " ".join(sentence.split()) in text, f"{name} no longer says {sentence!r}"


def module(name: str):
    return import_file(get_example(name).path)


def eqns(jaxpr):
    for eqn in jaxpr.eqns:
        yield eqn
        for sub in jax.extend.core.jaxprs_in_params(eqn.params):
            yield from eqns(sub)


def mesh_8(name: str):
    return jax.make_mesh((8,), (name,), axis_types=(AxisType.Auto,))


def test_convolve_vmap_batches_each_equation_and_pmap_wraps_a_shard_map():
    said("convolve", "vmap adds a batch dimension to each equation, pmap wraps the whole "
                     "body in a shard_map over the devices")
    m = module("convolve")
    xs, ws = jnp.ones((8, 5)), jnp.ones((8, 3))
    vmapped = jax.make_jaxpr(jax.vmap(m.convolve))(xs, ws).jaxpr
    # every equation that computes on the arguments carries the batch of 8 in front
    batched = [e for e in vmapped.eqns if e.primitive.name in ("dot_general", "slice")]
    assert batched and all(e.outvars[0].aval.shape[0] == 8 for e in batched)
    pmapped = jax.make_jaxpr(jax.pmap(m.convolve, axis_name="i"))(xs, ws).jaxpr
    names = [e.primitive.name for e in eqns(pmapped)]
    assert "shard_map" in names
    body = next(e for e in eqns(pmapped) if e.primitive.name == "shard_map")
    inner = {e.primitive.name for e in eqns(body.params["jaxpr"])}
    assert {"dot_general", "slice"} <= inner  # the whole body is inside it


def test_mlp_predict_matrix_vector_products_become_matrix_matrix():
    said("mlp_predict", "The matrix-vector products in the plain jaxpr become matrix-matrix "
                        "products in the vmap jaxpr")
    m = module("mlp_predict")
    params = m.init_params(jax.random.key(0))
    image = jnp.ones(784)

    def ranks(closed):
        return [tuple(v.aval.ndim for v in e.invars)
                for e in eqns(closed.jaxpr) if e.primitive.name == "dot_general"]

    plain = ranks(jax.make_jaxpr(m.predict)(params, image))
    batched = ranks(jax.make_jaxpr(jax.vmap(m.predict, in_axes=(None, 0)))(
        params, jnp.ones((8, 784))))
    assert plain == [(1, 2), (1, 2)]
    assert batched == [(2, 2), (2, 2)]


def test_tensor_parallel_output_is_sharded_over_both_axes_with_no_communication():
    said("tensor_parallel", "the output comes out sharded over both axes, `P('data', "
                            "'model')`, with no communication at all")
    m = module("tensor_parallel")
    mesh = jax.make_mesh((4, 2), ("data", "model"), axis_types=(AxisType.Auto,) * 2)
    shardings = (NamedSharding(mesh, P("data", None)), NamedSharding(mesh, P(None, "model")))
    args = (jax.ShapeDtypeStruct((16, 64), jnp.float32),
            jax.ShapeDtypeStruct((64, 32), jnp.float32))
    compiled = jax.jit(m.layer, in_shardings=shardings).lower(*args).compile()
    assert not COLLECTIVE.findall(compiled.as_text())
    out = compiled.output_shardings
    assert out.is_equivalent_to(NamedSharding(mesh, P("data", "model")), 2)


def test_normalize_outputs_sum_to_one_under_every_binding_of_p():
    said("normalize", "the outputs sum to 1 although no single device ever saw the whole batch")
    said("normalize", "by `pmap(..., axis_name='p')`, by a mesh axis in `shard_map`, or by "
                      "`vmap(..., axis_name='p')`")
    f = module("normalize").normalize
    x = jnp.arange(8.)
    mesh = mesh_8("p")
    outs = {
        "pmap": jax.pmap(f, axis_name="p")(x),
        "vmap": jax.vmap(f, axis_name="p")(x),
        "shard_map": jax.shard_map(jax.vmap(f), mesh=mesh, in_specs=P("p"),
                                   out_specs=P("p"))(x),
    }
    for name, out in outs.items():
        np.testing.assert_allclose(float(np.sum(out)), 1.0, rtol=1e-6, err_msg=name)
    # and pmap's devices each saw one value: its input is split one per device
    assert len(outs["pmap"].addressable_shards) == 8
    assert all(s.data.size == 1 for s in outs["pmap"].addressable_shards)


def test_psum_of_ones_counts_the_devices():
    said("psum_ones", "every device ends up holding the number of devices")
    f = module("psum_ones").total
    out = jax.pmap(f, axis_name="i")(np.ones(8, dtype=np.float32))
    assert [float(s.data.reshape(())) for s in out.addressable_shards] == [8.0] * 8


def test_jit_of_vmap_and_vmap_of_jit_give_the_same_numbers():
    said("jit_composition", "`jit(vmap(f))` and `vmap(jit(f))` give the same numbers")
    f = module("jit_composition").selu
    x = jnp.linspace(-3, 3, 8 * 1000).reshape(8, 1000)
    np.testing.assert_array_equal(np.asarray(jax.jit(jax.vmap(f))(x)),
                                  np.asarray(jax.vmap(jax.jit(f))(x)))


def test_batched_matmul_pmap_puts_one_product_on_each_device():
    said("batched_matmul", "`pmap(jnp.matmul)` puts one product on each device")
    m = module("batched_matmul")
    x = jnp.ones((8, 64, 64))
    out = jax.pmap(m.matmul)(x, x)
    shards = out.addressable_shards
    assert len({s.device for s in shards}) == 8
    assert all(s.data.shape == (1, 64, 64) for s in shards)


def test_data_parallel_pmap_is_traced_as_shard_map_with_check_vma_false():
    said("data_parallel", "`pmap` traces its function as `shard_map` with `check_vma=False`")
    m = module("data_parallel")
    f = jax.pmap(m.train_step, in_axes=(None, 0, 0), axis_name="batch")
    closed = jax.make_jaxpr(f)((jnp.ones(4), jnp.float32(0.)), jnp.ones((8, 32, 4)),
                               jnp.ones((8, 32)))
    [smap] = [e for e in eqns(closed.jaxpr) if e.primitive.name == "shard_map"]
    assert smap.params["check_vma"] is False
