"""Trace a request into structured results for every variant it asks for.

This is the core's main entry point: :func:`trace_request` takes a
:class:`~jaxviz.model.TraceRequest` (source text, function, argument specs,
parallel settings) and returns a :class:`~jaxviz.model.TraceResult` with, per
variant, the exact jaxpr text, its equations with source lines, StableHLO,
compiled HLO, cost analysis and the real device layout.
"""

from __future__ import annotations

import contextlib
import io
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import jax

from jaxviz.core import (
    arguments,
    claims,
    devices,
    hlo_program,
    jax_internals,
    layout,
    meshes,
    program_analysis,
    storyboard,
    variant_notes,
)
from jaxviz.core.call_code import CallWriter
from jaxviz.core.loader import MODULE_MESH, find_function, load_namespace
from jaxviz.core.variants import (
    BATCHED_VARIANTS,
    ParsedSettings,
    Prepared,
    VariantBuilder,
    arg_names,
)
from jaxviz.model import (
    Equation,
    ErrorInfo,
    SourceSpan,
    SubJaxpr,
    TraceRequest,
    TraceResult,
    VariantResult,
    VarInfo,
)
from jaxviz.model.errors import UserError, from_exception
from jaxviz.model.notes import VariantNote
from jaxviz.model.records import walk_equations as walk  # noqa: F401 - also used by tests
from jaxviz.model.specs import format_spec

#: Primitives that move data between devices (shown as collectives).
COLLECTIVES = frozenset({
    "psum", "pmax", "pmin", "pmean", "ppermute", "pshuffle", "all_gather", "all_to_all",
    "reduce_scatter", "psum_scatter", "axis_index", "pbroadcast", "psum_invariant",
    "all_gather_invariant",
})


#: JAX's own advice in an unbound-axis message ("call psum under `jax.shard_map`").
JAX_FIX = re.compile(r"(?:please )?call \w+ under `?jax\.shard_map`?\.?")

#: Said when a value was computed by running shard_map eagerly.
EAGER_NOTE = ("the body prints, so the call ran without jax.jit: shard_map runs eagerly, once "
              "per device, and print shows each device's block, jax.debug.print one line "
              "per device (labelled)")


@dataclass
class Loaded:
    """A request's function and arguments, ready to build variants from."""

    fn: Callable
    namespace: dict[str, Any]
    single: list[Any]
    settings: ParsedSettings
    builder: VariantBuilder
    filename: str = ""


def load(req: TraceRequest) -> Loaded:
    """Load the source, find the function, build the arguments, parse the settings.

    Arguments are evaluated inside the mesh the module set (``jax.set_mesh``),
    as the module's own code would see them.

    Raises:
        UserError: for anything wrong in the source or the request.
    """
    target = req.target
    namespace = load_namespace(target)
    module_mesh = namespace.get(MODULE_MESH)
    fn = find_function(namespace, target)
    specs, static_specs = arguments.parse_with_static(req.args, req.static)
    with meshes.mesh_context(module_mesh):
        single = arguments.build(specs, namespace, req.args, target.filename)
        static = arguments.build_static(static_specs, namespace,
                                        {"args": req.args, "static": req.static or ""},
                                        target.filename)
    lead = arguments.leading_static(fn, static)
    names = arg_names(fn, len(single), lead)
    arguments.check_static_params(fn, target.function, static, len(single))
    arguments.check_count(fn, target.function, len(single), static)
    arguments.check_traceable(single, names, req.args, specs)
    settings = ParsedSettings.from_request(req, len(single))
    bspecs = arguments.parse(req.batched_args, field="batched_args") if req.batched_args \
        else None
    size = settings.batch or len(devices.active_devices())

    def batched() -> list[Any]:
        if bspecs is not None:
            assert req.batched_args is not None
            with meshes.mesh_context(module_mesh):
                values = arguments.build(bspecs, namespace, req.batched_args, target.filename,
                                         field="batched_args")
            if len(values) != len(single):
                raise UserError(ErrorInfo(
                    kind="spec", field="batched_args",
                    message=f"the batched arguments give {len(values)} values but the "
                            f"function takes {len(single)}"))
            arguments.check_batched(values, settings.in_axes, names)
            return values
        return arguments.add_batch_axis(single, settings.in_axes, size)

    ordered = sorted(static_specs, key=lambda pair: (pair[0].name not in lead,
                                                      lead.index(pair[0].name)
                                                      if pair[0].name in lead else 0))
    writer = CallWriter(target.function, names, settings.in_axes, specs,
                        bspecs, single, size, devices.simulated(), len(jax.devices()),
                        static=[(arg.name, format_spec(arg.spec)) for arg, _ in ordered])
    writer.leading = len(lead)
    builder = VariantBuilder(fn, target.function, single, settings, batched, writer,
                             static=static, module_mesh=module_mesh, source=target.source,
                             namespace=namespace, mesh_given=bool(req.mesh))
    return Loaded(fn, namespace, single, settings, builder, target.filename)


