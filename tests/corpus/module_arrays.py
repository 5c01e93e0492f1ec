"""Module-level arrays and meshes in the arguments: the argument expression places an array
of the file on the file's mesh, and jit follows the sharding it is given."""
import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import AxisType, NamedSharding
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((8,), ("i",), axis_types=(AxisType.Auto,))
data = np.arange(16.0, dtype=np.float32).reshape(8, 2)


def softmax_rows(x):
    e = jnp.exp(x - jnp.max(x, axis=1, keepdims=True))
    return e / jnp.sum(e, axis=1, keepdims=True)


CASES = {
    "jit": dict(function="softmax_rows",
                args="jax.device_put(data, NamedSharding(mesh, P('i', None)))",
                reference="jax.jit(softmax_rows)",
                reference_args="[jax.device_put(data, NamedSharding(mesh, P('i', None)))]"),
}
