"""Distributed arrays guide: an MLP's parameters as a list of (weight, bias) pairs, with a
PartitionSpec for every leaf (tensor parallel layers) and the batch split over data."""
import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import AxisType, NamedSharding
from jax.sharding import PartitionSpec as P


def predict(params, x):
    print("x:", jax.typeof(x))
    for w, b in params:
        x = jnp.tanh(x @ w + b)
    return x


rng = np.random.default_rng(0)
params = [(rng.standard_normal((8, 16)).astype(np.float32),
           rng.standard_normal(16).astype(np.float32)),
          (rng.standard_normal((16, 4)).astype(np.float32),
           rng.standard_normal(4).astype(np.float32))]
x = rng.standard_normal((8, 8)).astype(np.float32)

MESH = jax.make_mesh((4, 2), ("data", "model"), axis_types=(AxisType.Auto, AxisType.Auto))
SPECS = ([(P(), P()), (P(None, "model"), P("model"))], P("data"))
SHARDINGS = jax.tree.map(lambda s: NamedSharding(MESH, s), SPECS,
                         is_leaf=lambda s: isinstance(s, P))

CASES = {
    "sharded": dict(function="predict", args="params, x", mesh="data=4,model=2",
                    specs="[(P(), P()), (P(None, 'model'), P('model'))], P('data')",
                    reference="jax.jit(predict, in_shardings=SHARDINGS)",
                    reference_args="[params, x]", context="MESH"),
}
