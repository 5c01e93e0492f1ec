"""Parse the call options beyond arguments and specs: mesh axis types, vmap's
``out_axes``, static arguments and the device order of the mesh.

Pure Python (no JAX): the window checks these fields as they are typed, the
command line checks its flags with them, the core turns them into
``AxisType``, ``jax.vmap(out_axes=...)``, ``static_argnames`` and a mesh built
from an explicit device list. Every error is a :class:`~jaxviz.model.specs.SpecError`
with the position of the fault.

Example:
    >>> parse_axis_types("explicit", 2)
    ['explicit', 'explicit']
    >>> parse_out_axes("0, None")
    (0, None)
    >>> [(s.name, s.spec.source) for s in parse_static("n=3, mode='sum'")]
    [('n', '3'), ('mode', "'sum'")]
    >>> parse_devices_order("0,2,4,6,1,3,5,7", 8)
    [0, 2, 4, 6, 1, 3, 5, 7]
"""

from __future__ import annotations

import ast
import re
from typing import Any

from jaxviz.model.partition_specs import Offset
from jaxviz.model.specs import (
    Aval,
    SpecError,
    StaticArg,
    call_nodes,
    parse_call_args,
    refuse_keywords,
)

#: The mesh axis types a user can choose (``jax.sharding.AxisType`` members, lower case).
AXIS_TYPES = ("auto", "explicit")


def parse_axis_types(text: str | None, naxes: int | None = None) -> list[str]:
    """``"explicit"`` (every axis) or one type per mesh axis (``"explicit,auto"``).

    Args:
        text: what was typed; empty or None means every axis ``auto``.
        naxes: how many axes the mesh has (None: not known yet; a single type
            then stands for all).

    Returns:
        One of :data:`AXIS_TYPES` per axis (a single entry when ``naxes`` is None
        and one type was typed).
    """
    if text is None or not text.strip():
        return ["auto"] * (naxes or 1)
    types: list[str] = []
    for m in re.finditer(r"[^,\s]+", text):
        word = m.group(0).lower().removeprefix("axistype.")
        if word not in AXIS_TYPES:
            raise SpecError(f"mesh axis type {m.group(0)!r} should be one of "
                            f"{', '.join(AXIS_TYPES)}", text, m.start())
        types.append(word)
    if len(types) == 1 and naxes is not None:
        return types * naxes
    if naxes is not None and len(types) != naxes:
        raise SpecError(f"{len(types)} axis types for a mesh of {naxes} axes: give one type "
                        f"for all, or one per axis", text, 0)
    return types


def any_explicit(text: str | None) -> bool:
    """Whether an axis-types text makes any mesh axis ``Explicit`` (it must parse)."""
    return "explicit" in parse_axis_types(text)


OutAxes = Any  # int | None | tuple/list/dict of them


def parse_out_axes(text: str | None) -> OutAxes:
    """vmap's ``out_axes``: an int, ``None``, or a tuple/list/dict of them (one per output).

    ``"0, None"`` is the tuple ``(0, None)``; empty text is ``0`` (JAX's default).
    """
    if text is None or not text.strip():
        return 0
    call, offset = call_nodes(text)
    refuse_keywords(call, text, offset, "out_axes")
    values = [_axes_tree(node, text, offset) for node in call.args]
    return values[0] if len(values) == 1 else tuple(values)


def _axes_tree(node: ast.expr, text: str, offset: Offset) -> OutAxes:
    if isinstance(node, (ast.List, ast.Tuple)):
        items = [_axes_tree(e, text, offset) for e in node.elts]
        return items if isinstance(node, ast.List) else tuple(items)
    if isinstance(node, ast.Dict):
        out = {}
        for key, value in zip(node.keys, node.values):
            if not isinstance(key, ast.Constant):
                raise SpecError("dict keys must be constants such as 'w'", text,
                                offset(key if key is not None else value))
            out[key.value] = _axes_tree(value, text, offset)
        return out
    try:
        literal: object = ast.literal_eval(node)
    except ValueError:
        literal = ...
    if literal is None or (isinstance(literal, int) and not isinstance(literal, bool)):
        return literal
    raise SpecError("out_axes entries must be integers or None", text, offset(node))


def parse_static(text: str | None) -> list[StaticArg]:
    """Static arguments ``"n=3, mode='sum'"``: names and Python expressions.

    Raises:
        SpecError: a positional value, a repeated name, or an abstract type
            (a static argument is a value, never traced).
    """
    if text is None or not text.strip():
        return []
    positional, static = parse_call_args(text)
    if positional:
        raise SpecError("give static arguments as name=value, e.g. n=3", text, 0)
    check_static_values(static, text)
    return static


def check_static_values(static: list[StaticArg], text: str) -> None:
    """Static arguments are values: an abstract type (``n=i32[]``) is refused."""
    for arg in static:
        if isinstance(arg.spec, Aval):
            raise SpecError(f"static argument {arg.name!r} must be a Python value (it is "
                            f"never traced), not the type {arg.spec}", text, arg.position)


def parse_devices_order(text: str | None, devices: int | None = None) -> list[int] | None:
    """The device ids a mesh is built from, in order (``"0,2,4,6,1,3,5,7"``).

    Args:
        text: what was typed; empty or None: JAX's order.
        devices: how many devices there are (ids must be below it), if known.
    """
    if text is None or not text.strip():
        return None
    order: list[int] = []
    for m in re.finditer(r"[^,\s]+", text):
        word = m.group(0)
        if not word.isdigit():
            raise SpecError(f"device id {word!r} is not a non-negative integer", text, m.start())
        device = int(word)
        if device in order:
            raise SpecError(f"device {device} is named twice", text, m.start())
        if devices is not None and device >= devices:
            raise SpecError(f"there is no device {device}: the ids are 0..{devices - 1}",
                            text, m.start())
        order.append(device)
    if not order:
        raise SpecError("name the devices in order, e.g. 0,2,4,6,1,3,5,7", text, 0)
    return order