def trace_request(req: TraceRequest) -> TraceResult:
    """Trace every variant the request asks for; errors become records, never exceptions."""
    result = TraceResult(function=req.target.function, filename=req.target.filename,
                         devices=devices.inventory(), simulated=devices.simulated())
    try:
        loaded = load(req)
    except UserError as exc:
        result.error = exc.info
        return result
    for variant in req.variants:
        result.variants.append(trace_variant(loaded, variant, req))
    return result


def trace_variant(loaded: Loaded, variant: str, req: TraceRequest) -> VariantResult:
    """Trace one variant; a failure is recorded in the result's ``error``.

    Tracing, compiling and the call run inside the variant's mesh (``jax.set_mesh``)
    when it has one; the call's concrete arguments are made outside it, as the
    variant's code makes them before it sets the mesh.
    """
    filename = req.target.filename
    vr = VariantResult(variant=variant)
    try:
        prepared = loaded.builder.prepare(variant)
        with meshes.mesh_context(prepared.context):
            closed, printed = _trace_prepared(vr, prepared, loaded, req)
        if "value" in req.want:
            _run_prepared(vr, prepared, loaded, req, closed, printed)
    except UserError as exc:
        vr.error = exc.info
        vr.error.variant = variant
    except Exception as exc:  # noqa: BLE001 - JAX and user code may raise anything
        vr.error = explain(exc, filename, variant, loaded)
    return vr


def _trace_prepared(vr: VariantResult, prepared: Prepared, loaded: Loaded,
                    req: TraceRequest) -> tuple[Any, str]:
    """The jaxpr (and compiled program); returns it and what tracing printed."""
    filename = req.target.filename
    vr.call, vr.code = prepared.call, prepared.code
    # When a real call follows that JAX does not stage (op by op, or an eager shard_map),
    # what jaxviz's own traces print is held: the call prints again as it runs (per
    # device), and tracers jaxviz made (JitTracer) must not come before its lines.
    hold = "value" in req.want and (prepared.eager is not None
                                    or not callable(getattr(prepared.fn, "lower", None)))
    with watch_stdout(through=not hold) as printed:
        closed = jax.make_jaxpr(prepared.fn)(*prepared.args)
        describe_jaxpr(vr, closed, filename)
        vr.notes = program_notes(prepared, closed, loaded, filename)
        if {"hlo", "layout", "story", "cost"} & set(req.want):
            describe_compiled(vr, prepared, closed, req, loaded)
            note = variant_notes.collectives_note(closed, vr.hlo) if vr.hlo else None
            if note is not None:
                vr.notes.append(note)
    return closed, printed.text if hold else ""


def _run_prepared(vr: VariantResult, prepared: Prepared, loaded: Loaded, req: TraceRequest,
                  closed: Any, printed: str) -> None:
    """One real call: its value, and how its arguments were made.

    A shard_map body that prints (``print``, or ``jax.debug.print`` in the jaxpr)
    runs eagerly, once per device, so each device's values show, labelled.
    """
    leaves = arg_leaf_names(prepared.args, loaded.builder.names)
    args, vr.value_args, _ = arguments.described_concrete(
        prepared.args, leaves, 0, prepared.variant, req, loaded.settings.batched)
    eager = prepared.eager is not None and (bool(printed) or variant_notes.prints(closed))
    if eager:
        assert prepared.eager_code is not None
        vr.call, vr.code = prepared.eager_code.call, prepared.eager_code
        vr.notes.append(VariantNote("eager", EAGER_NOTE))
    run = prepared.eager if eager and prepared.eager is not None else prepared.fn
    ran = None
    try:
        with meshes.mesh_context(prepared.context), jax_internals.device_labelled_prints(), \
                watch_stdout() as ran:
            out = run(*args)
            vr.value = _value_text(out)
    finally:
        if printed and (ran is None or not ran.text):
            sys.stdout.write(printed)  # the call printed nothing itself: what tracing did
    if vr.storyboard is not None and vr.storyboard.claims is not None:
        claims.equal_pieces(vr.storyboard.claims, jax.tree.leaves(out))


