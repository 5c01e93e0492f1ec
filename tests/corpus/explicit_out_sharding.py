"""Explicit sharding: a matmul whose contracted dimension is split is ambiguous;
out_sharding says where the result goes."""
import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import AxisType, reshard
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((2, 4), ("X", "Y"), axis_types=(AxisType.Explicit, AxisType.Explicit))
jax.set_mesh(mesh)

a = reshard(np.arange(64.0).reshape(8, 8) / 64, P("X", "Y"))
b = reshard(np.arange(32.0).reshape(8, 4) / 32, P("Y", None))


@jax.jit
def matmul(a, b):
    c = jnp.matmul(a, b, out_sharding=P("X", None))
    print("c:", jax.typeof(c))
    return c


CASES = {"as_written": dict(function="matmul", args="a, b")}
