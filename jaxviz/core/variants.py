"""Build each variant of a function -- plain, jit, vmap, pmap, sharded, shard_map.

Every variant is built with JAX's own transformations, exactly as a user would
write them, so what jaxviz shows is what JAX does. :meth:`VariantBuilder.prepare`
returns the transformed callable, the arguments to call it with and the
Python of the call (:class:`~jaxviz.model.call_code.CallCode`, written by
:mod:`jaxviz.core.call_code` from the same settings), which runs as written.
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

from jaxviz.core import arguments, devices, out_specs
from jaxviz.core.call_code import CallWriter, in_axes_text, partition_text, spec_list_text
from jaxviz.model import ErrorInfo, TraceRequest
from jaxviz.model.call_code import CallCode
from jaxviz.model.errors import UserError, spec_error
from jaxviz.model.notes import VariantNote
from jaxviz.model.specs import (
    SpecError,
    axis_name_problem,
    batched_args_problem,
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
    check_vma: bool = True

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
        axis_problem = axis_name_problem(req.axis_name)
        if axis_problem:
            raise UserError(ErrorInfo(kind="option", field="axis_name", message=axis_problem))
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
        problem = batched_args_problem(req.batched_args, in_axes)
        if problem:
            raise UserError(ErrorInfo(kind="option", field="batched_args", message=problem))
        return cls(nargs=nargs, in_axes=in_axes, axis_name=req.axis_name, batch=req.batch,
                   mesh_axes=mesh_axes, specs=specs, out_specs=out_specs,
                   mesh_text=mesh_text, specs_text=req.specs, check_vma=req.check_vma)


@dataclass
class Prepared:
    """A variant ready to trace: ``fn(*args)`` is the call, ``code`` its Python."""

    variant: str
    fn: Callable
    args: list[Any]
    code: CallCode
    mesh: Mesh | None = None
    notes: list[VariantNote] = field(default_factory=list)
    #: Examples each device holds when a batch is spread over devices (pmap, shard_map).
    per_device: int = 1

    @property
    def call(self) -> str:
        """The call as one line of Python."""
        return self.code.call


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
    """Builds the variants of one function for one request.

    Args:
        fn: the function; ``name`` its name in the source.
        single: the arguments of one unbatched call.
        settings: the parsed parallel settings.
        batched: makes the batched arguments (called once, when a variant needs them).
        writer: writes the Python of each call (see :mod:`jaxviz.core.call_code`).
    """

    def __init__(self, fn: Callable, name: str, single: list[Any], settings: Settings,
                 batched: Callable[[], list[Any]], writer: CallWriter):
        self.fn = fn
        self.name = name
        self.single = single
        self.settings = settings
        self._batched_factory = batched
        self._batched: list[Any] | None = None
        self.devices = devices.active_devices()
        self.names = writer.names
        self.writer = writer

    # -- shared pieces ------------------------------------------------------ #

    def batched_args(self) -> list[Any]:
        if self._batched is None:
            self._batched = self._batched_factory()
        return self._batched

    def batch_size(self) -> int:
        size = arguments.batch_size_of(self.batched_args(), self.settings.in_axes)
        return size if size is not None else len(self.devices)

    def _require_batched(self, variant: str) -> None:
        if not self.settings.batched:
            raise UserError(ErrorInfo(
                kind="option", field="in_axes", variant=variant,
                message=f"{variant} needs at least one batched argument, but in_axes is "
                        f"{tuple(self.settings.in_axes)}: give an argument a batch axis "
                        f"(e.g. --in-axes 0)"))

    def _mesh_size(self) -> int:
        axes = self.settings.mesh_axes
        needed = int(np.prod([s for _, s in axes]))
        have = len(self.devices)
        if needed > have:
            raise UserError(ErrorInfo(
                kind="mesh", field="mesh",
                message=f"the mesh {format_mesh(axes)} needs {needed} devices but there are "
                        f"{have}: change the mesh so its sizes multiply to {have} "
                        f"(or fewer), or use --devices {needed}"))
        return needed

    def mesh(self) -> Mesh:
        """The mesh, built as the call's code builds it (``jax.make_mesh``)."""
        axes = self.settings.mesh_axes
        needed = self._mesh_size()
        return jax.make_mesh(tuple(s for _, s in axes), tuple(n for n, _ in axes),
                             axis_types=(AxisType.Auto,) * len(axes),
                             devices=self.devices[:needed])

    def mesh_text(self) -> str:
        return self.writer.mesh_text(self.settings.mesh_axes, self._mesh_size())

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

    def check_divisible(self, args: list[Any], specs: list[P], mesh: Mesh, variant: str) -> None:
        """Refuse shards that would not be even, saying what to change (JAX would raise
        ``IndivisibleError`` with a sharding repr instead).

        Raises:
            UserError: ``kind="batch"`` (field ``batch``) when the batch axis does not
                split over the mesh axes its spec names, else ``kind="mesh"``
                (field ``specs``).
        """
        s = self.settings
        for i, (arg, spec) in enumerate(zip(args, specs)):
            for leaf in jax.tree.leaves(arg):
                shape = tuple(np.shape(leaf)) if not hasattr(leaf, "shape") else leaf.shape
                for dim, entry in enumerate(tuple(spec)[:len(shape)]):
                    names = (entry,) if isinstance(entry, str) else tuple(entry or ())
                    parts = int(np.prod([mesh.shape[n] for n in names])) if names else 1
                    if shape[dim] % parts == 0:
                        continue
                    over = " x ".join(f"{n}={mesh.shape[n]}" for n in names)
                    what = (f"argument {i + 1} ({self.names[i]}) has size {shape[dim]} along "
                            f"axis {dim}, which {spec} splits over {over}: {parts} devices "
                            f"cannot share {shape[dim]} evenly")
                    axis = s.in_axes[i]
                    if s.batched and axis is not None and dim == axis % len(shape):
                        divisors = [d for d in range(1, shape[dim] + 1) if shape[dim] % d == 0]
                        fits = -(-shape[dim] // parts) * parts
                        raise UserError(ErrorInfo(
                            kind="batch", field="batch", variant=variant,
                            message=f"a batch of {shape[dim]} does not split over {over} "
                                    f"(argument {i + 1}, {self.names[i]}, axis {dim}, by "
                                    f"{spec}): {parts} devices cannot share {shape[dim]} "
                                    f"evenly: use a batch that is a multiple of {parts} "
                                    f"(--batch {fits}), or a mesh axis that divides "
                                    f"{shape[dim]} (--mesh {names[0]}="
                                    f"{max(d for d in divisors if d <= parts)})"))
                    raise UserError(ErrorInfo(
                        kind="mesh", field="specs", variant=variant,
                        message=f"{what}: change the partition spec (--specs) or the mesh "
                                f"(--mesh) so that {parts} divides {shape[dim]}"))

    def _code(self, wrapped: str, batched: bool, mesh: bool = False,
              args: str | None = None) -> CallCode:
        """The code of ``wrapped(args)`` (the variant's arguments by default)."""
        call = f"{wrapped}({self.writer.args_text(batched) if args is None else args})"
        return self.writer.code(call, batched, self.mesh_text() if mesh else None)

    def vmap_text(self, axis_name: bool) -> str:
        s = self.settings
        named = f", axis_name={s.axis_name!r}" if axis_name else ""
        return f"jax.vmap({self.name}{in_axes_text(s.in_axes)}{named})"

    # -- the variants ------------------------------------------------------- #

    def prepare(self, variant: str) -> Prepared:
        method = getattr(self, f"_prepare_{variant}", None)
        if method is None:
            raise UserError(ErrorInfo(kind="option", field="variant", variant=variant,
                                      message=f"unknown variant {variant!r}; choose from plain, "
                                              f"jit, vmap, pmap, sharded, shard_map"))
        return method()

    def _prepare_plain(self) -> Prepared:
        return Prepared("plain", self.fn, self.single, self._code(self.name, False))

    def _prepare_jit(self) -> Prepared:
        return Prepared("jit", jax.jit(self.fn), self.single,
                        self._code(f"jax.jit({self.name})", False))

    def _prepare_vmap(self) -> Prepared:
        self._require_batched("vmap")
        s = self.settings
        fn = jax.vmap(self.fn, in_axes=tuple(s.in_axes), axis_name=s.axis_name)
        return Prepared("vmap", fn, self.batched_args(), self._code(self.vmap_text(True), True))

    def _prepare_pmap(self) -> Prepared:
        self._require_batched("pmap")
        s = self.settings
        n = len(self.devices)
        batch = self.batch_size()
        use_devices = None if len(self.devices) == len(jax.devices()) else self.devices
        where = "" if use_devices is None else f", devices=jax.devices()[:{n}]"
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
        kwargs = f"{in_axes_text(s.in_axes)}, axis_name={s.axis_name!r}{where}"
        if batch == n:
            fn = jax.pmap(self.fn, axis_name=s.axis_name, in_axes=axes, devices=use_devices)
            return Prepared("pmap", fn, self.batched_args(),
                            self._code(f"jax.pmap({self.name}{kwargs})", True))
        per = batch // n
        inner = jax.vmap(self.fn, in_axes=axes)
        fn = jax.pmap(inner, axis_name=s.axis_name, in_axes=axes, devices=use_devices)
        args = arguments.split_batch(self.batched_args(), s.in_axes, n)
        split = ", ".join(
            name if axis is None else _split_text(name, value, axis, n, per)
            for name, value, axis in zip(self.writer.arg_names(True), self.batched_args(),
                                         s.in_axes))
        code = self._code(f"jax.pmap({self.vmap_text(False)}{kwargs})", True, args=split)
        return Prepared("pmap", fn, args, code, per_device=per)

    def _sharded_base(self) -> tuple[Callable, list[Any], str]:
        s = self.settings
        if s.batched:
            fn = jax.vmap(self.fn, in_axes=tuple(s.in_axes), axis_name=s.axis_name)
            return fn, self.batched_args(), self.vmap_text(True)
        return self.fn, self.single, self.name

    def _prepare_sharded(self) -> Prepared:
        mesh = self.mesh()
        specs = self.partition_specs(mesh)
        base, args, text = self._sharded_base()
        self.check_divisible(args, specs, mesh, "sharded")
        shardings = tuple(NamedSharding(mesh, spec) for spec in specs)
        fn = jax.jit(base, in_shardings=shardings)
        code = self._code(f"jax.jit({text}, in_shardings={self.writer.shardings_text(specs)})",
                          self.settings.batched, mesh=True)
        return Prepared("sharded", fn, args, code, mesh=mesh)

    def _prepare_shard_map(self) -> Prepared:
        s = self.settings
        mesh = self.mesh()
        specs = self.partition_specs(mesh)
        if s.batched:
            local = jax.vmap(self.fn, in_axes=tuple(s.in_axes))
            local_text = self.vmap_text(False)
            args = self.batched_args()
        else:
            local, local_text, args = self.fn, self.name, self.single
        self.check_divisible(args, specs, mesh, "shard_map")
        outs = self._out_specs(mesh, specs, local, args)
        shardings = tuple(NamedSharding(mesh, spec) for spec in specs)
        fn = jax.jit(jax.shard_map(local, mesh=mesh, in_specs=tuple(specs), out_specs=outs,
                                   check_vma=s.check_vma), in_shardings=shardings)
        vma = "" if s.check_vma else ", check_vma=False"
        code = self._code(
            f"jax.jit(jax.shard_map({local_text}, mesh=mesh, in_specs={spec_list_text(specs)}, "
            f"out_specs={partition_text(outs)}{vma}), "
            f"in_shardings={self.writer.shardings_text(specs)})", s.batched, mesh=True)
        per = 1
        if s.batched:
            split = int(np.prod([mesh.shape[a] for a in self._batch_axes(specs)] or [1]))
            per = max(self.batch_size() // split, 1)
        return Prepared("shard_map", fn, args, code, mesh=mesh, per_device=per)

    def batch_axes(self, mesh: Mesh) -> tuple[str, ...]:
        """The mesh axes the batch is split over (none when nothing is batched)."""
        return self._batch_axes(self.partition_specs(mesh)) if self.settings.batched else ()

    def _batch_axes(self, specs: list[P]) -> tuple[str, ...]:
        """The mesh axes the batch dimension is split over (from the first batched argument)."""
        for spec, axis in zip(specs, self.settings.in_axes):
            if axis is None:
                continue
            entries = tuple(spec)
            entry = entries[axis] if -len(entries) <= axis < len(entries) else None
            if entry is None:
                return ()
            return entry if isinstance(entry, tuple) else (entry,)
        return ()

    def _out_specs(self, mesh: Mesh, specs: list[P], local: Callable, args: list[Any]) -> Any:
        s = self.settings
        if s.out_specs is not None:
            out = [P(*spec) for spec in s.out_specs]
            return out[0] if len(out) == 1 else tuple(out)
        batch_axes = self._batch_axes(specs) if s.batched else ()
        try:
            return out_specs.infer(local, mesh, tuple(specs), args, batch_axes)
        except out_specs.OutSpecsError as exc:
            raise UserError(ErrorInfo(kind="option", field="out_specs", variant="shard_map",
                                      message=exc.message)) from None


def _split_text(name: str, value: Any, axis: int, groups: int, per: int) -> str:
    """Python that reshapes the batch axis of ``name`` into ``(groups, per)``."""
    if axis == 0:
        one = f"{{a}}.reshape({groups}, {per}, *{{a}}.shape[1:])"
    else:
        one = f"{{a}}.reshape({{a}}.shape[:{axis}] + ({groups}, {per}) + {{a}}.shape[{axis}:][1:])"
    if len(jax.tree.leaves(value)) == 1 and not isinstance(value, (list, tuple, dict)):
        return one.format(a=name)
    return f"jax.tree.map(lambda a: {one.format(a='a')}, {name})"