def program_notes(prepared: Prepared, closed: Any, loaded: Loaded,
                  filename: str) -> list[VariantNote]:
    """The notes of a traced variant (see :mod:`jaxviz.core.variant_notes`)."""
    settings, builder = loaded.settings, loaded.builder
    notes = list(prepared.notes)
    if prepared.variant in ("pmap", "shard_map") and settings.batched:
        if prepared.mesh is not None:
            sizes = dict(prepared.mesh.shape)
            axes = {a: sizes[a] for a in builder.batch_axes(prepared.mesh)}
        else:
            axes = {settings.axis_name: len(builder.devices)}
        notes += variant_notes.per_device_notes(
            prepared.variant, builder.name, closed, filename, axes, prepared.per_device,
            builder.batch_size())
    # the axis types are jaxviz's choice whenever jaxviz built the mesh (--mesh or the
    # default one over the devices), not the module's own mesh
    if prepared.variant != "pmap" and builder.built(prepared.mesh):
        said = claims.mesh_types_note(prepared.mesh)
        if said is not None:
            notes.append(said)
    if prepared.variant == "shard_map" and prepared.mesh is not None:
        notes += variant_notes.check_vma_notes(closed, filename, settings.check_vma,
                                               dict(prepared.mesh.shape))
    return notes


def describe_jaxpr(vr: VariantResult, closed: Any, filename: str) -> None:
    """Fill the jaxpr text, variables, equations and collectives of a variant."""
    text, lines, context = jax_internals.jaxpr_text_and_lines(closed)
    vr.jaxpr_text = text
    jaxpr = closed.jaxpr
    vr.invars = [_var(v, context) for v in jaxpr.invars]
    vr.outvars = [_var(v, context) for v in jaxpr.outvars]
    vr.equations = _equations(jaxpr, lines, context, filename)
    vr.collectives = sorted({eq.primitive for eq in walk(vr.equations)} & COLLECTIVES)


def describe_compiled(vr: VariantResult, prepared: Prepared, closed: Any, req: TraceRequest,
                      loaded: Loaded) -> None:
    """Lower and compile a variant: StableHLO, HLO, costs, the device layout, the storyboard."""
    want = req.want
    fn = prepared.fn if hasattr(prepared.fn, "lower") else jax.jit(prepared.fn)
    lowered = fn.lower(*prepared.args)
    compiled = lowered.compile()
    compiled_text = (compiled.as_text() or "") if {"hlo", "story", "cost"} & set(want) else ""
    if "hlo" in want:
        vr.stablehlo = lowered.as_text()
        # for the reader: the program, without the frames of the engine that lowered it
        vr.hlo = hlo_program.readable(compiled_text, req.target.filename)
        vr.cost = _cost(compiled)
        vr.hlo_collectives = layout.hlo_collectives(compiled_text)
    names = arg_leaf_names(prepared.args, loaded.builder.names)
    out_names = leaf_names(compiled.output_shardings, "out")
    if "layout" in want:
        vr.arrays, vr.mesh = layout.layouts(compiled, names, list(closed.in_avals), out_names,
                                            list(closed.out_avals))
    if "story" in want or "cost" in want:
        vr.storyboard = storyboard.build(vr, compiled, list(closed.in_avals),
                                         list(closed.out_avals), names, out_names,
                                         req.target.filename, compiled_text or None,
                                         req.target.function)
        if vr.variant == "vmap":
            vr.storyboard.batch = storyboard.vmap_batch(
                loaded.builder.fn, loaded.builder.name, loaded.single, list(prepared.args),
                loaded.settings.in_axes, vr, req.target.filename, loaded.settings.out_axes)
        claims.apply(vr.storyboard, claims.story_claims(
            vr.storyboard, vr, prepared.fn, closed, list(prepared.args), names,
            jax.tree.leaves(compiled.input_shardings[0], is_leaf=lambda s: s is None),
            hlo_program.num_partitions(compiled_text), req.target.source, req.target.filename))
    if "cost" in want and vr.storyboard is not None:
        vr.program = program_analysis.analyze(vr.storyboard, compiled, compiled_text or None)


