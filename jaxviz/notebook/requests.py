"""The trace request of a notebook call: settings from keyword options and from the arrays.

``jaxviz.view(f, xs, ws, variant="pmap", in_axes=(0, None))`` takes the
window's settings as keyword options, as text (``mesh="data=4,model=2"``,
``specs="P('data'), P()"``) or as Python values (``mesh={"data": 4}``, a
``jax.sharding.Mesh``, a tuple of ``PartitionSpec``, ``in_axes=(0, None)``).
Arrays that already carry a ``NamedSharding`` give the sharded variant its mesh
and specs. For ``vmap`` and ``pmap`` (and ``sharded``/``shard_map`` without
specs) the arguments are the *batched* ones, as ``jax.pmap(f)(xs, ws)`` takes
them; the per-example call is derived from them by dropping each ``in_axes`` axis.
"""

from __future__ import annotations

import ast
from typing import Any

from jaxviz.model import VARIANTS, Target, TraceRequest
from jaxviz.notebook.shipping import Shipment, ShippingError

#: The keyword options that set a trace setting (the window's Arguments fields).
SETTINGS = ("in_axes", "axis_name", "batch", "mesh", "specs", "out_specs", "axis_types",
            "out_axes", "static", "devices_order", "check_vma")
#: Variants whose arguments are a batch (as ``jax.vmap(f)`` / ``jax.pmap(f)`` take them).
BATCHED = ("vmap", "pmap", "sharded", "shard_map")


def check_variant(variant: str) -> str:
    if variant not in VARIANTS:
        raise ShippingError(f"unknown variant {variant!r}; choose one of {', '.join(VARIANTS)}")
    return variant


def spec_text(spec: Any) -> str:
    """``P('data', None)`` for a ``PartitionSpec`` (or a text already)."""
    if isinstance(spec, str):
        return spec
    if spec is None:
        return "P()"
    parts = []
    for entry in tuple(spec):
        if entry is None or isinstance(entry, str):
            parts.append(repr(entry))
        else:
            parts.append("(" + ", ".join(repr(e) for e in entry) + ("," if len(entry) == 1
                                                                     else "") + ")")
    return f"P({', '.join(parts)})"


def mesh_text(mesh: Any) -> str:
    """``data=4,model=2`` from a text, a dict of axis sizes or a ``jax.sharding.Mesh``."""
    if isinstance(mesh, str):
        return mesh
    shape = getattr(mesh, "shape", mesh)
    if isinstance(shape, dict):
        return ",".join(f"{name}={int(size)}" for name, size in shape.items())
    raise ShippingError(f"mesh: give \"data=4,model=2\", {{'data': 4, 'model': 2}} or a "
                        f"jax.sharding.Mesh, not {type(mesh).__name__}")


def _axes_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, tuple | list):
        return ", ".join("None" if v is None else str(v) for v in value)
    return "None" if value is None else str(value)


def settings_text(options: dict[str, Any]) -> dict[str, Any]:
    """The trace settings from keyword options, as the request's texts."""
    unknown = [k for k in options if k not in SETTINGS]
    if unknown:
        raise ShippingError(f"unknown option {unknown[0]!r}; the options are: "
                            f"{', '.join(SETTINGS)}")
    out: dict[str, Any] = {}
    for name, value in options.items():
        if value is None:
            continue
        if name == "mesh":
            out[name] = mesh_text(value)
        elif name in ("specs", "out_specs"):
            if isinstance(value, str):
                out[name] = value
            else:
                many = value if isinstance(value, tuple | list) else (value,)
                out[name] = ", ".join(spec_text(s) for s in many)
        elif name in ("in_axes", "out_axes", "devices_order"):
            out[name] = _axes_text(value)
        elif name == "static" and isinstance(value, dict):
            out[name] = ", ".join(f"{k}={v!r}" for k, v in value.items())
        elif name == "axis_types" and not isinstance(value, str):
            many = value if isinstance(value, tuple | list) else (value,)
            out[name] = ",".join(str(getattr(v, "name", v)).lower() for v in many)
        else:
            out[name] = value
    return out


