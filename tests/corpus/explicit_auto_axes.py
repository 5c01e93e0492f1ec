"""Explicit sharding guide: auto_axes hands axis X back to the compiler inside an
explicit program."""
import functools

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import AxisType, auto_axes, get_abstract_mesh, reshard
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((2, 4), ("X", "Y"), axis_types=(AxisType.Explicit, AxisType.Explicit))
jax.set_mesh(mesh)


@functools.partial(auto_axes, axes="X")
def g(y):
    print(f"mesh inside g: {get_abstract_mesh()}")
    print(f"y inside g: {jax.typeof(y)}")
    return y * 2


@jax.jit
def f(arr1):
    x = jnp.sin(arr1)
    print(f"x: {jax.typeof(x)}")
    z = g(x, out_sharding=P("X", "Y"))
    print(f"z: {jax.typeof(z)}")
    return z + 1


some_x = reshard(np.arange(16.0).reshape(4, 4), P("X", "Y"))

CASES = {"as_written": dict(function="f", args="some_x")}
