"""Layouts are JAX's: compared with devices_indices_map of real arrays and of
NamedShardings built in the tests (never with jaxviz's own builder)."""

from __future__ import annotations

import jax
import numpy as np
import pytest
from jax.sharding import Mesh

from jaxviz import core
from jaxviz.model import list_examples
from jaxviz.model.errors import format_error
from tests.helpers.jax_requests import example_request
from tests.helpers.reference import concrete, reference_call

# Not in the fast tier: every gallery example (or the corpus) through JAX.
pytestmark = pytest.mark.slow

CASES = [(ex.name, v) for ex in list_examples() for v in ex.variants]


def _ranges(index_map, shape):
    return {d.id: [list(s.indices(n)[:2]) for s, n in zip(idx, shape)]
            for d, idx in index_map.items()}


@pytest.mark.parametrize("name, variant", CASES, ids=[f"{n}-{v}" for n, v in CASES])
def test_output_layout_equals_the_real_output(name, variant):
    req = example_request(name, [variant], want=("jaxpr", "layout"))
    vr = core.trace_request(req).variant(variant)
    assert vr.error is None, format_error(vr.error, debug=True)
    # Run the same variant, built with JAX alone, and read where JAX put the output.
    fn, args = reference_call(name, variant)
    real = jax.tree.leaves(fn(*concrete(args)))
    outputs = [a for a in vr.arrays if a.role == "output"]
    assert len(outputs) == len(real)
    for layout, array in zip(outputs, real):
        assert tuple(layout.shape) == array.shape
        expected = _ranges(array.sharding.devices_indices_map(array.shape), array.shape)
        assert {s.device: s.index for s in layout.shards} == expected
        assert layout.replicated == array.sharding.is_fully_replicated


def test_tensor_parallel_inputs_follow_their_partition_specs():
    from jax.sharding import NamedSharding
    from jax.sharding import PartitionSpec as P

    req = example_request("tensor_parallel", ["sharded"], want=("jaxpr", "layout"))
    vr = core.trace_request(req).variant("sharded")
    assert vr.mesh.axis_names == ["data", "model"] and vr.mesh.axis_sizes == [4, 2]
    mesh = Mesh(np.array(jax.devices()).reshape(4, 2), ("data", "model"))
    assert vr.mesh.device_ids == [d.id for d in mesh.devices.flat]
    x, w, out = vr.arrays
    for layout, spec in ((x, P("data", None)), (w, P(None, "model")),
                         (out, P("data", "model"))):
        expected = NamedSharding(mesh, spec).devices_indices_map(tuple(layout.shape))
        assert {s.device: s.index for s in layout.shards} == _ranges(expected, layout.shape)
    # x is split by rows over `data` only: devices along `model` share each tile.
    assert x.shard_shape == [4, 64] and not x.replicated
    tiles = {}
    for s in x.shards:
        tiles.setdefault(tuple(map(tuple, s.index)), []).append(s.device)
    assert len(tiles) == 4 and all(len(devs) == 2 for devs in tiles.values())


def test_replicated_parameters_are_on_every_device():
    vr = core.trace_request(example_request("mlp_predict", ["pmap"], want=("jaxpr", "layout"))
                            ).variant("pmap")
    params = [a for a in vr.arrays if a.name.startswith("params")]
    assert len(params) == 4
    for a in params:
        assert a.replicated
        assert sorted(s.device for s in a.shards) == list(range(8))
        assert all(s.index == [[0, n] for n in a.shape] for s in a.shards)


def test_hlo_costs_and_collectives():
    vr = core.trace_request(example_request("normalize", ["pmap"], want=("jaxpr", "hlo"))
                            ).variant("pmap")
    assert "stablehlo" in vr.stablehlo or "func.func" in vr.stablehlo
    assert "HloModule" in vr.hlo
    assert vr.cost.get("flops", 0) > 0
    assert "all-reduce" in vr.hlo_collectives
    assert vr.collectives == ["psum"]
