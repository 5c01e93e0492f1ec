"""Explicit sharding: unary and binary elementwise ops keep their inputs' sharding."""
import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import AxisType
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((2, 4), ("X", "Y"), axis_types=(AxisType.Explicit, AxisType.Explicit))
jax.set_mesh(mesh)

x = jax.device_put(np.arange(32.0).reshape(8, 4), P("X", "Y"))


@jax.jit
def squash(x):
    y = jnp.tanh(x) * 2 + 1
    print("y:", jax.typeof(y))
    return jnp.exp(-y)


CASES = {"as_written": dict(function="squash", args="x")}
