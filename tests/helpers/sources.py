"""Source texts shared by several tests."""

from __future__ import annotations

#: The issue's data-parallel training file: three helpers and the step that uses them.
TRAINING = '''\
import jax
import jax.numpy as jnp
from jax import lax


def make_params(key, n_in, n_out):
    w = jax.random.normal(key, (n_in, n_out)) * 0.1
    return w, jnp.zeros(n_out)


def forward(params, x):
    w, b = params
    return jnp.tanh(x @ w + b)


def loss_fn(params, x, y):
    return jnp.mean((forward(params, x) - y) ** 2)


def train_step(params, x, y):
    grads = jax.grad(loss_fn)(params, x, y)
    grads = lax.pmean(grads, axis_name="batch")
    return jax.tree.map(lambda p, g: p - 0.1 * g, params, grads)


params = make_params(jax.random.key(0), 3, 1)  # module-level code is not a function
'''
