"""A mesh with one explicit and one auto axis: only the explicit axis appears in types."""
import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import AxisType, NamedSharding
from jax.sharding import PartitionSpec as P


def scale(x):
    print("x:", jax.typeof(x))
    return jnp.cos(x) * 3


x = np.arange(32.0, dtype=np.float32).reshape(4, 8)

MESH = jax.make_mesh((2, 4), ("X", "Y"), axis_types=(AxisType.Explicit, AxisType.Auto))

CASES = {
    "sharded": dict(function="scale", args="x", mesh="X=2,Y=4", axis_types="explicit,auto",
                    specs="P('X', None)",
                    reference="jax.jit(scale, in_shardings=(NamedSharding(MESH, P('X', None)),))",
                    reference_args="[jax.device_put(x, NamedSharding(MESH, P('X', None)))]",
                    context="MESH"),
}
