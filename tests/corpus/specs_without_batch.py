"""--specs without a batch: the arguments are sharded as given (in_axes None), so an
elementwise shard_map returns a (32,) array, not 8 stacked copies of shape (8, 32)."""
import jax
import jax.numpy as jnp
from jax.sharding import AxisType, NamedSharding
from jax.sharding import PartitionSpec as P


def scaled(x):
    return 2 * jnp.sin(x) + 1


x = jnp.arange(32.0)

MESH = jax.make_mesh((8,), ("i",), axis_types=(AxisType.Auto,))
MAPPED = jax.shard_map(scaled, mesh=MESH, in_specs=(P("i"),), out_specs=P("i"))

CASES = {
    "shard_map": dict(function="scaled", args="x", mesh="i=8", specs="P('i')",
                      reference="jax.jit(MAPPED, in_shardings=(NamedSharding(MESH, P('i')),))",
                      reference_args="[x]", context="MESH"),
    "sharded": dict(function="scaled", args="x", mesh="i=8", specs="P('i')",
                    reference="jax.jit(scaled, in_shardings=(NamedSharding(MESH, P('i')),))",
                    reference_args="[x]", context="MESH"),
}
