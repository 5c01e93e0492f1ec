"""Output shardings for the sharded variant: --out-specs becomes jit's out_shardings,
and the compiler moves the result to where it is asked to be."""
import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import AxisType, NamedSharding
from jax.sharding import PartitionSpec as P


def both(x):
    return jnp.sin(x), jnp.sum(x, axis=0)


x = np.arange(64.0, dtype=np.float32).reshape(8, 8)

MESH = jax.make_mesh((8,), ("i",), axis_types=(AxisType.Auto,))

CASES = {
    "sharded": dict(function="both", args="x", mesh="i=8", specs="P('i', None)",
                    out_specs="P(None, 'i'), P()",
                    reference="jax.jit(both, in_shardings=(NamedSharding(MESH, P('i', None)),),"
                              " out_shardings=(NamedSharding(MESH, P(None, 'i')), "
                              "NamedSharding(MESH, P())))",
                    reference_args="[x]", context="MESH"),
}
