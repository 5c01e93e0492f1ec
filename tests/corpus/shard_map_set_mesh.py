"""A module that sets an explicit mesh with jax.set_mesh and defines a shard_map without
naming the mesh: shard_map takes the mesh in context (the case the issue reports failing)."""
import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import AxisType
from jax.sharding import PartitionSpec as P

jax.set_mesh(jax.make_mesh((2, 4), ("a", "b"), axis_types=(AxisType.Explicit,) * 2))


@jax.shard_map(in_specs=P("a", "b"), out_specs=P("a", None))
def row_sums(block):
    return jax.lax.psum(jnp.sum(block, axis=1, keepdims=True), "b")


x = jax.device_put(np.arange(32.0, dtype=np.float32).reshape(4, 8), P("a", "b"))

CASES = {"as_written": dict(function="row_sums", args="x")}
