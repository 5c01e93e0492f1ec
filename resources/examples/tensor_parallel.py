"""Model (tensor) parallelism: NamedSharding on a 2-D mesh

The devices form a 4 x 2 mesh with axes `data` and `model`. The activations `x`
are split by rows over `data`; the weight matrix `w` is split by columns over
`model`, as when a layer is too big for one device. `jax.jit` with these
shardings (what `pjit` used to be) lets the XLA partitioner split the matmul:
each device multiplies its block of rows by its block of columns and the
output comes out sharded over both axes, `P('data', 'model')`, with no
communication at all. `shard_map` writes the same program per device by hand.
"""
import jax
import jax.numpy as jnp


def layer(x, w):
    return jnp.tanh(x @ w)


JAXVIZ = {
    "topic": "model parallelism",
    "function": "layer",
    "args": "f32[16,64], f32[64,32]",
    "variants": ["plain", "sharded", "shard_map"],
    "in_axes": "None, None",
    "mesh": "data=4,model=2",
    "specs": "P('data', None), P(None, 'model')",
    "order": 8,
}
