"""Distributed arrays guide: a Mesh built from an explicit device array, and a jitted
function whose shardings use it."""
import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

devices = np.array(jax.devices())[[7, 6, 5, 4, 3, 2, 1, 0]].reshape(4, 2)
mesh = Mesh(devices, ("x", "y"))
sharding = NamedSharding(mesh, P("x", "y"))


@jax.jit
def double_and_shift(a):
    return jnp.roll(a * 2, 1, axis=0)


a = jax.device_put(np.arange(32.0, dtype=np.float32).reshape(8, 4), sharding)

CASES = {"as_written": dict(function="double_and_shift", args="a")}
