"""Build real arguments from spec trees, and batch them for vmap / pmap / sharding."""

from __future__ import annotations

import inspect
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxviz.model import ErrorInfo
from jaxviz.model.errors import UserError, from_exception, spec_error
from jaxviz.model.specs import DTYPES, Aval, Dict, Expr, Seq, Spec, SpecError, parse_args


def parse(text: str, field: str = "args") -> list[Spec]:
    try:
        return parse_args(text)
    except SpecError as exc:
        raise spec_error(exc, field, "argument spec" if field == "args"
                         else "batched argument spec") from None


def build(specs: list[Spec], namespace: dict[str, Any], text: str, filename: str,
          field: str = "args") -> list[Any]:
    """Turn spec trees into call arguments.

    Abstract types become :class:`jax.ShapeDtypeStruct` (enough to trace and
    lower; :func:`concrete` turns them into sample arrays for real calls);
    expressions are evaluated in the user's namespace.
    """
    return [_build(s, namespace, text, filename, field) for s in specs]


def _build(spec: Spec, ns: dict[str, Any], text: str, filename: str, field: str) -> Any:
    if isinstance(spec, Aval):
        return jax.ShapeDtypeStruct(spec.shape, jnp.dtype(DTYPES[spec.dtype]))
    if isinstance(spec, Seq):
        items = [_build(s, ns, text, filename, field) for s in spec.items]
        return items if spec.kind == "list" else tuple(items)
    if isinstance(spec, Dict):
        return {k: _build(v, ns, text, filename, field) for k, v in spec.items}
    assert isinstance(spec, Expr)
    try:
        value = eval(compile(spec.source, f"<{field}>", "eval"), ns)  # noqa: S307 - user's own code
    except Exception as exc:  # noqa: BLE001
        info = from_exception(exc, filename, kind="spec")
        info.field = field
        info.position = max(text.find(spec.source), 0)
        info.message = f"evaluating {spec.source!r} in the {field} spec failed: {info.message}"
        raise UserError(info) from None
    _check_traceable(value, spec.source, text, field)
    return value


def _check_traceable(value: Any, source: str, text: str, field: str) -> None:
    """Refuse a value JAX cannot take as an argument (a string, an int beyond int32...).

    Raises:
        UserError: (``kind="spec"``) naming the expression and why, at its position.
    """
    for leaf in jax.tree.leaves(value):
        if isinstance(leaf, (jax.Array, np.ndarray, jax.ShapeDtypeStruct)):
            continue
        try:
            jnp.asarray(leaf)
        except (TypeError, ValueError, OverflowError) as exc:
            raise UserError(ErrorInfo(
                kind="spec", field=field, position=max(text.find(source), 0),
                message=f"{source!r} in the {field} spec is not a value JAX can trace: "
                        f"{type(exc).__name__}: {str(exc).splitlines()[0]}")) from None


