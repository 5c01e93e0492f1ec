"""Build each variant of a function -- plain, jit, vmap, pmap, sharded, shard_map.

Every variant is built with JAX's own transformations, exactly as a user would
write them, so what jaxviz shows is what JAX does. :func:`prepare` returns the
transformed callable, the arguments to call it with and the Python text of the
call (shown in the panes so the lecture can copy it).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import jax
import numpy as np
from jax.sharding import AxisType, Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

from jaxviz.core import arguments, devices
from jaxviz.model import ErrorInfo, TraceRequest
from jaxviz.model.errors import UserError, spec_error
from jaxviz.model.specs import (
    SpecError,
    format_mesh,
    format_partition_spec,
    parse_in_axes,
    parse_mesh,
    parse_partition_specs,
    partition_axis_names,
)

BATCHED_VARIANTS = arguments.BATCHED_VARIANTS


@dataclass
class Settings:
    """The parallel settings of a request, parsed and checked."""

    nargs: int
    in_axes: list[int | None]
    axis_name: str
    batch: int | None
    mesh_axes: list[tuple[str, int]]
    specs: list[tuple] | None
    out_specs: list[tuple] | None
    mesh_text: str
    specs_text: str | None

    @property
    def batched(self) -> bool:
        return any(a is not None for a in self.in_axes)

    @classmethod
    def from_request(cls, req: TraceRequest, nargs: int) -> Settings:
        n = len(devices.active_devices())
        try:
            in_axes = parse_in_axes(req.in_axes, nargs)
        except SpecError as exc:
            raise spec_error(exc, "in_axes", "in_axes") from None
        if not req.axis_name.isidentifier():
            raise UserError(ErrorInfo(kind="option", field="axis_name",
                                      message=f"axis name {req.axis_name!r} must be an identifier"))
        mesh_text = req.mesh or f"{req.axis_name}={n}"
        try:
            mesh_axes = parse_mesh(mesh_text)
        except SpecError as exc:
            raise spec_error(exc, "mesh", "mesh") from None
        specs = out_specs = None
        try:
            if req.specs:
                specs = parse_partition_specs(req.specs)
        except SpecError as exc:
            raise spec_error(exc, "specs", "partition specs") from None
        try:
            if req.out_specs:
                out_specs = parse_partition_specs(req.out_specs)
        except SpecError as exc:
            raise spec_error(exc, "out_specs", "output partition specs") from None
        if req.batch is not None and req.batch < 1:
            raise UserError(ErrorInfo(kind="option", field="batch",
                                      message=f"batch size must be at least 1, not {req.batch}"))
        return cls(nargs=nargs, in_axes=in_axes, axis_name=req.axis_name, batch=req.batch,
                   mesh_axes=mesh_axes, specs=specs, out_specs=out_specs,
                   mesh_text=mesh_text, specs_text=req.specs)


@dataclass
class Prepared:
    """A variant ready to trace: ``fn(*args)`` is the call."""

    variant: str
    fn: Callable
    args: list[Any]
    call: str
    mesh: Mesh | None = None
    notes: list[str] = field(default_factory=list)


def arg_names(fn: Callable, nargs: int) -> list[str]:
    """Parameter names of ``fn`` for its first ``nargs`` positional arguments."""
    try:
        params = [p.name for p in inspect.signature(fn).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)]
    except (TypeError, ValueError):
        params = []
    names = params[:nargs]
    return names + [f"arg{i}" for i in range(len(names), nargs)]


class VariantBuilder:
    """Builds the variants of one function for one request."""

    def __init__(self, fn: Callable, name: str, single: list[Any], settings: Settings,
                 batched: Callable[[], list[Any]]):
        self.fn = fn
        self.name = name
        self.single = single
        self.settings = settings
        self._batched_factory = batched
        self._batched: list[Any] | None = None
        self.devices = devices.active_devices()
        self.names = arg_names(fn, len(single))

    # -- shared pieces ------------------------------------------------------ #

    def batched_args(self) -> list[Any]:
        if self._batched is None:
            self._batched = self._batched_factory()
        return self._batched

    def batch_size(self) -> int:
        size = arguments.batch_size_of(self.batched_args(), self.settings.in_axes)
        return size if size is not None else len(self.devices)

    def _in_axes_text(self) -> str:
        axes = self.settings.in_axes
        return "" if all(a == 0 for a in axes) else f", in_axes={tuple(axes)!r}"

    def _require_batched(self, variant: str) -> None:
        if not self.settings.batched:
            raise UserError(ErrorInfo(
                kind="option", field="in_axes", variant=variant,
                message=f"{variant} needs at least one batched argument, but in_axes is "
                        f"{tuple(self.settings.in_axes)}: give an argument a batch axis "
                        f"(e.g. --in-axes 0)"))

    def mesh(self) -> Mesh:
        axes = self.settings.mesh_axes
        needed = int(np.prod([s for _, s in axes]))
        have = len(self.devices)
        if needed > have:
            raise UserError(ErrorInfo(
                kind="mesh", field="mesh",
                message=f"the mesh {format_mesh(axes)} needs {needed} devices but there are "
                        f"{have}: change the mesh so its sizes multiply to {have} "
                        f"(or fewer), or use --devices {needed}"))
        grid = np.array(self.devices[:needed], dtype=object).reshape([s for _, s in axes])
        names = tuple(n for n, _ in axes)
        return Mesh(grid, names, axis_types=(AxisType.Auto,) * len(names))

    def partition_specs(self, mesh: Mesh) -> list[P]:
        s = self.settings
        if s.specs is None:
            first = s.mesh_axes[0][0]
            specs: list[tuple[str | None, ...]] = []
            for axis in s.in_axes:
                if axis is None or axis < 0:
                    specs.append(() if axis is None else (first,))
                else:
                    specs.append((None,) * axis + (first,))
        else:
            specs = list(s.specs)
            if len(specs) == 1 and s.nargs > 1:
                specs = specs * s.nargs
            if len(specs) != s.nargs:
                raise UserError(ErrorInfo(
                    kind="option", field="specs",
                    message=f"{len(specs)} partition specs for {s.nargs} arguments: give one "
                            f"P(...) per argument, e.g. {', '.join(['P()'] * s.nargs)}"))
        names = set(mesh.axis_names)
        for i, spec in enumerate(specs):
            for axis_name in partition_axis_names(spec):
                if axis_name not in names:
                    raise UserError(ErrorInfo(
                        kind="mesh", field="specs",
                        position=(s.specs_text or "").find(repr(axis_name)[1:-1]),
                        message=f"partition spec {format_partition_spec(spec)} for argument "
                                f"{i + 1} ({self.names[i]}) names axis {axis_name!r}, but the mesh "
                                f"has axes {', '.join(mesh.axis_names)}"))
        return [P(*spec) for spec in specs]

    def _call_text(self, wrapped: str, batched: bool) -> str:
        args = ", ".join(f"{n}s" if batched and a is not None else n
                         for n, a in zip(self.names, self.settings.in_axes))
        return f"{wrapped}({args})"

    # -- the variants ------------------------------------------------------- #

    def prepare(self, variant: str) -> Prepared:
        method = getattr(self, f"_prepare_{variant}", None)
        if method is None:
            raise UserError(ErrorInfo(kind="option", field="variant", variant=variant,
                                      message=f"unknown variant {variant!r}; choose from plain, "
                                              f"jit, vmap, pmap, sharded, shard_map"))
        return method()

    def _prepare_plain(self) -> Prepared:
        return Prepared("plain", self.fn, self.single, self._call_text(self.name, False))

    def _prepare_jit(self) -> Prepared:
        return Prepared("jit", jax.jit(self.fn), self.single,
                        self._call_text(f"jax.jit({self.name})", False))

    def _prepare_vmap(self) -> Prepared:
        self._require_batched("vmap")
        s = self.settings
        fn = jax.vmap(self.fn, in_axes=tuple(s.in_axes), axis_name=s.axis_name)
        text = f"jax.vmap({self.name}{self._in_axes_text()}, axis_name={s.axis_name!r})"
        return Prepared("vmap", fn, self.batched_args(), self._call_text(text, True))

    def _prepare_pmap(self) -> Prepared:
        self._require_batched("pmap")
        s = self.settings
        n = len(self.devices)
        batch = self.batch_size()
        use_devices = None if len(self.devices) == len(jax.devices()) else self.devices
        if batch % n:
            options = sorted({n * k for k in (1, 2, 4)})
            divisors = [d for d in range(1, batch + 1) if batch % d == 0 and d <= 64]
            raise UserError(ErrorInfo(
                kind="batch", field="batch", variant="pmap",
                message=f"a batch of {batch} does not split across {n} devices: use a batch "
                        f"that is a multiple of {n} (e.g. --batch {options[0]} or "
                        f"{options[-1]}), or a device count that divides {batch} "
                        f"(--devices {', '.join(map(str, divisors[-3:]))})"))
        axes = tuple(s.in_axes)
        if batch == n:
            fn = jax.pmap(self.fn, axis_name=s.axis_name, in_axes=axes, devices=use_devices)
            text = f"jax.pmap({self.name}{self._in_axes_text()}, axis_name={s.axis_name!r})"
            return Prepared("pmap", fn, self.batched_args(), self._call_text(text, True))
        inner = jax.vmap(self.fn, in_axes=axes)
        fn = jax.pmap(inner, axis_name=s.axis_name, in_axes=axes, devices=use_devices)
        args = arguments.split_batch(self.batched_args(), s.in_axes, n)
        text = (f"jax.pmap(jax.vmap({self.name}{self._in_axes_text()}), "
                f"axis_name={s.axis_name!r})")
        prepared = Prepared("pmap", fn, args, self._call_text(text, True))
        prepared.notes.append(f"the batch of {batch} is reshaped to {n} devices x "
                              f"{batch // n} examples; each device vmaps over its examples")
        return prepared

    def _sharded_base(self) -> tuple[Callable, list[Any], str]:
        s = self.settings
        if s.batched:
            fn = jax.vmap(self.fn, in_axes=tuple(s.in_axes), axis_name=s.axis_name)
            text = f"jax.vmap({self.name}{self._in_axes_text()}, axis_name={s.axis_name!r})"
            return fn, self.batched_args(), text
        return self.fn, self.single, self.name

    def _prepare_sharded(self) -> Prepared:
        mesh = self.mesh()
        specs = self.partition_specs(mesh)
        base, args, text = self._sharded_base()
        shardings = tuple(NamedSharding(mesh, spec) for spec in specs)
        fn = jax.jit(base, in_shardings=shardings)
        specs_text = ", ".join(str(spec) for spec in specs)
        call = self._call_text(f"jax.jit({text}, in_shardings=[{specs_text}] on mesh "
                               f"{format_mesh(self.settings.mesh_axes)})", self.settings.batched)
        return Prepared("sharded", fn, args, call, mesh=mesh)

    def _prepare_shard_map(self) -> Prepared:
        s = self.settings
        mesh = self.mesh()
        specs = self.partition_specs(mesh)
        if s.batched:
            local = jax.vmap(self.fn, in_axes=tuple(s.in_axes))
            local_text = f"jax.vmap({self.name}{self._in_axes_text()})"
            args = self.batched_args()
        else:
            local, local_text, args = self.fn, self.name, self.single
        out_specs = self._out_specs(mesh, specs, local, args)
        shardings = tuple(NamedSharding(mesh, spec) for spec in specs)
        fn = jax.jit(jax.shard_map(local, mesh=mesh, in_specs=tuple(specs),
                                   out_specs=out_specs), in_shardings=shardings)
        call = self._call_text(
            f"jax.jit(jax.shard_map({local_text}, mesh={format_mesh(s.mesh_axes)}, "
            f"in_specs={tuple(specs)}, out_specs={out_specs}))", s.batched)
        return Prepared("shard_map", fn, args, call, mesh=mesh)

    def _out_specs(self, mesh: Mesh, specs: list[P], local: Callable, args: list[Any]) -> Any:
        s = self.settings
        if s.out_specs is not None:
            out = [P(*spec) for spec in s.out_specs]
            return out[0] if len(out) == 1 else tuple(out)
        if s.batched:
            return P(s.mesh_axes[0][0])
        # Unbatched: use the output sharding the XLA partitioner picks for the
        # same in_shardings, so shard_map reproduces the sharded variant.
        shardings = tuple(NamedSharding(mesh, spec) for spec in specs)
        compiled = jax.jit(local, in_shardings=shardings).lower(*args).compile()
        return jax.tree.map(lambda sh: getattr(sh, "spec", P()), compiled.output_shardings)
