"""A request's parallel settings, parsed and checked once (the variants build from them)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from jaxviz.core import devices
from jaxviz.model import ErrorInfo, TraceRequest
from jaxviz.model.call_options import parse_axis_types, parse_devices_order, parse_out_axes
from jaxviz.model.errors import UserError, spec_error
from jaxviz.model.partition_specs import SpecTree, parse_partition_specs
from jaxviz.model.specs import (
    SpecError,
    axis_name_problem,
    batched_args_problem,
    parse_in_axes,
    parse_mesh,
)


@dataclass
class ParsedSettings:
    """The parallel settings of a request, parsed and checked.

    Attributes:
        specs, out_specs: a spec tree per argument / output (see
            :mod:`jaxviz.model.partition_specs`), or None when not given.
        axis_types: ``auto`` or ``explicit`` per mesh axis.
        out_axes: vmap's ``out_axes`` (0 by default).
        devices_order: the device ids the mesh is built from, in order (None: JAX's).
        batch_given: the user asked for a batch (``in_axes``, ``batch`` or batched
            arguments); without it, given specs shard the arguments as they are.
        mesh_named: the request names its mesh (``--mesh``), rather than taking the
            default one axis over every device.
    """

    nargs: int
    in_axes: list[int | None]
    axis_name: str
    batch: int | None
    mesh_axes: list[tuple[str, int]]
    specs: list[SpecTree] | None
    out_specs: list[SpecTree] | None
    mesh_text: str
    specs_text: str | None
    check_vma: bool = True
    axis_types: list[str] = field(default_factory=lambda: ["auto"])
    out_axes: Any = 0
    out_axes_text: str | None = None
    devices_order: list[int] | None = None
    batch_given: bool = True
    mesh_named: bool = False

    @property
    def batched(self) -> bool:
        return any(a is not None for a in self.in_axes)

    @property
    def explicit(self) -> bool:
        """Some mesh axis is ``Explicit``: the arguments carry their sharding in their types."""
        return "explicit" in self.axis_types

    @property
    def in_mesh(self) -> bool:
        """Some variants run inside ``jax.set_mesh(mesh)``: the mesh is named (sharded,
        shard_map) or explicit (every variant but pmap; explicit sharding needs it)."""
        return self.explicit or self.mesh_named

    @classmethod
    def from_request(cls, req: TraceRequest, nargs: int) -> ParsedSettings:
        n = len(devices.active_devices())
        specs = _parsed(req.specs, "specs", "partition specs")
        batch_given = bool((req.in_axes or "").strip() or req.batch is not None
                           or (req.batched_args or "").strip())
        try:
            in_axes = parse_in_axes(req.in_axes, nargs)
        except SpecError as exc:
            raise spec_error(exc, "in_axes", "in_axes") from None
        if specs and not batch_given:
            in_axes = [None] * nargs  # the specs shard the arguments as given
        axis_problem = axis_name_problem(req.axis_name)
        if axis_problem:
            raise UserError(ErrorInfo(kind="option", field="axis_name", message=axis_problem))
        mesh_text = req.mesh or f"{req.axis_name}={n}"
        try:
            mesh_axes = parse_mesh(mesh_text)
        except SpecError as exc:
            raise spec_error(exc, "mesh", "mesh") from None
        try:
            axis_types = parse_axis_types(req.axis_types, len(mesh_axes))
        except SpecError as exc:
            raise spec_error(exc, "axis_types", "mesh axis types") from None
        try:
            out_axes = parse_out_axes(req.out_axes)
        except SpecError as exc:
            raise spec_error(exc, "out_axes", "out_axes") from None
        try:
            order = parse_devices_order(req.devices_order)
        except SpecError as exc:
            raise spec_error(exc, "devices_order", "device order") from None
        out_specs = _parsed(req.out_specs, "out_specs", "output partition specs")
        if req.batch is not None and req.batch < 1:
            raise UserError(ErrorInfo(kind="option", field="batch",
                                      message=f"batch size must be at least 1, not {req.batch}"))
        problem = batched_args_problem(req.batched_args, in_axes)
        if problem:
            raise UserError(ErrorInfo(kind="option", field="batched_args", message=problem))
        return cls(nargs=nargs, in_axes=in_axes, axis_name=req.axis_name, batch=req.batch,
                   mesh_axes=mesh_axes, specs=specs, out_specs=out_specs,
                   mesh_text=mesh_text, specs_text=req.specs, check_vma=req.check_vma,
                   axis_types=axis_types, out_axes=out_axes, out_axes_text=req.out_axes,
                   devices_order=order, batch_given=batch_given, mesh_named=bool(req.mesh))


def _parsed(text: str | None, field_name: str, what: str) -> list[SpecTree] | None:
    if not text:
        return None
    try:
        return parse_partition_specs(text)
    except SpecError as exc:
        raise spec_error(exc, field_name, what) from None
