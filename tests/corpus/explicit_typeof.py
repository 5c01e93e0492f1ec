"""Explicit sharding guide: types carry their sharding, and shardings propagate."""
import jax
import numpy as np
from jax.sharding import AxisType, reshard, set_mesh
from jax.sharding import PartitionSpec as P

jax.config.update("jax_num_cpu_devices", 8)

mesh = jax.make_mesh((2, 4), ("X", "Y"), axis_types=(AxisType.Explicit, AxisType.Explicit))
set_mesh(mesh)

arg0 = reshard(np.arange(4).reshape(4, 1), P("X", None))
arg1 = reshard(np.arange(8).reshape(1, 8), P(None, "Y"))


@jax.jit
def add_arrays(x, y):
    ans = x + y
    print(f"x sharding: {jax.typeof(x)}")
    print(f"y sharding: {jax.typeof(y)}")
    print(f"ans sharding: {jax.typeof(ans)}")
    return ans


CASES = {"as_written": dict(function="add_arrays", args="arg0, arg1")}
