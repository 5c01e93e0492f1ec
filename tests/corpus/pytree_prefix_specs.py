"""A prefix spec: one PartitionSpec stands for a whole dict of parameters (replicated), as
jax.jit's in_shardings and shard_map's in_specs accept it."""
import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import AxisType, NamedSharding
from jax.sharding import PartitionSpec as P


def loss(params, batch):
    pred = batch @ params["w"] + params["b"]
    return jax.lax.pmean(jnp.mean(pred ** 2), "data")


params = {"b": np.float32(0.5), "w": np.linspace(-1, 1, 8, dtype=np.float32)}
batch = np.arange(64.0, dtype=np.float32).reshape(8, 8) / 64

MESH = jax.make_mesh((8,), ("data",), axis_types=(AxisType.Auto,))
MAPPED = jax.shard_map(loss, mesh=MESH, in_specs=(P(), P("data")), out_specs=P())

CASES = {
    "shard_map": dict(function="loss", args="params, batch", mesh="data=8",
                      specs="P(), P('data')", out_specs="P()",
                      reference="jax.jit(MAPPED, in_shardings=(NamedSharding(MESH, P()), "
                                "NamedSharding(MESH, P('data'))))",
                      reference_args="[params, batch]", context="MESH"),
}
