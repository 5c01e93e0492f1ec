"""shard_map guide: a function decorated with jax.shard_map, summing its blocks with psum."""
import jax
import jax.numpy as jnp
from jax.sharding import AxisType
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((8,), ("i",), axis_types=(AxisType.Auto,))


@jax.shard_map(mesh=mesh, in_specs=P("i"), out_specs=P())
def total(block):
    return jax.lax.psum(jnp.sum(block, keepdims=True), "i")


xs = jnp.arange(32.0)

CASES = {"as_written": dict(function="total", args="xs")}
