"""Transformations compose: jit of vmap of a function

`jax.jit(jax.vmap(f))` is a function like any other: vmap rewrites the jaxpr to
carry a batch axis, jit compiles the batched jaxpr into one XLA program. The
order matters for what you see, not for the result: `jit(vmap(f))` and
`vmap(jit(f))` give the same numbers. Here `f` is `selu`, the scaled exponential
linear unit: `lmbda * x` for positive `x`, `lmbda * alpha * (exp(x) - 1)` otherwise.
"""
import jax
import jax.numpy as jnp


def selu(x, alpha=1.67, lmbda=1.05):
    return lmbda * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)


JAXVIZ = {
    "topic": "jit",
    "function": "selu",
    "args": "f32[1000]",
    "variants": ["plain", "jit", "vmap", "sharded"],
    "order": 9,
    "timing": {"variants": ["op-by-op", "jit"], "sweep": "n=1000,10000,100000,1000000",
               "sweep_args": "f32[n]"},
}