def carried_sharding(arrays: list[Any]) -> dict[str, str]:
    """The mesh and specs the arguments' ``NamedSharding``s give (empty when none has one
    over more than one device)."""
    mesh: Any = None
    specs: list[str] = []
    for value in arrays:
        sharding: Any = getattr(value, "sharding", None) if hasattr(value, "shape") else None
        if type(sharding).__name__ == "NamedSharding" and sharding.mesh.size > 1:
            if mesh is not None and sharding.mesh.shape != mesh.shape:
                raise ShippingError("the arguments are sharded over different meshes "
                                    f"({mesh_text(mesh)} and {mesh_text(sharding.mesh)}): "
                                    "jaxviz shows one mesh")
            mesh = sharding.mesh
            specs.append(spec_text(sharding.spec))
        else:
            specs.append("P()")
    if mesh is None:
        return {}
    out = {"mesh": mesh_text(mesh), "specs": ", ".join(specs)}
    types = [str(getattr(t, "name", t)).lower() for t in getattr(mesh, "axis_types", ())]
    if types and any(t == "explicit" for t in types):
        out["axis_types"] = ",".join(types)
    return out


def _per_example(shipment: Shipment, in_axes: str | None) -> str:
    """The unbatched call's argument types: each batched argument without its in_axes axis."""
    count = len(shipment.shapes)
    axes: list[int | None] = [0] * count
    if in_axes:
        try:
            parsed = ast.literal_eval(f"({in_axes},)")
        except (SyntaxError, ValueError):
            return shipment.args  # the request's own check reports the field
        if len(parsed) == 1 and count > 1:
            parsed = parsed * count
        if len(parsed) == count and all(a is None or isinstance(a, int) for a in parsed):
            axes = list(parsed)
    texts = []
    for text, shape, axis in zip(_split(shipment.args, count), shipment.shapes, axes):
        if shape is None or axis is None:
            texts.append(text)
            continue
        dims, dtype = shape
        if not dims:
            raise ShippingError(f"the argument {text} is a scalar: it has no batch axis for "
                                f"vmap/pmap (give in_axes=None for it)")
        axis = axis % len(dims)
        texts.append(f"{dtype}[{','.join(str(d) for d in dims[:axis] + dims[axis + 1:])}]")
    return ", ".join(texts)


def _split(args: str, count: int) -> list[str]:
    """The top-level comma-separated parts of ``args`` (literals may hold commas)."""
    parts, depth, current = [], 0, ""
    quote = ""
    for ch in args:
        if quote:
            current += ch
            if ch == quote:
                quote = ""
            continue
        if ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(current.strip())
            current = ""
            continue
        current += ch
    if current.strip():
        parts.append(current.strip())
    return parts if len(parts) == count else [args] + [""] * (count - 1)


def build_request(shipment: Shipment, variants: list[str], options: dict[str, Any],
                  want: list[str]) -> TraceRequest:
    """The request for ``variants`` of the shipped call (options over carried shardings)."""
    settings: dict[str, Any] = dict(carried_sharding(shipment.arrays))
    settings.update(settings_text(options))
    batched = any(v in ("vmap", "pmap") for v in variants) or (
        any(v in BATCHED for v in variants) and "specs" not in settings)
    if settings.get("in_axes") or settings.get("batch"):
        batched = batched or any(v in BATCHED for v in variants)
    if batched and any(v in BATCHED for v in variants):
        args = _per_example(shipment, settings.get("in_axes"))
        batched_args = shipment.args
    else:
        args, batched_args = shipment.args, None
    target = Target(source=shipment.source, filename=shipment.filename,
                    function=shipment.function)
    return TraceRequest(target=target, args=args, batched_args=batched_args,
                        variants=list(variants), want=want, **settings)
