"""Batched matmul: NumPy versus jnp versus pmap over 8 devices

Eight independent N x N matrix products. NumPy runs them one after another on
the host; `jnp.matmul` compiles them into one XLA program; `pmap(jnp.matmul)`
puts one product on each device. On simulated CPU devices the devices share
the machine's cores, so the timings show the structure of the work, not a real
speed-up; on 8 accelerators each product runs on its own chip. The lecture
notes use N = 4096 (set the argument spec to f32[4096,4096] on a big machine).
"""
import numpy as np

import jax
import jax.numpy as jnp

N = 512


def matmul(x, y):
    return jnp.matmul(x, y)


def matmul_numpy(x, y):
    return np.matmul(x, y)


def make_ones(i):
    return jnp.ones((N, N))


JAXVIZ = {
    "topic": "pmap",
    "function": "matmul",
    "args": "f32[512,512], f32[512,512]",
    "variants": ["plain", "jit", "vmap", "pmap", "sharded"],
    "panes": ["plain", "pmap"],
    "baseline": "matmul_numpy",
    "order": 3,
    "timing": {"variants": ["numpy", "jit-vmap", "pmap", "sharded"]},
}
