"""The same function under an Auto and an Explicit mesh of the same shape, side by side."""
import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import AxisType, NamedSharding
from jax.sharding import PartitionSpec as P


def normalize_rows(x):
    print("x:", jax.typeof(x))
    total = jnp.sum(x, axis=1, keepdims=True)
    print("total:", jax.typeof(total))
    return x / total


x = np.arange(1.0, 65.0, dtype=np.float32).reshape(8, 8)

AUTO = jax.make_mesh((4, 2), ("rows", "cols"), axis_types=(AxisType.Auto, AxisType.Auto))
EXPLICIT = jax.make_mesh((4, 2), ("rows", "cols"),
                         axis_types=(AxisType.Explicit, AxisType.Explicit))

CASES = {
    "sharded_auto": dict(variant="sharded", function="normalize_rows", args="x",
                         mesh="rows=4,cols=2", axis_types="auto", specs="P('rows', 'cols')",
                         reference="jax.jit(normalize_rows, in_shardings=("
                                   "NamedSharding(AUTO, P('rows', 'cols')),))",
                         reference_args="[x]", context="AUTO"),
    "sharded_explicit": dict(variant="sharded", function="normalize_rows", args="x",
                             mesh="rows=4,cols=2", axis_types="explicit",
                             specs="P('rows', 'cols')",
                             reference="jax.jit(normalize_rows, in_shardings=("
                                       "NamedSharding(EXPLICIT, P('rows', 'cols')),))",
                             reference_args="[jax.device_put(x, NamedSharding(EXPLICIT, "
                                            "P('rows', 'cols')))]",
                             context="EXPLICIT"),
}
