"""Transformations compose: jit of vmap of a function

`jax.jit(jax.vmap(f))` is a function like any other: vmap rewrites the jaxpr to
carry a batch axis, jit compiles the batched jaxpr into one XLA program. Here the
function is `selu_batch = vmap(selu)`: its plain pane is vmap(selu) run op by op, its
jit pane `jax.jit(selu_batch)` is jit(vmap(selu)), and its sharded pane splits the
batch over the devices. The
order matters for what you see, not for the result: `jit(vmap(f))` and
`vmap(jit(f))` give the same numbers. Here `f` is `selu`, the scaled exponential
linear unit: `lmbda * x` for positive `x`, `lmbda * alpha * (exp(x) - 1)` otherwise.
"""
import jax
import jax.numpy as jnp


def selu(x, alpha=1.67, lmbda=1.05):
    return lmbda * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)


def selu_batch(xs):
    """selu on every row of a batch: jax.vmap(selu). Its jit variant is jit(vmap(selu))."""
    return jax.vmap(selu)(xs)


JAXVIZ = {
    "topic": "jit",
    "function": "selu_batch",
    "args": "f32[8,1000]",
    "variants": ["plain", "jit", "sharded"],
    "in_axes": "None",
    "mesh": "i=8",
    "specs": "P('i')",
    "order": 9,
    "timing": {"variants": ["op-by-op", "jit"], "sweep": "n=1000,10000,100000",
               "sweep_args": "f32[8,n]"},
}
