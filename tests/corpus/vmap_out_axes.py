"""Vectorization guide: vmap with out_axes -- the batch goes to axis 1 of the first output
and nowhere for the second (it does not depend on the batch)."""
import jax
import jax.numpy as jnp
import numpy as np


def stats(x, scale):
    return x * scale, scale * 2


xs = np.arange(12.0, dtype=np.float32).reshape(4, 3)
scale = np.float32(0.5)

CASES = {
    "vmap": dict(function="stats", args="xs[0], scale", batched_args="xs, scale",
                 in_axes="0, None", out_axes="1, None",
                 reference="jax.vmap(stats, in_axes=(0, None), out_axes=(1, None), "
                           "axis_name='i')",
                 reference_args="[xs, scale]"),
    "vmap_last": dict(variant="vmap", function="stats", args="xs[0], scale",
                      batched_args="xs, scale", in_axes="0, None", out_axes="(-1, None)",
                      reference="jax.vmap(stats, in_axes=(0, None), out_axes=(-1, None), "
                                "axis_name='i')",
                      reference_args="[xs, scale]"),
}
