"""shard_map guide: called directly (not under jit), shard_map runs eagerly, once per
device: jax.debug.print in its body prints each device's block."""
import jax
import jax.numpy as jnp
from jax.sharding import AxisType
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((4,), ("i",), axis_types=(AxisType.Auto,))


@jax.shard_map(mesh=mesh, in_specs=P("i"), out_specs=P("i"))
def show(block):
    jax.debug.print("block {b}", b=block)
    return block * 10


xs = jnp.arange(8.0)

CASES = {"as_written": dict(function="show", args="xs", prints="per_device")}
