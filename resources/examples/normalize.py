"""Collectives: normalize by a psum across devices

`lax.psum(x, axis_name='p')` sums `x` over every device of the mapped axis
`p` -- an all-reduce: each device sends its value to the others and every
device ends up with the total. Dividing by it normalizes the whole batch, so
the outputs sum to 1 although no single device ever saw the whole batch. The
collective only makes sense where the axis `p` is bound: by `pmap(...,
axis_name='p')`, by a mesh axis in `shard_map`, or by `vmap(...,
axis_name='p')`.
"""
import jax
import jax.numpy as jnp
from jax import lax


def normalize(x):
    return x / lax.psum(x, axis_name='p')


JAXVIZ = {
    "topic": "collectives",
    "function": "normalize",
    "args": "f32[]",
    "batched_args": "jnp.arange(8.)",
    "variants": ["vmap", "pmap", "shard_map"],
    "axis_name": "p",
    "order": 4,
}
