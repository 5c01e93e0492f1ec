"""A plain function, sharded by jaxviz under an explicit mesh given as flags
(--mesh X=2,Y=4 --axis-types explicit --specs ...): the types carry the sharding."""
import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import AxisType, NamedSharding
from jax.sharding import PartitionSpec as P


def layer(x, w):
    print("x:", jax.typeof(x), "w:", jax.typeof(w))
    h = jnp.einsum("bi,io->bo", x, w)
    print("h:", jax.typeof(h))
    return jnp.maximum(h, 0.0)


x = np.arange(64.0, dtype=np.float32).reshape(8, 8) / 64
w = np.arange(32.0, dtype=np.float32).reshape(8, 4) / 32

MESH = jax.make_mesh((2, 4), ("X", "Y"), axis_types=(AxisType.Explicit, AxisType.Explicit))
SHARDINGS = (NamedSharding(MESH, P("X", None)), NamedSharding(MESH, P(None, "Y")))

CASES = {
    "sharded": dict(function="layer", args="x, w", mesh="X=2,Y=4", axis_types="explicit",
                    specs="P('X', None), P(None, 'Y')",
                    reference="jax.jit(layer, in_shardings=SHARDINGS)",
                    reference_args="jax.device_put([x, w], list(SHARDINGS))", context="MESH"),
    "jit": dict(function="layer", args="x, w", mesh="X=2,Y=4", axis_types="explicit",
                reference="jax.jit(layer)", reference_args="[x, w]", context="MESH"),
}
