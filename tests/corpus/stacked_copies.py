"""No silent batch: with no batched arguments, vmap runs on copies of x stacked along a
new axis 0 (and says so)."""
import jax
import jax.numpy as jnp


def center(x):
    return x - jnp.mean(x)


x = jnp.array([1.0, 2.0, 6.0])

CASES = {
    "vmap": dict(function="center", args="x",
                 reference="jax.vmap(center, axis_name='i')",
                 reference_args="[jnp.stack([x] * 8)]",
                 note="8 copies of x stacked along a new axis 0"),
}
