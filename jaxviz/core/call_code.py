"""The Python text of every variant's call: the one place it is written.

:class:`CallWriter` turns a request's settings into Python that runs as
written in a fresh interpreter (see :class:`jaxviz.model.call_code.CallCode`):
the transformations with their options (``jax.vmap(f, in_axes=(None, 0),
axis_name='i')``), the mesh built with ``jax.make_mesh(..., axis_types=...)``,
partition specs with ``P``, and the arguments defined from the argument specs
(abstract types become :func:`sample` calls drawing from
``np.random.default_rng(0)`` in argument order, as jaxviz draws them -- the
function's source is copied into the code; expressions are copied as typed). The variant builder
(:mod:`jaxviz.core.variants`) builds each variant from the same values it
hands this writer, so the text says what runs.
"""

from __future__ import annotations

import inspect
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxviz.model.call_code import CallCode
from jaxviz.model.partition_specs import format_partition_spec
from jaxviz.model.specs import DTYPES, Aval, Dict, Expr, Seq, Spec

#: The imports each piece of text may need, by the name it uses.
IMPORTS = {
    "functools": "import functools",
    "jnp": "import jax.numpy as jnp",
    "np": "import numpy as np",
    "sharding": "from jax.sharding import AxisType, NamedSharding, PartitionSpec as P",
}


def sample(rng, shape, dtype):
    """Random values as jaxviz makes them: floats standard normal rounded to 2 decimals,
    signed integers uniform in [-5, 5], unsigned in [0, 9], booleans fair coin flips."""
    dtype = jnp.dtype(dtype)
    if jnp.issubdtype(dtype, jnp.complexfloating):
        real = np.round(rng.standard_normal(shape), 2)
        imag = np.round(rng.standard_normal(shape), 2)
        return jnp.asarray(real + 1j * imag, dtype=dtype)
    if jnp.issubdtype(dtype, jnp.floating):
        return jnp.asarray(np.round(rng.standard_normal(shape), 2), dtype=dtype)
    if jnp.issubdtype(dtype, jnp.signedinteger):
        return jnp.asarray(rng.integers(-5, 6, size=shape), dtype=dtype)
    if jnp.issubdtype(dtype, jnp.unsignedinteger):
        return jnp.asarray(rng.integers(0, 10, size=shape), dtype=dtype)
    if dtype == jnp.bool_:
        return jnp.asarray(rng.random(shape) < 0.5)
    raise TypeError(f"no random values for dtype {dtype}")


SAMPLE_SOURCE = inspect.getsource(sample)
#: The seed of the random arguments of one call (``jaxviz run`` uses 0).
SEED = 0


def dtype_text(short: str) -> str:
    """``jnp.float32`` for ``f32`` (``bool`` for booleans)."""
    name = DTYPES[short]
    return "bool" if name == "bool" else f"jnp.{name}"


def aval_text(dtype: str, shape: tuple[int, ...]) -> str:
    """``sample(rng, (8, 5), jnp.float32)``: an abstract type's random values."""
    return f"sample(rng, {tuple(shape)!r}, {dtype_text(dtype)})"


def spec_text(spec: Spec) -> str:
    """The Python that builds one argument from its spec tree."""
    if isinstance(spec, Aval):
        return aval_text(spec.dtype, spec.shape)
    if isinstance(spec, Expr):
        return spec.source.strip()
    if isinstance(spec, Seq):
        inner = ", ".join(spec_text(s) for s in spec.items)
        if spec.kind == "list":
            return f"[{inner}]"
        return f"({inner},)" if len(spec.items) == 1 else f"({inner})"
    assert isinstance(spec, Dict)
    # keys in JAX's flattening order (sorted), so random values are drawn as jaxviz draws them
    return "{" + ", ".join(f"{k!r}: {spec_text(v)}" for k, v in _sorted(spec.items)) + "}"


def batched_spec_text(spec: Spec, value: Any, axis: int, size: int) -> str:
    """The Python that builds one argument with a batch axis of ``size`` at ``axis``.

    Abstract types are sampled at the batched shape (as jaxviz batches them);
    an expression's value is stacked ``size`` times.
    """
    if isinstance(spec, Aval):
        rank = len(spec.shape)
        pos = axis if axis >= 0 else rank + 1 + axis
        return aval_text(spec.dtype, spec.shape[:pos] + (size,) + spec.shape[pos:])
    if isinstance(spec, Seq):
        items = [batched_spec_text(s, v, axis, size) for s, v in zip(spec.items, value)]
        inner = ", ".join(items)
        if spec.kind == "list":
            return f"[{inner}]"
        return f"({inner},)" if len(items) == 1 else f"({inner})"
    if isinstance(spec, Dict):
        return "{" + ", ".join(f"{k!r}: {batched_spec_text(s, value[k], axis, size)}"
                               for k, s in _sorted(spec.items)) + "}"
    assert isinstance(spec, Expr)
    where = "" if axis == 0 else f", axis={axis}"
    if len(jax.tree.leaves(value)) == 1 and not isinstance(value, (list, tuple, dict)):
        return f"jnp.stack([{spec.source.strip()}] * {size}{where})"
    return f"jax.tree.map(lambda a: jnp.stack([a] * {size}{where}), {spec.source.strip()})"


