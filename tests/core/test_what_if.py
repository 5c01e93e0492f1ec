"""The what-if against JAX: every point is a real compile at N devices.

The oracle is XLA's own ``compiled.cost_analysis()`` of programs this test builds
with JAX alone (a mesh of the first N devices, NamedSharding), never jaxviz's
variant builder or HLO reader.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

from jaxviz.core.what_if import what_if
from jaxviz.model.chips import find_chip
from jaxviz.model.what_if import WhatIfRequest, comm_bound_at, what_if_rows
from tests.helpers.jax_requests import example_request, import_file

# every test compiles gallery programs at several device counts (seconds each)
pytestmark = pytest.mark.slow


def _xla_flops_sharded_matmul(n: int, batch: int, side: int) -> float:
    """Per-device FLOPs of a batch of matmuls split over the first ``n`` devices."""
    mesh = Mesh(np.array(jax.devices()[:n]), ("b",))
    spec = NamedSharding(mesh, P("b"))
    x = jax.ShapeDtypeStruct((batch, side, side), jnp.float32, sharding=spec)
    compiled = jax.jit(jax.vmap(jnp.matmul)).lower(x, x).compile()
    cost = compiled.cost_analysis()
    cost = cost[0] if isinstance(cost, list) else cost
    return float(cost["flops"])


@pytest.fixture(scope="module")
def matmul_what_if():
    req = example_request("batched_matmul", ["vmap", "pmap", "sharded"], ("jaxpr", "cost"))
    return what_if(WhatIfRequest(req, [1, 2, 4, 8]))


def test_every_point_compiled(matmul_what_if):
    assert not matmul_what_if.error
    assert {(p.devices, p.variant) for p in matmul_what_if.points} == {
        (n, v) for n in (1, 2, 4, 8) for v in ("vmap", "pmap", "sharded")}
    assert all(p.program is not None and not p.error for p in matmul_what_if.points)


@pytest.mark.parametrize("n", [2, 4])
def test_per_device_flops_equal_a_real_compile_at_n(matmul_what_if, n):
    # the global batch is fixed at the largest N (8): 8 matmuls of 512x512, split n ways
    oracle = _xla_flops_sharded_matmul(n, 8, 512)
    assert oracle == pytest.approx(2 * 512 ** 3 * 8 / n, rel=0.01)  # the oracle is sane
    for variant in ("pmap", "sharded"):
        point = next(p for p in matmul_what_if.points
                     if p.devices == n and p.variant == variant)
        assert point.program is not None
        assert len(point.program.devices) == n
        assert point.xla_flops == pytest.approx(oracle, rel=1e-6)
        assert point.program.flops == pytest.approx(oracle, rel=1e-6)


def test_the_one_device_variant_does_not_scale(matmul_what_if):
    flops = {p.devices: p.program.flops for p in matmul_what_if.points if p.variant == "vmap"}
    assert len(set(flops.values())) == 1
    assert flops[1] == pytest.approx(_xla_flops_sharded_matmul(1, 8, 512), rel=1e-6)


def test_a_devices_count_beyond_the_engine_is_refused():
    req = example_request("batched_matmul", ["pmap"], ("jaxpr", "cost"))
    out = what_if(WhatIfRequest(req, [1, 16]))
    assert "16 devices" in out.error and not out.points


def test_the_comm_bound_marker_is_where_t_comm_first_exceeds_t_compute():
    req = example_request("data_parallel", ["pmap"], ("jaxpr", "cost"))
    rows = what_if_rows(what_if(WhatIfRequest(req, [1, 2, 4, 8])), find_chip("tpu-v5e"))
    rows = sorted(rows, key=lambda r: r.devices)
    # from the data: one device has no collective; the psum of the gradients from 2 on
    assert rows[0].t_comm == 0 and rows[0].comm_bytes == 0
    assert all(r.comm_bytes > 0 for r in rows[1:])
    first = next(r.devices for r in rows if r.t_comm > r.t_compute)
    assert all(r.t_comm <= r.t_compute for r in rows if r.devices < first)
    assert comm_bound_at(rows, "pmap") == first


def test_a_mesh_with_a_fixed_axis_scales_its_first_axis():
    req = example_request("tensor_parallel", ["sharded"], ("jaxpr", "cost"))
    out = what_if(WhatIfRequest(req, [1, 2, 4]))
    by_n = {p.devices: p for p in out.points}
    assert "model=2" in by_n[1].error and by_n[1].program is None
    assert by_n[4].mesh == "data=2,model=2" and by_n[2].mesh == "data=1,model=2"
    # a real compile of the same layer on 2x2 devices (the test's own program)
    mesh = Mesh(np.array(jax.devices()[:4]).reshape(2, 2), ("data", "model"))
    x = jax.ShapeDtypeStruct((16, 64), jnp.float32, sharding=NamedSharding(mesh, P("data", None)))
    w = jax.ShapeDtypeStruct((64, 32), jnp.float32, sharding=NamedSharding(mesh, P(None, "model")))
    module = import_file(req.target.filename)
    cost = jax.jit(module.layer).lower(x, w).compile().cost_analysis()
    cost = cost[0] if isinstance(cost, list) else cost
    assert by_n[4].xla_flops == pytest.approx(float(cost["flops"]), rel=1e-6)
