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

#: A function calling 60 jitted functions: a new one each time round, so the jaxpr prints
#: 60 nested ``jit`` jaxprs inline (a shared one would print once) -- a big jaxpr for panes.
SIXTY_JITS = '''import jax
import jax.numpy as jnp


def big(x, w):
    for _ in range(60):
        x = jax.jit(lambda x, w: jnp.tanh(x @ w) * 2.0 + x)(x, w)
    return x.sum()
'''


def trace_sixty_jits(variants=("plain",), args="f32[4,4], f32[4,4]", in_axes="None, None"):
    """:data:`SIXTY_JITS` traced by JAX (8 simulated devices): the result."""
    from jaxviz import core
    from jaxviz.model import Target, TraceRequest

    core.configure_devices(8)
    return core.trace_request(TraceRequest(
        target=Target(SIXTY_JITS, "<editor:big.py>", "big"), variants=list(variants),
        want=["jaxpr"], args=args, in_axes=in_axes))
