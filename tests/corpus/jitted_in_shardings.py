"""Sharded computation guide: a function jitted with its own in_shardings and out_shardings
on a module-level mesh, called on arrays placed with jax.device_put."""
import functools

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import AxisType, NamedSharding
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((4, 2), ("data", "model"), axis_types=(AxisType.Auto, AxisType.Auto))
x_sharding = NamedSharding(mesh, P("data", None))
w_sharding = NamedSharding(mesh, P(None, "model"))


@functools.partial(jax.jit, in_shardings=(x_sharding, w_sharding),
                   out_shardings=NamedSharding(mesh, P("data", "model")))
def layer(x, w):
    return jnp.tanh(x @ w)


x = jax.device_put(np.arange(128.0, dtype=np.float32).reshape(16, 8) / 128, x_sharding)
w = jax.device_put(np.arange(64.0, dtype=np.float32).reshape(8, 8) / 64, w_sharding)

CASES = {"as_written": dict(function="layer", args="x, w")}
