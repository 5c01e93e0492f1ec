"""1-D convolution: batch it with vmap, spread it over devices with pmap

`convolve` is written for one signal `x` and one kernel `w`. `jax.vmap(convolve)`
turns it into a function of a batch of signals and kernels -- JAX rewrites
every operation to carry the extra batch axis, so the Python loop runs once,
not once per example. `jax.pmap(convolve)` instead gives each device one
example; it compiles the function once and runs the same program on every
device. Compare the vmap and pmap jaxprs: vmap adds a batch dimension to each
equation, pmap wraps the whole body in a shard_map over the devices.
"""
import jax
import jax.numpy as jnp

x = jnp.arange(5)
w = jnp.array([2., 3., 4.])


def convolve(x, w):
    output = []
    for i in range(1, len(x)-1):
        output.append(jnp.dot(x[i-1:i+2], w))
    return jnp.array(output)


JAXVIZ = {
    "topic": "vectorization",
    "function": "convolve",
    "args": "x, w",
    "variants": ["plain", "jit", "vmap", "pmap", "sharded", "shard_map"],
    "in_axes": "0, 0",
    "axis_name": "i",
    "order": 2,
    "timing": {"variants": ["loop", "vmap", "jit-vmap", "pmap"]},
}
