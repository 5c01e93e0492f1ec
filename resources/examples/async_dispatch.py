"""Asynchronous dispatch: a call returns before its result exists

`jnp.dot(x, y)` hands the work to the device and returns a future (a
`jax.Array`) at once; Python only waits when it needs the values, e.g. to
print them or to convert them to NumPy. Timing the call alone measures the
dispatch, not the work: time `jnp.dot(x, y).block_until_ready()` instead.
Run the timing view's size sweep on this example: the completion time grows
with the work, while a call returns long before its result is ready -- except
where a small CPU computation runs inline, before the call returns. The sweep's
caption gives the measured figures (dispatch grows with the size too).
"""
import numpy as np

import jax
import jax.numpy as jnp
from jax import random

x = random.normal(random.PRNGKey(0), (1000, 1000))
y = random.normal(random.PRNGKey(0), (1000, 1000))


def matmul(x, y):
    return jnp.dot(x, y)


def matmul_numpy(x, y):
    return np.dot(x, y)


JAXVIZ = {
    "topic": "async dispatch",
    "function": "matmul",
    "args": "x, y",
    "variants": ["plain", "jit"],
    "baseline": "matmul_numpy",
    "order": 1,
    "timing": {"variants": ["numpy", "op-by-op", "jit", "jit-sync"],
               "sweep": "n=256,512,1024,2048",
               "sweep_args": "f32[n,n], f32[n,n]"},
}
