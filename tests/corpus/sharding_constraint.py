"""Auto sharding with a hint: with_sharding_constraint in a jitted function on a module mesh;
the compiler inserts the collectives the jaxpr does not show."""
import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import AxisType, NamedSharding
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((8,), ("i",), axis_types=(AxisType.Auto,))


@jax.jit
def rows_then_columns(x):
    y = jax.lax.with_sharding_constraint(jnp.sin(x), NamedSharding(mesh, P("i", None)))
    z = jax.lax.with_sharding_constraint(y * 2, NamedSharding(mesh, P(None, "i")))
    return z.sum(axis=0)


x = np.arange(64.0, dtype=np.float32).reshape(8, 8)

CASES = {"as_written": dict(function="rows_then_columns", args="x")}
