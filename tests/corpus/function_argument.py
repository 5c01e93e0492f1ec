"""A function argument: the activation is passed by name as a static argument."""
import functools

import jax
import jax.numpy as jnp
import numpy as np


def dense(x, w, activation):
    return activation(x @ w)


x = np.ones((4, 3), dtype=np.float32)
w = np.arange(6.0, dtype=np.float32).reshape(3, 2) / 6

CASES = {
    "jit": dict(function="dense", args="x, w, activation=jax.nn.relu",
                reference="functools.partial(jax.jit(dense, static_argnames=('activation',)), "
                          "activation=jax.nn.relu)",
                reference_args="[x, w]"),
    "vmap": dict(function="dense", args="x[0], w", static="activation=jnp.tanh",
                 in_axes="0, None", batched_args="x, w",
                 reference="jax.vmap(functools.partial(dense, activation=jnp.tanh), "
                           "in_axes=(0, None), axis_name='i')",
                 reference_args="[x, w]"),
}
assert functools  # the references use it
