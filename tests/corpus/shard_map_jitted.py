"""A module-level name bound to jax.jit(jax.shard_map(...)): a matmul that all-gathers
its column blocks (the scaling book's sharded matmul, written per device)."""
import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import AxisType
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((4,), ("x",), axis_types=(AxisType.Auto,))


def block_matmul(a_block, b):
    b_full = jax.lax.all_gather(b, "x", axis=1, tiled=True)
    return a_block @ b_full


matmul = jax.jit(jax.shard_map(block_matmul, mesh=mesh, in_specs=(P("x", None), P(None, "x")),
                               out_specs=P("x", None)))

a = np.arange(64.0, dtype=np.float32).reshape(8, 8) / 64
b = np.arange(64.0, dtype=np.float32).reshape(8, 8) / 64

CASES = {"as_written": dict(function="matmul", args="a, b")}
