"""As written, with the arguments placed by --specs on the mesh the module set
(jax.device_put with a bare PartitionSpec reads the mesh in context)."""
import jax
import numpy as np
from jax.sharding import AxisType
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((2, 4), ("X", "Y"), axis_types=(AxisType.Explicit, AxisType.Explicit))
jax.set_mesh(mesh)


@jax.jit
def outer(x, y):
    out = x * y
    print("out:", jax.typeof(out))
    return out


CASES = {
    "as_written": dict(function="outer",
                       args="np.arange(4.0).reshape(4, 1), np.arange(8.0).reshape(1, 8)",
                       specs="P('X', None), P(None, 'Y')",
                       reference="outer",
                       reference_args="[jax.device_put(np.arange(4.0).reshape(4, 1), "
                                      "P('X', None)), jax.device_put(np.arange(8.0)"
                                      ".reshape(1, 8), P(None, 'Y'))]",
                       context="mesh"),
}
