"""A mesh over the devices in another order (--devices-order): the same spec puts the
blocks on other devices, and the compiled collectives run over other groups."""
import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import AxisType, NamedSharding
from jax.sharding import PartitionSpec as P


def row_norms(x):
    return jnp.sqrt(jnp.sum(x * x, axis=1))


x = np.arange(64.0, dtype=np.float32).reshape(8, 8)

ORDER = (0, 2, 4, 6, 1, 3, 5, 7)
MESH = jax.make_mesh((2, 4), ("a", "b"), axis_types=(AxisType.Auto, AxisType.Auto),
                     devices=[jax.devices()[i] for i in ORDER])

CASES = {
    "sharded": dict(function="row_norms", args="x", mesh="a=2,b=4",
                    devices_order="0,2,4,6,1,3,5,7", specs="P('a', 'b')",
                    reference="jax.jit(row_norms, in_shardings=(NamedSharding(MESH, "
                              "P('a', 'b')),))",
                    reference_args="[x]", context="MESH"),
}