def explain(exc: Exception, filename: str, variant: str, loaded: Loaded) -> ErrorInfo:
    """Turn a JAX error into a message that says what to change."""
    info = from_exception(exc, filename, variant=variant)
    text = str(exc)
    if isinstance(exc, AssertionError) and variant in ("sharded", "shard_map"):
        # Inside shard_map, JAX asserts (without a message) when a collective names an
        # axis the mesh lacks; the plain trace names the axis.
        text = _unbound_axis_in_plain(loaded) or text
    spec = spec_problem(exc, text)
    if spec is not None:
        info.kind, info.field, info.message = "spec", spec[0], spec[1]
        return info
    if "in_specs passed to shard_map" in text and "does not match the specs of the input" in text:
        # JAX 0.10's jax.make_mesh makes Explicit axes: shard_map then takes each argument
        # as it is sharded, and the arguments jaxviz makes are not (P(None))
        info.message += (
            " (jaxviz passes the arguments unsharded. Over a mesh whose axes are Explicit -- "
            "jax.make_mesh's default -- shard_map does not reshard its arguments: make the "
            "mesh with axis_types=(jax.sharding.AxisType.Auto, ...), or jax.reshard each "
            "argument to NamedSharding(mesh, its in_spec) before calling shard_map)")
        return info
    if "unbound axis name" in text:
        axis = text.split("unbound axis name:", 1)[-1].split(".")[0].strip()
        info.kind = "collective"
        names = [name for name, _ in loaded.settings.mesh_axes]
        if variant == "sharded":
            # jit binds no axis names, whatever the mesh has (JAX's message: call it under
            # jax.shard_map)
            fix = JAX_FIX.search(text)
            info.message = (f"the function uses a collective over axis {axis!r}, but the "
                            f"sharded variant is jax.jit of the whole function, and jit binds "
                            f"no axis names: a collective needs shard_map (or pmap) to give "
                            f"it the axis"
                            + (f" (JAX: {fix.group(0).rstrip('.')})" if fix else "")
                            + ": look at the shard_map variant"
                            + ("" if axis in names else
                               f", with a mesh axis named {axis!r} (--mesh {axis}=N)"))
        elif variant == "shard_map":
            mesh_axes = ", ".join(names)
            info.message = (f"the function uses a collective over axis {axis!r}, but the "
                            f"{variant} mesh has axes {mesh_axes}: name a mesh axis {axis!r} "
                            f"(--axis-name {axis}, or --mesh {axis}=N)")
        elif variant in BATCHED_VARIANTS:
            info.message = (f"the function uses a collective over axis {axis!r}, which the "
                            f"{variant} variant does not bind: set the axis name to {axis!r} "
                            f"(--axis-name {axis}) or name a mesh axis {axis!r}")
        else:
            info.message = (f"the function uses a collective over axis {axis!r}, which nothing "
                            f"binds in the {variant} variant: collectives need a named axis -- "
                            f"look at the vmap (axis_name={axis!r}), pmap or shard_map variants")
    return info


def spec_problem(exc: Exception, text: str) -> tuple[str, str] | None:
    """``(field, message)`` when JAX refused the partition specs given, else None.

    JAX raises these while it traces the variant, with its own words; each is
    something the user changes in ``--specs`` / ``--out-specs`` (exit 2).
    """
    if not isinstance(exc, (ValueError, TypeError)):
        return None
    if "has duplicate entries" in text:
        return "specs", (f"{text.split(' but ', 1)[-1].split(' has ')[0]} names a mesh axis "
                         f"twice: an axis shards at most one dimension of an array; change "
                         f"the partition spec (--specs / --out-specs)")
    if "is only valid for values of rank at least" in text:
        found = re.search(r"spec=(P\(.*?\)).*rank at least (\d+), but was applied to a "
                          r"value of rank (\d+)", text)
        spec_words, need, rank = found.groups() if found else ("a partition spec", "?", "?")
        return "specs", (f"{spec_words} names {need} dimensions but is given to a value of "
                         f"rank {rank}: give a partition spec of at most {rank} entries "
                         f"(--specs / --out-specs)")
    if "pytree structure error" in text and "out_specs" in text:
        return "out_specs", ("--out-specs does not match what the function returns: give one "
                             "P(...) per output, or a single P(...) for every output (a function "
                             "that returns one array takes one)")
    if "pytree structure error" in text and "in_specs" in text:
        return "specs", ("--specs does not match the function's arguments: give one P(...) per "
                         "argument, or a pytree of them shaped like the argument")
    return None


