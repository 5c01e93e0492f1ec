"""Explicit sharding: reshard moves a value to another sharding inside a jitted function."""
import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import AxisType
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((2, 4), ("X", "Y"), axis_types=(AxisType.Explicit, AxisType.Explicit))
jax.set_mesh(mesh)

x = jax.device_put(np.arange(64.0).reshape(8, 8), P("X", None))


@jax.jit
def transpose_rows(x):
    by_columns = jax.reshard(x, P(None, "Y"))
    print("by_columns:", jax.typeof(by_columns))
    return jnp.sin(by_columns).T


CASES = {"as_written": dict(function="transpose_rows", args="x")}