def _sorted(items: tuple[tuple[object, Spec], ...]) -> list[tuple[object, Spec]]:
    try:
        return sorted(items, key=lambda kv: kv[0])  # type: ignore[arg-type,return-value]
    except TypeError:
        return list(items)


def spec_list_text(specs: list[Any]) -> str:
    """``(P('i'), P())`` for a list of jax PartitionSpecs (a tuple literal)."""
    return partition_text(tuple(specs))


def partition_text(spec: Any) -> str:
    """``P('data', None)`` for a jax PartitionSpec, or the literal of a pytree of them."""
    return _tree_text(spec, lambda leaf: format_partition_spec(tuple(leaf)))


def sharding_tree_text(spec: Any, mesh: str = "mesh") -> str:
    """``NamedSharding(mesh, P('i'))`` for a spec, or the literal of a pytree of them."""
    return _tree_text(spec, lambda leaf: f"NamedSharding({mesh}, {partition_text(leaf)})")


def _tree_text(tree: Any, leaf_text: Any) -> str:
    if _is_partition_spec(tree):
        return str(leaf_text(tree))
    if isinstance(tree, dict):
        return "{" + ", ".join(f"{k!r}: {_tree_text(v, leaf_text)}" for k, v in tree.items()) + "}"
    inner = ", ".join(_tree_text(t, leaf_text) for t in tree)
    if isinstance(tree, list):
        return f"[{inner}]"
    return f"({inner},)" if len(tree) == 1 else f"({inner})"


def _is_partition_spec(value: Any) -> bool:
    return type(value).__name__ in ("PartitionSpec", "P")


def in_axes_text(in_axes: list[int | None]) -> str:
    """``, in_axes=(None, 0)`` (empty when every argument is batched along 0)."""
    return "" if all(a == 0 for a in in_axes) else f", in_axes={tuple(in_axes)!r}"


