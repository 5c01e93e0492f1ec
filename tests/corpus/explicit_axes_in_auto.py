"""Explicit sharding guide: explicit_axes drops into explicit mode inside an auto-mesh program."""
import functools

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import AxisType, explicit_axes
from jax.sharding import PartitionSpec as P

auto_mesh = jax.make_mesh((2, 4), ("X", "Y"), axis_types=(AxisType.Auto, AxisType.Auto))
jax.set_mesh(auto_mesh)


@functools.partial(explicit_axes, axes=("X", "Y"))
def explicit_g(y):
    print(f"y inside g: {jax.typeof(y)}")
    z = y * 2
    print(f"z inside g: {jax.typeof(z)}")
    return z


@jax.jit
def f(arr1):
    x = jnp.sin(arr1)
    z = explicit_g(x, in_sharding=P("X", "Y"))
    return z + 1


some_x = jax.device_put(np.arange(16.0).reshape(4, 4), P("X", "Y"))

CASES = {"as_written": dict(function="f", args="some_x")}
