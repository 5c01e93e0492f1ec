"""Build each variant of a function -- as written, plain, jit, vmap, pmap, sharded, shard_map.

Every variant is built with JAX's own transformations, exactly as a user would
write them, so what jaxviz shows is what JAX does. :meth:`VariantBuilder.prepare`
returns the transformed callable, the arguments to call it with, the mesh it
runs inside (``jax.set_mesh``, for explicit meshes) and the Python of the call
(:class:`~jaxviz.model.call_code.CallCode`, written by :mod:`jaxviz.core.call_code`
from the same settings), which runs as written. ``as_written`` calls the
function exactly as its module defines it (:mod:`jaxviz.core.as_written`).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

import jax
import numpy as np
from jax.sharding import Mesh
from jax.sharding import PartitionSpec as P

from jaxviz.core import arguments, devices, meshes, out_specs
from jaxviz.core.call_code import (
    CallWriter,
    in_axes_text,
    partition_text,
    sharding_tree_text,
)
from jaxviz.core.prepared import Prepared
from jaxviz.core.settings import ParsedSettings
from jaxviz.model import ErrorInfo
from jaxviz.model.call_code import CallCode
from jaxviz.model.errors import UserError
from jaxviz.model.notes import VariantNote
from jaxviz.model.specs import format_mesh

BATCHED_VARIANTS = arguments.BATCHED_VARIANTS
__all__ = ["BATCHED_VARIANTS", "Prepared", "ParsedSettings", "VariantBuilder", "arg_names"]


def arg_names(fn: Callable, nargs: int, skip: list[str] | tuple[str, ...] = ()) -> list[str]:
    """Parameter names of ``fn`` for its first ``nargs`` positional arguments (after the
    parameters ``skip`` names: leading static arguments)."""
    try:
        params = [p.name for p in inspect.signature(fn).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)
                  and p.name not in skip]
    except (TypeError, ValueError):
        params = []
    names = params[:nargs]
    return names + [f"arg{i}" for i in range(len(names), nargs)]


class VariantBuilder:
    """Builds the variants of one function for one request.

    Args:
        fn: the function as its module defines it; ``name`` its name in the source.
        single: the arguments of one unbatched call.
        settings: the parsed parallel settings.
        batched: makes the batched arguments (called once, when a variant needs them).
        writer: writes the Python of each call (see :mod:`jaxviz.core.call_code`).
        static: the static arguments, by name (bound with ``functools.partial``;
            ``jax.jit(..., static_argnames=...)`` for the jit variant).
        module_mesh: the mesh the module set with ``jax.set_mesh``, if it did.
        source: the module's source (the as_written variant's note reads it).
        namespace: the module's namespace (as_written places arguments on its mesh).
        mesh_given: the request names a mesh (``--mesh``), rather than the default one.
    """

    def __init__(self, fn: Callable, name: str, single: list[Any], settings: ParsedSettings,
                 batched: Callable[[], list[Any]], writer: CallWriter,
                 static: dict[str, Any] | None = None, module_mesh: Mesh | None = None,
                 source: str = "", namespace: dict[str, Any] | None = None,
                 mesh_given: bool = False):
        self.written = fn
        self.source = source
        self.namespace = namespace or {}
        self.mesh_given = mesh_given
        self.static = dict(static or {})
        #: static arguments that are the first parameters: passed by position, first
        self.leading = arguments.leading_static(fn, self.static)
        self.fn = self.bind(fn) if self.static else fn
        self.name = name
        self.single = single
        self.settings = settings
        self._batched_factory = batched
        self._batched: list[Any] | None = None
        self.devices = devices.active_devices()
        self.names = writer.names
        self.writer = writer
        self.module_mesh = module_mesh
        self._mesh: Mesh | None = None
        #: The function as transformations name it: ``f`` or ``functools.partial(f, n=3)``.
        self.fn_text = writer.bound_text(name)

    def bind(self, fn: Callable) -> Callable:
        """``fn`` with the static arguments bound: the leading ones by position."""
        rest = {k: v for k, v in self.static.items() if k not in self.leading}
        return functools.partial(fn, *(self.static[k] for k in self.leading), **rest)

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
            hint = (" (--specs without --in-axes, --batch or --batched-args shard the "
                    "arguments as they are)" if self.settings.specs and
                    not self.settings.batch_given else "")
            raise UserError(ErrorInfo(
                kind="option", field="in_axes", variant=variant,
                message=f"{variant} needs at least one batched argument, but in_axes is "
                        f"{tuple(self.settings.in_axes)}{hint}: give an argument a batch "
                        f"axis (e.g. --in-axes 0)"))

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
        if self._mesh is None:
            s = self.settings
            needed = self._mesh_size()
            chosen = meshes.ordered_devices(self.devices, s.devices_order, needed)
            self._mesh = meshes.build_mesh(s.mesh_axes, s.axis_types, chosen)
        return self._mesh

    def built(self, mesh: Mesh | None) -> bool:
        """Whether ``mesh`` is the one jaxviz built (:meth:`mesh`), not the module's own."""
        return mesh is not None and mesh is self._mesh

    def context(self, variant: str) -> Mesh | None:
        """The mesh ``variant`` runs inside (``jax.set_mesh``), or None.

        Under an explicit mesh every variant but ``pmap`` (which builds its own mesh
        and never runs inside another); under a mesh named by the request, the
        variants that use it (``sharded``, ``shard_map``: a bare ``P(...)`` in the
        function reads it); otherwise the mesh the module set, if it did (as the
        module's own code would run). ``as_written`` runs inside the mesh its
        module set, if any.
        """
        if variant == "as_written":
            return self.module_mesh
        if variant == "pmap":
            return None
        return self.mesh() if self._own_context(variant) else self.module_mesh

    def _own_context(self, variant: str) -> bool:
        """The variant runs inside the request's mesh (its code must set it)."""
        s = self.settings
        if variant in ("as_written", "pmap"):
            return False
        return s.explicit or (s.mesh_named and variant in ("sharded", "shard_map"))

    def mesh_text(self) -> str:
        s = self.settings
        return self.writer.mesh_text(s.mesh_axes, self._mesh_size(), s.axis_types,
                                     s.devices_order)

    def partition_specs(self, mesh: Mesh) -> list[Any]:
        """One ``PartitionSpec`` (or pytree of them) per argument."""
        s = self.settings
        if s.specs is None:
            first = s.mesh_axes[0][0]
            return [P() if axis is None else P(*(None,) * max(axis, 0), first)
                    for axis in s.in_axes]
        specs = list(s.specs)
        if len(specs) == 1 and s.nargs > 1:
            specs = specs * s.nargs
        if len(specs) != s.nargs:
            raise UserError(ErrorInfo(
                kind="option", field="specs",
                message=f"{len(specs)} partition specs for {s.nargs} argument"
                        f"{'s' if s.nargs != 1 else ''}: give one "
                        f"P(...) per argument (or a pytree of them for a pytree argument), "
                        f"e.g. {', '.join(['P()'] * s.nargs)}"))
        meshes.check_axis_names(mesh, specs, s.specs_text, self.names)
        return [meshes.to_jax(spec) for spec in specs]

    def check_divisible(self, mesh: Mesh, specs: list[Any], args: list[Any],
                        variant: str) -> None:
        """Refuse shards that would not be even, saying what to change (JAX would raise
        ``IndivisibleError`` with a sharding repr instead).

        Raises:
            UserError: ``kind="batch"`` (field ``batch``) when the batch axis does not
                split over the mesh axes its spec names, else ``kind="mesh"`` (field
                ``specs``); naming the argument (and leaf) and the dimension.
        """
        s = self.settings
        leaves = meshes.per_leaf(specs, args, self.names, s.specs_text)
        for i, (arg_leaves, axis) in enumerate(zip(leaves, s.in_axes)):
            for leaf_name, leaf, spec in arg_leaves:
                shape = tuple(np.shape(leaf))
                if len(tuple(spec)) > len(shape):  # JAX: "only valid for values of rank ..."
                    fitting = meshes.spec_text(P(*tuple(spec)[:len(shape)]))
                    raise UserError(ErrorInfo(
                        kind="spec", field="specs", variant=variant,
                        message=f"argument {i + 1} ({leaf_name}) has rank {len(shape)} "
                                f"(shape {shape}), but {meshes.spec_text(spec)} names "
                                f"{len(tuple(spec))} dimensions: give it a partition spec of "
                                f"at most {len(shape)} entr{'y' if len(shape) == 1 else 'ies'}"
                                f" (--specs), e.g. {fitting}"))
                problem = meshes.divisible_problem(mesh, spec, shape)
                if problem is None:
                    continue
                dim, names, parts = problem
                size = shape[dim]
                over = " x ".join(f"{n}={mesh.shape[n]}" for n in names)
                spec_words = meshes.spec_text(spec)
                if s.batched and axis is not None and dim == axis % len(shape):
                    fits = -(-size // parts) * parts
                    divisor = max(d for d in range(1, parts + 1) if size % d == 0)
                    raise UserError(ErrorInfo(
                        kind="batch", field="batch", variant=variant,
                        message=f"a batch of {size} does not split over {over} (argument "
                                f"{i + 1}, {leaf_name}, axis {dim}, by {spec_words}): {parts} "
                                f"devices cannot share {size} evenly: use a batch that is a "
                                f"multiple of {parts} (--batch {fits}), or a mesh axis that "
                                f"divides {size} (--mesh {names[0]}={divisor})"))
                raise UserError(ErrorInfo(
                    kind="mesh", field="specs", variant=variant,
                    message=f"argument {i + 1} ({leaf_name}) has size {size} along axis "
                            f"{dim}, which {spec_words} splits over {over}: {parts} devices "
                            f"cannot share {size} evenly: change the partition spec (--specs) "
                            f"or the mesh (--mesh) so that {parts} divides {size}"))

    def _code(self, wrapped: str, batched: bool, mesh: bool = False,
              args: str | None = None, variant: str = "",
              extra: list[str] | None = None) -> CallCode:
        """The code of ``wrapped(args)`` (the variant's arguments by default)."""
        call = f"{wrapped}({self.writer.args_text(batched) if args is None else args})"
        set_mesh = mesh and self._own_context(variant)
        if variant == "pmap" and self.module_mesh is not None:
            extra = ["jax.set_mesh(None)  # pmap builds its own mesh", *(extra or [])]
        return self.writer.code(call, batched, self.mesh_text() if mesh else None,
                                set_mesh=set_mesh, extra=extra)

    def _placed(self, mesh: Mesh, specs: list[Any], args: list[Any],
                batched: bool) -> tuple[list[Any], list[str]]:
        """Under an explicit mesh, the arguments placed by their specs, and the code lines.

        In explicit mode a type carries its sharding: JAX takes it from the
        argument (``jax.device_put``), and ``in_shardings`` must agree with it.
        """
        if not self.settings.explicit:
            return args, []
        placed = [meshes.place(a, meshes.shardings(mesh, s)) for a, s in zip(args, specs)]
        lines = [f"{name} = jax.device_put({name}, {sharding_tree_text(spec)})"
                 for name, spec in zip(self.writer.arg_names(batched), specs)]
        return placed, lines

    def vmap_text(self, axis_name: bool, out_axes: bool = False) -> str:
        s = self.settings
        named = f", axis_name={s.axis_name!r}" if axis_name else ""
        outs = f", out_axes={s.out_axes!r}" if out_axes and s.out_axes != 0 else ""
        return f"jax.vmap({self.fn_text}{in_axes_text(s.in_axes)}{outs}{named})"

    def _notes(self, variant: str) -> list[VariantNote]:
        """What a variant's arguments and context do that its call does not show."""
        notes = []
        if variant in BATCHED_VARIANTS and self.settings.batched and \
                not self.writer.batched_specs:
            notes += arguments.stacked_notes(self.single, self.names, self.settings.in_axes,
                                             self.batch_size(), self.writer.single_specs)
        if variant == "pmap" and (self.settings.in_mesh or self.module_mesh is not None):
            words = meshes.mesh_words(self.settings.mesh_axes, self.settings.axis_types) \
                if self.settings.in_mesh else "the mesh the module set"
            notes.append(VariantNote("outside_mesh", (
                f"pmap runs outside the mesh the other variants run in ({words}): it builds "
                f"its own mesh over the {len(self.devices)} devices, and JAX refuses it "
                f"inside jax.set_mesh of another")))
        return notes

    # -- the variants ------------------------------------------------------- #

    def prepare(self, variant: str) -> Prepared:
        method = getattr(self, f"_prepare_{variant}", None)
        if method is None:
            raise UserError(ErrorInfo(kind="option", field="variant", variant=variant,
                                      message=f"unknown variant {variant!r}; choose from "
                                              f"as_written, plain, jit, vmap, pmap, sharded, "
                                              f"shard_map"))
        if variant in BATCHED_VARIANTS and self.settings.batched:
            self.batched_args()  # made outside the mesh, as the code makes them before set_mesh
        with meshes.mesh_context(self.context(variant)):
            prepared: Prepared = method()
        prepared.context = self.context(variant)
        prepared.notes = self._notes(variant) + prepared.notes
        return prepared

    def _prepare_as_written(self) -> Prepared:
        from jaxviz.core.as_written import prepare

        return prepare(self)

    def _prepare_plain(self) -> Prepared:
        call = self.writer.direct_call(self.name, False)
        return Prepared("plain", self.fn, self.single,
                        self._mesh_code(call, "plain"))

    def _prepare_jit(self) -> Prepared:
        names = tuple(self.static)
        fn: Callable
        if names:
            jitted = jax.jit(self.written, static_argnames=names)
            fn = self.bind(jitted)
            text = f"jax.jit({self.name}, static_argnames={names!r})"
        else:
            fn, text = jax.jit(self.fn), f"jax.jit({self.name})"
        return Prepared("jit", fn, self.single,
                        self._mesh_code(self.writer.direct_call(text, False), "jit"))

    def _mesh_code(self, call: str, variant: str) -> CallCode:
        """The code of a call that needs the mesh only as its context (named meshes)."""
        inside = self._own_context(variant)
        return self.writer.code(call, False, self.mesh_text() if inside else None,
                                set_mesh=inside)

    def _prepare_vmap(self) -> Prepared:
        self._require_batched("vmap")
        s = self.settings
        self._check_out_axes()
        fn = jax.vmap(self.fn, in_axes=tuple(s.in_axes), out_axes=s.out_axes,
                      axis_name=s.axis_name)
        text = self.vmap_text(True, out_axes=True)
        code = self._code(text, True, mesh=self._own_context("vmap"), variant="vmap")
        return Prepared("vmap", fn, self.batched_args(), code)

    def _check_out_axes(self) -> None:
        """Every ``out_axes`` entry is an axis of the batched output it places.

        Raises:
            UserError: (``kind="option"``, field ``out_axes``) naming the entry, the
                output and the range of axes it has. Outputs whose structure does not
                take the ``out_axes`` tree are left to ``jax.vmap``, which says so.
        """
        out_axes = self.settings.out_axes
        if isinstance(out_axes, int) and -1 <= out_axes <= 1:
            return  # an axis of every output, whatever its rank
        pairs: list[tuple[int | None, Any]] = []

        def collect(axis: int | None, out: Any) -> None:
            pairs.extend((axis, leaf) for leaf in jax.tree.leaves(out))

        try:  # inside the variant's mesh (prepare), as vmap will trace it
            outs = jax.eval_shape(self.fn, *self.single)
        except Exception:  # noqa: BLE001 - not decidable here: vmap will say
            return
        try:
            jax.tree.map(collect, out_axes, outs, is_leaf=lambda x: x is None)
        except (ValueError, TypeError):
            leaves = jax.tree.leaves(outs)
            returns = ", ".join(f"{leaf.dtype}{list(leaf.shape)}" for leaf in leaves)
            raise UserError(ErrorInfo(
                kind="option", field="out_axes", variant="vmap",
                message=f"out_axes {self.settings.out_axes_text} does not fit what "
                        f"{self.name} returns ({len(leaves)} array"
                        f"{'s' if len(leaves) != 1 else ''}: {returns}): give one entry "
                        f"per output (a tuple for a tuple), or one for all")) from None
        for number, (axis, leaf) in enumerate(pairs, 1):
            rank = len(leaf.shape) + 1  # the batched output
            if axis is not None and not -rank <= axis < rank:
                raise UserError(ErrorInfo(
                    kind="option", field="out_axes", variant="vmap",
                    message=f"out_axes {axis} is out of range for output {number} "
                            f"({leaf.dtype}{list(leaf.shape)}): batched, it has {rank} axes, "
                            f"so its out_axes is from {-rank} to {rank - 1}"))

    def _prepare_pmap(self) -> Prepared:
        self._require_batched("pmap")
        s = self.settings
        n = len(self.devices)
        batch = self.batch_size()
        ordered = meshes.ordered_devices(self.devices, s.devices_order, n, "pmap")
        all_devices = len(self.devices) == len(jax.devices())
        use_devices = None if all_devices and s.devices_order is None else ordered
        where = ("" if use_devices is None else
                 f", devices={self.writer.devices_text(n, s.devices_order)}")
        if batch < n:
            # jax.pmap maps over the first `batch` devices (of devices=, or of jax.devices())
            first = None if s.devices_order is None else ordered[:batch]
            where = ("" if first is None else
                     f", devices={self.writer.devices_text(batch, s.devices_order)}")
            fn = jax.pmap(self.fn, axis_name=s.axis_name, in_axes=tuple(s.in_axes),
                          devices=first)
            return Prepared("pmap", fn, self.batched_args(),
                            self._code(f"jax.pmap({self.fn_text}{in_axes_text(s.in_axes)}, "
                                       f"axis_name={s.axis_name!r}{where})", True,
                                       variant="pmap"),
                            notes=[VariantNote("fewer_examples", (
                                f"a batch of {batch} on {n} devices: jax.pmap runs one "
                                f"example on each of the first {batch} devices; the other "
                                f"{n - batch} stay idle"))])
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
                            self._code(f"jax.pmap({self.fn_text}{kwargs})", True,
                                       variant="pmap"))
        per = batch // n
        inner = jax.vmap(self.fn, in_axes=axes)
        fn = jax.pmap(inner, axis_name=s.axis_name, in_axes=axes, devices=use_devices)
        args = arguments.split_batch(self.batched_args(), s.in_axes, n)
        split = ", ".join(
            name if axis is None else _split_text(name, value, axis, n, per)
            for name, value, axis in zip(self.writer.arg_names(True), self.batched_args(),
                                         s.in_axes))
        code = self._code(f"jax.pmap({self.vmap_text(False)}{kwargs})", True, args=split,
                          variant="pmap")
        return Prepared("pmap", fn, args, code, per_device=per)

    def _sharded_base(self) -> tuple[Callable, list[Any], str]:
        s = self.settings
        if s.batched:
            fn = jax.vmap(self.fn, in_axes=tuple(s.in_axes), axis_name=s.axis_name)
            return fn, self.batched_args(), self.vmap_text(True)
        return self.fn, self.single, self.fn_text

    def _prepare_sharded(self) -> Prepared:
        mesh = self.mesh()
        specs = self.partition_specs(mesh)
        base, args, text = self._sharded_base()
        self.check_divisible(mesh, specs, args, "sharded")
        args, placing = self._placed(mesh, specs, args, self.settings.batched)
        kwargs: dict[str, Any] = {"in_shardings": tuple(meshes.shardings(mesh, specs))}
        outs_text = ""
        if self.settings.out_specs is not None:
            outs = self._given_out_specs(mesh)
            kwargs["out_shardings"] = meshes.shardings(mesh, outs)
            outs_text = f", out_shardings={sharding_tree_text(outs)}"
        fn = jax.jit(base, **kwargs)
        code = self._code(f"jax.jit({text}, in_shardings={self.writer.shardings_text(specs)}"
                          f"{outs_text})", self.settings.batched, mesh=True, variant="sharded",
                          extra=placing)
        return Prepared("sharded", fn, args, code, mesh=mesh)

    def _given_out_specs(self, mesh: Mesh) -> Any:
        s = self.settings
        assert s.out_specs is not None
        meshes.check_axis_names(mesh, s.out_specs, None, [], field="out_specs")
        out = [meshes.to_jax(spec) for spec in s.out_specs]
        return out[0] if len(out) == 1 else tuple(out)

    def _prepare_shard_map(self) -> Prepared:
        s = self.settings
        mesh = self.mesh()
        specs = self.partition_specs(mesh)
        if s.batched:
            local = jax.vmap(self.fn, in_axes=tuple(s.in_axes))
            local_text = self.vmap_text(False)
            args = self.batched_args()
        else:
            local, local_text, args = self.fn, self.fn_text, self.single
        self.check_divisible(mesh, specs, args, "shard_map")
        args, placing = self._placed(mesh, specs, args, s.batched)
        outs = self._out_specs(mesh, specs, local, args)
        placed = tuple(meshes.shardings(mesh, specs))
        mapped = jax.shard_map(local, mesh=mesh, in_specs=tuple(specs), out_specs=outs,
                               check_vma=s.check_vma)
        fn = jax.jit(mapped, in_shardings=placed)
        vma = "" if s.check_vma else ", check_vma=False"
        mapped_text = (f"jax.shard_map({local_text}, mesh=mesh, in_specs="
                       f"{partition_text(tuple(specs))}, out_specs={partition_text(outs)}{vma})")
        code = self._code(f"jax.jit({mapped_text}, in_shardings="
                          f"{self.writer.shardings_text(specs)})", s.batched, mesh=True,
                          variant="shard_map", extra=placing)
        putting = placing or [f"{name} = jax.device_put({name}, {sharding_tree_text(spec)})"
                              for name, spec in zip(self.writer.arg_names(s.batched), specs)]
        eager_code = self._code(mapped_text, s.batched, mesh=True, variant="shard_map",
                                extra=putting)
        per = 1
        if s.batched:
            split = int(np.prod([mesh.shape[a] for a in self._batch_axes(specs)] or [1]))
            per = max(self.batch_size() // split, 1)

        def eager(*xs: Any) -> Any:
            return mapped(*jax.device_put(list(xs), list(placed)))

        return Prepared("shard_map", fn, args, code, mesh=mesh, per_device=per, eager=eager,
                        eager_code=eager_code)

    def batch_axes(self, mesh: Mesh) -> tuple[str, ...]:
        """The mesh axes the batch is split over (none when nothing is batched)."""
        return self._batch_axes(self.partition_specs(mesh)) if self.settings.batched else ()

    def _batch_axes(self, specs: list[Any]) -> tuple[str, ...]:
        """The mesh axes the batch dimension is split over (from the first batched argument)."""
        for spec, axis in zip(specs, self.settings.in_axes):
            if axis is None:
                continue
            first = jax.tree.leaves(spec, is_leaf=meshes.is_spec)
            entries = tuple(first[0]) if first else ()
            entry = entries[axis] if -len(entries) <= axis < len(entries) else None
            if entry is None:
                return ()
            return entry if isinstance(entry, tuple) else (entry,)
        return ()

    def _out_specs(self, mesh: Mesh, specs: list[Any], local: Callable, args: list[Any]) -> Any:
        s = self.settings
        if s.out_specs is not None:
            return self._given_out_specs(mesh)
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
