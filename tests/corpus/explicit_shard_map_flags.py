"""jaxviz's shard_map variant under an explicit mesh: the arguments are placed on the mesh
first (explicit mode takes the sharding from the argument), the body sees its block."""
import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import AxisType, NamedSharding
from jax.sharding import PartitionSpec as P


def local_norm(x):
    print("block:", jax.typeof(x))
    return x / jax.lax.psum(jnp.sum(x), "i")


x = np.arange(1.0, 17.0, dtype=np.float32)

MESH = jax.make_mesh((8,), ("i",), axis_types=(AxisType.Explicit,))
MAPPED = jax.shard_map(local_norm, mesh=MESH, in_specs=(P("i"),), out_specs=P("i"))

CASES = {
    "shard_map": dict(function="local_norm", args="x", mesh="i=8", axis_types="explicit",
                      specs="P('i')",
                      reference="jax.jit(MAPPED, in_shardings=(NamedSharding(MESH, P('i')),))",
                      reference_args="[jax.device_put(x, NamedSharding(MESH, P('i')))]",
                      context="MESH"),
}
