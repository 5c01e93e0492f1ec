"""Build real arguments from spec trees, and batch them for vmap / pmap / sharding."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxviz.core.call_code import sample
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
        return eval(compile(spec.source, f"<{field}>", "eval"), ns)  # noqa: S307 - user's own code
    except Exception as exc:  # noqa: BLE001
        info = from_exception(exc, filename, kind="spec")
        info.field = field
        info.position = max(text.find(spec.source), 0)
        info.message = f"evaluating {spec.source!r} in the {field} spec failed: {info.message}"
        raise UserError(info) from None


def concrete(value: Any) -> Any:
    """A value tree with abstract leaves replaced by arrays (see ``call_code.sample``)."""
    return jax.tree.map(lambda v: sample(v.shape, v.dtype)
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
