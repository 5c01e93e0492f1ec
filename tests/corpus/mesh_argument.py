"""A mesh argument: the function takes the mesh it constrains its result to, as a static
argument (a Mesh is not an array; JAX cannot trace it)."""
import functools

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import AxisType, NamedSharding
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((4, 2), ("data", "model"), axis_types=(AxisType.Auto, AxisType.Auto))


def spread(x, mesh):
    y = jnp.cos(x)
    return jax.lax.with_sharding_constraint(y, NamedSharding(mesh, P("data", "model")))


x = np.arange(32.0, dtype=np.float32).reshape(8, 4)

CASES = {
    "jit": dict(function="spread", args="x", static="mesh=mesh",
                reference="functools.partial(jax.jit(spread, static_argnames=('mesh',)), "
                          "mesh=mesh)",
                reference_args="[x]"),
    "as_written": dict(function="spread", args="x, mesh=mesh",
                       reference="functools.partial(spread, mesh=mesh)", reference_args="[x]"),
}
assert functools  # the references use it
