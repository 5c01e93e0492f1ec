"""Data parallelism: every device computes gradients on its own shard, pmean averages them

The model (here a linear regression's `w` and `b`) is replicated on every
device, the batch is split across the devices. Each device computes the
gradient of the loss on its shard with `jax.grad`; `lax.pmean` (a `psum`
divided by the device count) averages the gradients over the axis `batch`, so
every device applies the same update and the replicas stay in sync -- what
PyTorch's DistributedDataParallel does. The jaxpr has one `psum` per gradient
(one for `w`, one for `b`); XLA may combine them into one all-reduce (each
pane's notes count both).

`pmap` traces its function as `shard_map` with `check_vma=False`, and this
example's shard_map variant does the same. With `check_vma=True`,
shard_map's default, JAX types every value with the mesh axes it varies
over. The parameters, replicated with `P()`, vary over none, so their
gradient must be the same on every device too: `jax.grad` sums the devices'
gradients over `batch` (a `psum_invariant` in the backward pass). The `pmean`
that follows then averages copies of that sum, and the step uses the sum, not
the mean. Turn check_vma on (`--check-vma`, or the check_vma box under the
arguments) to see the extra sums and the note that says so. Under
`check_vma=True`, average the loss instead (`lax.pmean(loss(...), 'batch')`)
and differentiate that, without a `pmean` of the gradients.
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
    "check_vma": False,
    "order": 7,
}