class CallWriter:
    """Writes the :class:`CallCode` of one request's variants.

    Args:
        function: the function's name in its source.
        names: a Python name per argument (the function's parameter names).
        in_axes: each argument's batch axis (``None``: not batched).
        single_specs: the argument specs of one unbatched call.
        batched_specs: the batched argument specs, when given (else ``None``:
            built from ``single_specs`` by adding the batch axis).
        single_values: the unbatched arguments (to tell arrays from trees).
        batch: the batch size added to arguments built from the unbatched ones.
        simulated: the devices are simulated CPU devices (the code sets their count).
        device_count: how many devices JAX has in this process.
        static: the static arguments as ``(name, Python text)``, passed by name.
    """

    def __init__(self, function: str, names: list[str], in_axes: list[int | None],
                 single_specs: list[Spec], batched_specs: list[Spec] | None,
                 single_values: list[Any], batch: int, simulated: bool, device_count: int,
                 static: list[tuple[str, str]] | None = None):
        self.function = function
        self.names = names
        self.in_axes = in_axes
        self.single_specs = single_specs
        self.batched_specs = batched_specs
        self.single_values = single_values
        self.batch = batch
        self.simulated = simulated
        self.device_count = device_count
        self.static = list(static or [])
        #: how many of ``static`` (the first ones) are passed by position, before the
        #: arguments: the function's first parameters
        self.leading = 0

    # -- names --------------------------------------------------------------- #

    def arg_names(self, batched: bool) -> list[str]:
        """The names the call passes: ``xs`` for a batched ``x``, ``params_batch`` for a
        batched ``params`` (a name that ends in ``s`` already: not ``paramss``)."""
        if not batched:
            return list(self.names)
        taken = set(self.names) | {self.function}
        out = []
        for name, axis in zip(self.names, self.in_axes):
            if axis is None:
                out.append(name)
                continue
            plural = f"{name}_batch" if name.endswith("s") else f"{name}s"
            while plural in taken:
                plural += "_"
            taken.add(plural)
            out.append(plural)
        return out

    def args_text(self, batched: bool) -> str:
        return ", ".join(self.arg_names(batched))

    # -- pieces -------------------------------------------------------------- #

    def static_text(self) -> str:
        """``n=3, mode='sum'``: the static arguments as keywords ('' when none)."""
        return ", ".join(f"{name}={text}" for name, text in self.static[self.leading:])

    def leading_text(self) -> str:
        """``dist``: the leading static arguments' values, passed by position."""
        return ", ".join(text for _, text in self.static[:self.leading])

    def bound_text(self, function: str) -> str:
        """``functools.partial(f, n=3)``: the function with its static arguments bound."""
        parts = [p for p in (self.leading_text(), self.static_text()) if p]
        return f"functools.partial({function}, {', '.join(parts)})" if self.static \
            else function

    def direct_call(self, function: str, batched: bool) -> str:
        """``f(x, w, n=3)``: a call passing the static arguments by name (the leading ones
        by position, first)."""
        parts = [p for p in (self.leading_text(), self.args_text(batched), self.static_text())
                 if p]
        return f"{function}({', '.join(parts)})"

    def mesh_text(self, axes: list[tuple[str, int]], used: int, types: list[str] | None = None,
                  order: list[int] | None = None) -> str:
        """``jax.make_mesh((4, 2), ('data', 'model'), axis_types=...)`` on the first devices
        (or on the devices named by ``order``, in that order)."""
        shape = tuple(size for _, size in axes)
        names = tuple(name for name, _ in axes)
        kinds = [f"AxisType.{(t or 'auto').capitalize()}" for t in (types or ["auto"] * len(axes))]
        if len(kinds) == 1 and len(axes) > 1:
            kinds = kinds * len(axes)
        types_text = "(" + ", ".join(kinds) + (",)" if len(axes) == 1 else ")")
        devices = "" if used == self.device_count and order is None else \
            f", devices={self.devices_text(used, order)}"
        return f"jax.make_mesh({shape!r}, {names!r}, axis_types={types_text}{devices})"

    def devices_text(self, used: int, order: list[int] | None) -> str:
        """``jax.devices()[:4]``, or ``[jax.devices()[i] for i in (0, 2, 1, 3)]`` for an order."""
        if order is None:
            return f"jax.devices()[:{used}]"
        return f"[jax.devices()[i] for i in {tuple(order[:used])!r}]"

    def shardings_text(self, specs: list[Any]) -> str:
        """``(NamedSharding(mesh, P('i')), ...)``: one sharding (or pytree) per argument."""
        inner = ", ".join(sharding_tree_text(s) for s in specs)
        return f"({inner},)" if len(specs) == 1 else f"({inner})"

    # -- the code ------------------------------------------------------------ #

    def code(self, call: str, batched: bool, mesh: str | None = None,
             extra: list[str] | None = None, set_mesh: bool = False) -> CallCode:
        """The whole code of one call: imports, device count, arguments, mesh, call.

        Args:
            call: the call expression (using :meth:`arg_names` and ``mesh``).
            batched: the call takes the batched arguments.
            mesh: the mesh expression, when the call uses ``mesh``.
            extra: more setup lines, after the arguments and the mesh.
            set_mesh: the call runs inside the mesh (``jax.set_mesh(mesh)``, for
                explicit meshes).
        """
        setup = self._argument_lines(batched)
        if mesh is not None:
            setup.append(f"mesh = {mesh}")
            if set_mesh:
                setup.append("jax.set_mesh(mesh)")
        setup += extra or []
        text = "\n".join([*setup, call])
        imports = ["import jax"]
        if "functools." in text:
            imports.append(IMPORTS["functools"])
        if "jnp." in text or "sample(" in text:
            imports.append(IMPORTS["jnp"])
        if "np." in text.replace("jnp.", "") or "sample(" in text:
            imports.append(IMPORTS["np"])
        if mesh is not None or "P(" in text:
            imports.append(IMPORTS["sharding"])
        if any("sample(" in line for line in setup):
            setup = [*SAMPLE_SOURCE.strip("\n").splitlines(), "",
                     f"rng = np.random.default_rng({SEED})", *setup]
        config = ([f'jax.config.update("jax_num_cpu_devices", {self.device_count})']
                  if self.simulated else [])
        return CallCode(call=call, imports=imports, config=config, setup=setup)

    def _argument_lines(self, batched: bool) -> list[str]:
        lines = []
        names = self.arg_names(batched)
        for i, name in enumerate(names):
            text = self._argument_text(i, batched)
            if text != name:
                lines.append(f"{name} = {text}")
        return lines

    def _argument_text(self, i: int, batched: bool) -> str:
        axis = self.in_axes[i] if i < len(self.in_axes) else None
        if batched and self.batched_specs is not None:
            return spec_text(self.batched_specs[i])
        if not batched or axis is None:
            return spec_text(self.single_specs[i])
        return batched_spec_text(self.single_specs[i], self.single_values[i], axis, self.batch)