# --------------------------------------------------------------------------- #
# helpers
# --------------------------------------------------------------------------- #


class _Watched(io.TextIOBase):
    """Python's stdout, written through at once, remembering what went by."""

    def __init__(self, out: Any, through: bool = True):
        self.out = out
        self.through = through
        self.text = ""

    def write(self, text: str) -> int:  # noqa: D102
        self.text += text
        return self.out.write(text) if self.through else len(text)

    def flush(self) -> None:  # noqa: D102
        self.out.flush()


@contextlib.contextmanager
def watch_stdout(through: bool = True) -> Iterator[_Watched]:
    """What Python code prints inside goes out as always (in order with the process's
    other output, kept if it crashes next) and is remembered in ``.text``; with
    ``through=False`` it is only remembered."""
    watched = _Watched(sys.stdout, through)
    with contextlib.redirect_stdout(watched):
        yield watched


def _unbound_axis_in_plain(loaded: Loaded) -> str | None:
    """JAX's "unbound axis name" message from tracing the function alone, if it gives one."""
    axis = unbound_axis(loaded.builder.fn, loaded.single)
    return None if axis is None else f"unbound axis name: {axis}"


def unbound_axis(fn: Callable, args: list[Any]) -> str | None:
    """The axis a collective in ``fn`` names when nothing binds it (traced alone), or None."""
    try:
        jax.make_jaxpr(fn)(*args)
    except Exception as exc:  # noqa: BLE001 - only the message matters
        text = str(exc)
        if "unbound axis name" in text:
            return text.split("unbound axis name:", 1)[-1].split(".")[0].strip()
    return None


def _var(var: Any, context: Any) -> VarInfo:
    shape, dtype = jax_internals.aval_of(var)
    return VarInfo(name=jax_internals.var_name(var, context), shape=shape, dtype=dtype,
                   literal=jax_internals.is_literal(var),
                   sharding=jax_internals.type_sharding(var))


def _equations(jaxpr: Any, lines: dict[int, tuple[int, int]], context: Any,
               filename: str) -> list[Equation]:
    out = []
    for eqn in jaxpr.eqns:
        span = jax_internals.user_span(eqn, filename)
        first, last = lines.get(id(eqn), (None, None))
        subs = [SubJaxpr(param=param, invars=[_var(v, context) for v in sub.invars],
                         outvars=[_var(v, context) for v in sub.outvars],
                         equations=_equations(sub, lines, context, filename))
                for param, sub in jax_internals.nested_jaxprs(eqn)]
        out.append(Equation(
            primitive=eqn.primitive.name,
            params={k: jax_internals.param_text(v) for k, v in sorted(eqn.params.items())},
            inputs=[_var(v, context) for v in eqn.invars],
            outputs=[_var(v, context) for v in eqn.outvars],
            source=SourceSpan(*span) if span else None,
            text_start=first, text_end=last, subjaxprs=subs))
    return out


def _cost(compiled: Any) -> dict[str, float]:
    """XLA's own cost analysis, the figures the HLO pane's cost view shows."""
    keep = ("flops", "bytes accessed", "transcendentals", "optimal_seconds")
    return {k: v for k, v in program_analysis.xla_cost(compiled).items() if k in keep}


def arg_leaf_names(args: list[Any], names: list[str]) -> list[str]:
    """The name of every leaf of the arguments (``params[0]``, ``x``), in flattening order."""
    out = []
    for arg, name in zip(args, names):
        out.extend(leaf_names(arg, name))
    return out


def leaf_names(tree: Any, prefix: str) -> list[str]:
    """The name of every leaf of a tree, ``prefix`` followed by its path (``out[1]``)."""
    paths = jax.tree_util.tree_flatten_with_path(tree)[0]
    return [prefix + jax.tree_util.keystr(path) for path, _ in paths]


def _value_text(out: Any) -> str:
    """``repr`` of a result, as ``print(repr(...))`` in a fresh interpreter prints it."""
    return repr(out)
