"""Collectives: psum of ones counts the devices

Every device holds a 1; `lax.psum` adds them up across the mapped axis `i`,
so every device ends up holding the number of devices. This is the simplest
all-reduce: watch the values move between the devices in the device view.
"""
import numpy as np

import jax
from jax import lax


def total(x):
    return lax.psum(x, axis_name='i')


JAXVIZ = {
    "topic": "collectives",
    "function": "total",
    "args": "f32[]",
    "batched_args": "np.ones(8, dtype=np.float32)",
    "variants": ["vmap", "pmap", "shard_map"],
    "axis_name": "i",
    "order": 5,
}
