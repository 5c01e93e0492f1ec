"""Static arguments: a Python int that decides shapes (jnp.arange needs a concrete size)
is passed by name, never traced: jax.jit(f, static_argnames='n')."""
import functools

import jax
import jax.numpy as jnp


def powers(x, n):
    return jnp.stack([x ** k for k in range(n)])


x = jnp.linspace(0.0, 1.0, 5)

CASES = {
    "jit": dict(function="powers", args="x, n=3",
                reference="functools.partial(jax.jit(powers, static_argnames=('n',)), n=3)",
                reference_args="[x]"),
    "plain": dict(function="powers", args="x", static="n=4",
                  reference="functools.partial(powers, n=4)", reference_args="[x]"),
    "vmap": dict(function="powers", args="x, n=2", in_axes="0",
                 reference="jax.vmap(functools.partial(powers, n=2), axis_name='i')",
                 reference_args="[jnp.stack([x] * 8)]"),
}
assert functools  # the references use it