def check_count(fn: Any, name: str, count: int) -> None:
    """Refuse an argument spec that gives ``fn`` the wrong number of arguments.

    Raises:
        UserError: (``kind="spec"``, field ``args``) saying what ``fn`` takes.
    """
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):  # a builtin or C function: JAX will say
        return
    try:
        signature.bind(*range(count))
    except TypeError:
        params = [p for p in signature.parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        required = [p.name for p in params if p.default is p.empty]
        takes = (f"{len(required)} argument{'s' if len(required) != 1 else ''}"
                 if len(required) == len(params) else
                 f"{len(required)} to {len(params)} arguments")
        names = f" ({', '.join(p.name for p in params)})" if params else ""
        raise UserError(ErrorInfo(
            kind="spec", field="args", position=0,
            message=f"{name} takes {takes}{names}, but the argument spec gives "
                    f"{count}")) from None


def _sample(shape: tuple[int, ...], dtype: Any) -> jax.Array:
    """Reproducible sample values: (k mod 7 + 1) / 7 for floats, ones otherwise."""
    if jnp.issubdtype(dtype, jnp.floating):
        # Distinct, reproducible values make outputs worth looking at.
        size = int(np.prod(shape)) if shape else 1
        values = (np.arange(size, dtype=np.float64) % 7 + 1) / 7
        return jnp.asarray(values.reshape(shape), dtype=dtype)
    return jnp.ones(shape, dtype)


def concrete(value: Any) -> Any:
    """A value tree with abstract leaves replaced by arrays."""
    return jax.tree.map(lambda v: _sample(v.shape, v.dtype)
                        if isinstance(v, jax.ShapeDtypeStruct) else v, value)


def add_batch_axis(args: list[Any], in_axes: list[int | None], batch: int) -> list[Any]:
    """Add a batch axis of size ``batch`` at each argument's ``in_axes`` position."""
    out = []
    for i, (arg, axis) in enumerate(zip(args, in_axes)):
        if axis is None:
            out.append(arg)
            continue
        out.append(jax.tree.map(lambda leaf, axis=axis, i=i: _batch_leaf(leaf, axis, batch, i),
                                arg))
    return out


def _batch_leaf(leaf: Any, axis: int, batch: int, argno: int) -> Any:
    shape = tuple(np.shape(leaf)) if not isinstance(leaf, jax.ShapeDtypeStruct) else leaf.shape
    rank = len(shape)
    if not -rank - 1 <= axis <= rank:
        raise UserError(ErrorInfo(
            kind="option", field="in_axes",
            message=f"in_axes {axis} is out of range for argument {argno + 1} of rank {rank}"))
    pos = axis if axis >= 0 else rank + 1 + axis
    new_shape = shape[:pos] + (batch,) + shape[pos:]
    if isinstance(leaf, jax.ShapeDtypeStruct):
        return jax.ShapeDtypeStruct(new_shape, leaf.dtype)
    value = jnp.asarray(leaf)
    return jnp.broadcast_to(jnp.expand_dims(value, pos), new_shape)


def check_batched(args: list[Any], in_axes: list[int | None], names: list[str]) -> None:
    """Refuse batched arguments that lack the batch axis ``in_axes`` names, or whose batch
    axes differ in size (``vmap`` would raise about ranks or "inconsistent sizes").

    Raises:
        UserError: (``kind="spec"``, field ``batched_args``) naming the argument.
    """
    sizes: dict[int, str] = {}
    for i, (arg, axis) in enumerate(zip(args, in_axes)):
        if axis is None:
            continue
        for leaf in jax.tree.leaves(arg):
            shape = tuple(leaf.shape) if hasattr(leaf, "shape") else np.shape(leaf)
            if not -len(shape) <= axis < len(shape):
                raise UserError(ErrorInfo(
                    kind="spec", field="batched_args", message=(
                        f"batched argument {i + 1} ({names[i]}) has shape {shape}: in_axes "
                        f"{axis} needs a batch axis there (a batched argument has one more "
                        f"axis than the argument of one call)")))
            sizes.setdefault(int(shape[axis]), f"{names[i]}: {shape[axis]}")
    if len(sizes) > 1:
        raise UserError(ErrorInfo(kind="spec", field="batched_args", message=(
            f"the batched arguments have batch axes of different sizes "
            f"({', '.join(sizes.values())}): give them one batch size")))


def batch_size_of(args: list[Any], in_axes: list[int | None]) -> int | None:
    """The batch size of already-batched arguments (from the first batched leaf)."""
    for arg, axis in zip(args, in_axes):
        if axis is None:
            continue
        for leaf in jax.tree.leaves(arg):
            shape = leaf.shape if hasattr(leaf, "shape") else np.shape(leaf)
            if len(shape) > (axis if axis >= 0 else -axis - 1):
                return int(shape[axis])
    return None


def split_batch(args: list[Any], in_axes: list[int | None], groups: int) -> list[Any]:
    """Reshape each batch axis ``B`` into ``(groups, B // groups)`` (for pmap of vmap)."""
    out = []
    for arg, axis in zip(args, in_axes):
        if axis is None:
            out.append(arg)
            continue

        def split(leaf: Any, axis: int = axis) -> Any:
            shape = tuple(leaf.shape)
            pos = axis if axis >= 0 else len(shape) + axis
            new_shape = shape[:pos] + (groups, shape[pos] // groups) + shape[pos + 1:]
            if isinstance(leaf, jax.ShapeDtypeStruct):
                return jax.ShapeDtypeStruct(new_shape, leaf.dtype)
            return jnp.reshape(leaf, new_shape)

        out.append(jax.tree.map(split, arg))
    return out
