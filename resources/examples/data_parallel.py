"""Data parallelism: every device computes gradients on its own shard, psum averages them

The model (here a linear regression's `w` and `b`) is replicated on every
device, the batch is split across the devices. Each device computes the
gradient of the loss on its shard with `jax.grad`; `lax.pmean` (a `psum`
divided by the device count) averages the gradients over the axis `batch`, so
every device applies the same update and the replicas stay in sync. This is
what PyTorch's DistributedDataParallel does; in JAX it is one collective in
the jaxpr.
"""
import jax
import jax.numpy as jnp
from jax import lax


def loss(params, x, y):
    w, b = params
    prediction = x @ w + b
    return jnp.mean((prediction - y) ** 2)


def train_step(params, x, y):
    grads = jax.grad(loss)(params, x, y)
    grads = lax.pmean(grads, axis_name='batch')
    return jax.tree.map(lambda p, g: p - 0.1 * g, params, grads)


JAXVIZ = {
    "topic": "data parallelism",
    "function": "train_step",
    "args": "(f32[4], f32[]), f32[32,4], f32[32]",
    "variants": ["vmap", "pmap", "shard_map"],
    "in_axes": "None, 0, 0",
    "axis_name": "batch",
    "order": 7,
}
