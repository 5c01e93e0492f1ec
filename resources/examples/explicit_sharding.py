"""Explicit sharding: the sharding is part of the type (JAX's explicit-sharding guide)

With an *Auto* mesh, `jax.jit(f, in_shardings=...)` tells the compiler where the
inputs live; inside the function the types say nothing about sharding
(`i32[4,1]`), and XLA decides where every intermediate and output goes. With an
*Explicit* mesh (`axis_types=(AxisType.Explicit, ...)`, made current with
`jax.set_mesh`), the sharding is part of each value's type: `jax.typeof(x)`
prints `int32[4@X,1]` -- 4 rows split over mesh axis `X` -- and JAX computes
each result's sharding at trace time, operation by operation: adding a
`4@X,1` to a `1,8@Y` gives a `4@X,8@Y`; summing over the `Y` axis leaves `4@X`.
Where the rule is ambiguous (a matmul whose contracted dimension is split), JAX
refuses and asks for `out_sharding=`; `jax.reshard` moves a value to another
sharding, `auto_axes` hands some axes back to the compiler.

This file is written as the guide writes it: an explicit 2 x 4 mesh set for the
whole module, and a jitted function. The "as written" pane shows it as it runs
(types with `@X` and `@Y`; the arguments placed by the partition specs), the
"sharded" pane shows the same function under an Auto mesh of the same shape,
where the types carry nothing and the compiler chooses. Both print what
`jax.typeof` says (Console) and compute the same numbers; the Devices tab shows
where the compiled programs put the results. Switch Mesh axes to explicit in
Arguments to see the sharded pane's types gain their sharding too.
"""
import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import AxisType

mesh = jax.make_mesh((2, 4), ("X", "Y"), axis_types=(AxisType.Explicit, AxisType.Explicit))
jax.set_mesh(mesh)


@jax.jit
def add_arrays(x, y):
    ans = x + y
    print(f"x: {jax.typeof(x)}  y: {jax.typeof(y)}  ans: {jax.typeof(ans)}")
    return ans, jnp.sum(ans, axis=1)


JAXVIZ = {
    "topic": "explicit sharding",
    "function": "add_arrays",
    "args": "np.arange(4).reshape(4, 1), np.arange(8).reshape(1, 8)",
    "variants": ["as_written", "sharded"],
    "in_axes": "None, None",
    "mesh": "X=2,Y=4",
    "axis_types": "auto",
    "specs": "P('X', None), P(None, 'Y')",
    "order": 9,
}
