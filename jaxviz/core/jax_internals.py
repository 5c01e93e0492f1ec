"""The one module that touches JAX internals (jaxpr IR, source_info, pretty-printer).

JAX does not promise stability for these (see JAX issues #12462, #18240), so
every use of them is kept here and tested against the JAX range pinned in
``pyproject.toml`` (``tests/core/test_jax_internals.py``). A new JAX release
means one module to check.

What it provides:

* :func:`jaxpr_text_and_lines` -- the exact ``str(closed_jaxpr)`` text plus,
  for every equation object, the lines it occupies in that text (from the
  pretty-printer's own source map, not from re-parsing the text);
* :func:`user_span` -- the user's ``file:line:col`` range an equation came from;
* :func:`nested_jaxprs` -- the jaxprs inside an equation's parameters;
* :func:`var_name` -- a variable's printed name in a given printing context;
* for the stepper: :func:`view`, :func:`nested`, :func:`collective`, :func:`bind`
  -- an equation's parts, how its nested jaxprs run, the collective it performs,
  and running it on concrete values;
* for the storyboard: :func:`hlo_schedule`, :func:`device_assignment` -- the
  compiled program's instruction order and its devices;
* for explicit sharding: :func:`type_sharding` -- the sharding a type carries;
  :func:`device_labelled_prints` -- ``jax.debug.print`` in an eager ``shard_map``
  labelled with each device.
* :func:`gloo_on_loopback` -- gloo's CPU collectives listening on loopback only.
"""

from __future__ import annotations

import contextlib
import functools
import io
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import jax
import numpy as np
from jax._src import core as _core
from jax._src import pretty_printer as _pp
from jax._src import source_info_util as _siu

_PRINT_LOCK = threading.Lock()

#: The JAX minor versions this adapter was written and tested against.
SUPPORTED = ((0, 10),)


def jax_version_supported() -> bool:
    major, minor = (int(p) for p in jax.__version__.split(".")[:2])
    return (major, minor) in SUPPORTED


class _EqnTag:
    """A source-map key unique to one equation object (compared by identity)."""

    __slots__ = ("eqn",)

    def __init__(self, eqn: Any):
        self.eqn = eqn


def jaxpr_text_and_lines(closed_jaxpr: Any) -> tuple[str, dict[int, tuple[int, int]], Any]:
    """Pretty-print a (closed) jaxpr exactly as ``str()`` does, with a line map.

    Returns:
        ``(text, lines, context)``: ``text == str(closed_jaxpr)``; ``lines`` maps
        ``id(eqn)`` to the 0-based ``(first, last)`` lines of that equation in
        ``text`` (nested equations included in their parent's range);
        ``context`` names variables as the text does (see :func:`var_name`).
    """
    jaxpr = getattr(closed_jaxpr, "jaxpr", closed_jaxpr)
    original = _core.pp_eqn
    contexts: list[Any] = []

    def tagged_pp_eqn(eqn, context, settings):
        # As core.pp_eqn, but the source-map key is the equation itself (the
        # original keys by traceback, which equations from one line share).
        if not contexts:
            contexts.append(context)
        rule = (_core._pp_eqn if not settings.custom_pp_eqn_rules else
                _core.pp_eqn_rules.get(eqn.primitive, _core._pp_eqn))
        return _pp.source_map(rule(eqn, context, settings), _EqnTag(eqn))

    with _PRINT_LOCK:
        _core.pp_eqn = tagged_pp_eqn
        try:
            doc = _core.pp_toplevel_jaxpr(jaxpr)
            source_map: list[list[tuple[int, int, Any]]] = []
            text = doc.format(source_map=source_map)
        finally:
            _core.pp_eqn = original
    lines: dict[int, tuple[int, int]] = {}
    for lineno, regions in enumerate(source_map):
        for _start, _end, tag in regions:
            if isinstance(tag, _EqnTag):
                key = id(tag.eqn)
                first, _last = lines.get(key, (lineno, lineno))
                lines[key] = (min(first, lineno), lineno)
    return text, lines, (contexts[0] if contexts else None)


def user_span(eqn: Any, filename: str | None) -> tuple[str, int, int, int, int, str] | None:
    """The user's source range of an equation: ``(file, line, col, end_line, end_col, fn)``.

    Prefers the innermost frame in ``filename`` (the user's file); falls back
    to JAX's own notion of the user frame. Columns are 1-based.
    """
    tb = eqn.source_info.traceback
    if tb is None:
        return None
    chosen = None
    for frame in _siu.user_frames(tb):
        if filename is not None and frame.file_name == filename:
            chosen = frame
            break
        if chosen is None and filename is None:
            chosen = frame
    if chosen is None:
        return None
    return (chosen.file_name, chosen.start_line, chosen.start_column + 1,
            chosen.end_line, chosen.end_column + 1, chosen.function_name)


def varying_axes(value: Any) -> frozenset[str]:
    """The manual mesh axes a value varies over inside ``shard_map`` (with ``check_vma``).

    JAX 0.10 keeps them in the type's ``manual_axis_type.varying`` (``.vma``
    before, ``.mat`` for short); none of these is a public API yet.
    """
    import jax

    aval = jax.typeof(value)
    for path in (("vma",), ("manual_axis_type", "varying"), ("mat", "varying")):
        found: Any = aval
        for name in path:
            found = getattr(found, name, None)
        if found is not None:
            return frozenset(found)
    return frozenset()


def from_backward_pass(eqn: Any) -> bool:
    """Whether autodiff's transpose made the equation (the backward pass of ``jax.grad``).

    Read from the equation's name stack (``vmap(transpose(jvp()))``).
    """
    return "transpose(" in str(getattr(eqn.source_info, "name_stack", ""))


def nested_jaxprs(eqn: Any) -> Iterator[tuple[str, Any]]:
    """``(parameter name, jaxpr)`` for every jaxpr in the equation's parameters."""
    for name, value in eqn.params.items():
        items = value if isinstance(value, (tuple, list)) else (value,)
        for i, item in enumerate(items):
            inner = getattr(item, "jaxpr", item)
            if isinstance(inner, _core.Jaxpr):
                label = name if len(items) == 1 else f"{name}[{i}]"
                yield label, inner


def backends_started() -> bool:
    """Whether JAX's backends exist yet (after which e.g. the async-dispatch flag is fixed).

    Unknown (the private function moved) counts as started.
    """
    try:
        from jax._src import xla_bridge

        return bool(xla_bridge.backends_are_initialized())
    except (ImportError, AttributeError):
        return True


def gloo_on_loopback() -> bool:
    """Make gloo's CPU collectives listen on 127.0.0.1 only (call before JAX's backends start).

    JAX creates gloo's TCP transport without a host name, and gloo then binds to
    whatever this machine's name resolves to -- a LAN address on many hosts.
    Multi-host runs on one machine (:mod:`jaxviz.worker.multihost_worker`) need
    only loopback. Returns False (and changes nothing) when the private hook
    moved; the coordinator's own bind address is public API and set elsewhere.
    """
    try:
        from jax._src.lib import _jax
    except ImportError:
        return False
    make = getattr(_jax, "make_gloo_tcp_collectives", None)
    if make is None:
        return False

    def on_loopback(*args: Any, **kwargs: Any) -> Any:
        kwargs.setdefault("hostname", "127.0.0.1")
        return make(*args, **kwargs)

    _jax.make_gloo_tcp_collectives = on_loopback
    return True


def is_literal(var: Any) -> bool:
    return isinstance(var, _core.Literal)


def var_name(var: Any, context: Any) -> str:
    """The printed name of a variable in a printing context (or the literal's value)."""
    if isinstance(var, _core.Literal):
        return str(var.val)
    if context is not None:
        name = context.var_names.get(var)
        if name is not None:
            return name
    return "_" if isinstance(var, _core.DropVar) else str(var)


def param_text(value: Any) -> str:
    """A short text for an equation parameter (jaxprs summarized)."""
    inner = getattr(value, "jaxpr", value)
    if isinstance(inner, _core.Jaxpr):
        return f"{{ jaxpr with {len(inner.eqns)} equations }}"
    if isinstance(value, (tuple, list)) and value and isinstance(
            getattr(value[0], "jaxpr", value[0]), _core.Jaxpr):
        return f"({len(value)} jaxprs)"
    text = str(value)
    return text if len(text) <= 300 else text[:297] + "..."


def aval_of(var: Any) -> tuple[list[int], str]:
    """Shape and short dtype name (``f32``) of a variable or literal."""
    aval = var.aval
    shape = [int(d) if isinstance(d, int) else -1 for d in getattr(aval, "shape", ())]
    short = aval.str_short(short_dtypes=True) if hasattr(aval, "str_short") else str(aval)
    return shape, short.split("[", 1)[0]


def type_sharding(var: Any) -> list[str]:
    """Per dimension, the mesh axes a variable's type is sharded over, as the jaxpr
    prints them after ``@`` (``X``, ``(X,Y)``; ``""`` unsharded); ``[]`` when none is."""
    aval = getattr(var, "aval", None)
    spec = getattr(getattr(aval, "sharding", None), "spec", None)
    if spec is None:
        return []
    out = ["" if e is None else f"({','.join(e)})" if isinstance(e, tuple) else str(e)
           for e, _ in zip(spec, getattr(aval, "shape", ()))]  # as core._get_shape_sharding_str
    return out if any(out) else []


@contextlib.contextmanager
def device_labelled_prints() -> Iterator[None]:
    """Inside, ``jax.debug.print``/``jax.debug.callback`` in an *eager* ``shard_map`` body
    print one labelled line per device (``device 3 (i=3): ...``).

    JAX 0.10 runs an un-jitted ``shard_map`` eagerly and calls the callbacks once
    per device, in device order, unlabelled (``shard_map.eager_rules``); this
    wraps those rules. Where an argument's blocks cannot be matched to devices
    (it varies over some mesh axes only, on a mesh of several), JAX's rule runs as is.
    """
    from jax._src import debugging as _debugging
    from jax._src import shard_map as _shard_map

    rules = _shard_map.eager_rules
    prims = [p for p in (_debugging.debug_print_p, _debugging.debug_callback_p) if p in rules]
    saved = {p: rules[p] for p in prims}
    for p in prims:
        rules[p] = functools.partial(_labelled_rule, saved[p])
    try:
        yield
    finally:
        rules.update(saved)


def _labelled_rule(rule: Any, mesh: Any, *args: Any, **params: Any) -> list[Any]:
    devices = list(np.ndenumerate(mesh.devices))
    with _core.eval_context():
        blocks = [list(a) for a in args]
    if any(len(b) not in (1, len(devices)) for b in blocks):
        return rule(mesh, *args, **params)
    names = list(mesh.axis_names)
    for k, (idx, device) in enumerate(devices):
        # JAX's rule zips the blocks of its arguments (``list(arg)``): one-block lists
        # make it print this device's values once.
        one = [[b[k] if len(b) == len(devices) else b[0]] for b in blocks]
        where = ",".join(f"{n}={i}" for n, i in zip(names, idx))
        buffer = io.StringIO()
        with contextlib.redirect_stdout(buffer):
            rule(_OneDevice(np.array([device])), *one, **params)
        lines = buffer.getvalue().splitlines() or [""]
        label = f"device {device.id} ({where}): "
        sys.stdout.write(label + ("\n" + " " * len(label)).join(lines) + "\n")
    return []


@dataclass
class _OneDevice:
    """What JAX's eager callback rules read of a mesh: its devices."""

    devices: Any


# --------------------------------------------------------------------------- #
# Evaluating jaxprs equation by equation (the stepper)
# --------------------------------------------------------------------------- #

#: Primitives whose nested jaxpr is called once with the equation's inputs.
CALL_PRIMITIVES = frozenset({
    "jit", "pjit", "closed_call", "core_call", "remat2", "checkpoint", "custom_jvp_call",
    "custom_vjp_call", "custom_vjp_call_jaxpr",
})

#: The parameter holding the called jaxpr, per call primitive (default ``jaxpr``).
_CALL_PARAM = {"custom_jvp_call": "call_jaxpr", "custom_vjp_call": "call_jaxpr",
               "custom_vjp_call_jaxpr": "fun_jaxpr", "closed_call": "call_jaxpr",
               "core_call": "call_jaxpr"}


@dataclass(frozen=True)
class EqnView:
    """One equation, seen through the adapter: the stepper never reads ``eqn`` fields itself.

    Attributes:
        primitive: the primitive's name.
        params: the equation's parameters (as JAX holds them).
        invars: its input variables and literals (read them with :func:`read_atom`).
        outvars: its output variables (``is_drop`` tells the unused ones).
        eqn: the equation itself (for :func:`bind`, :func:`user_span` and text lines).
    """

    primitive: str
    params: dict[str, Any]
    invars: list[Any]
    outvars: list[Any]
    eqn: Any


@dataclass(frozen=True)
class Body:
    """A jaxpr nested in an equation: the parameter it sits in, the jaxpr, its constants."""

    label: str
    jaxpr: Any
    consts: list[Any]


@dataclass(frozen=True)
class Nested:
    """How an equation with nested jaxprs runs them.

    Attributes:
        kind: ``call`` (once, with the equation's inputs), ``scan``, ``while``,
            ``cond`` or ``shard_map``.
        bodies: the nested jaxprs (``cond``: one per branch; ``while``: the
            condition, then the body).
        params: what the kind needs: ``scan``: num_consts, num_carry, length,
            reverse; ``while``: cond_nconsts, body_nconsts; ``shard_map``:
            mesh, in_specs, out_specs, manual_axes, check_vma.
    """

    kind: str
    bodies: list[Body]
    params: dict[str, Any]


def view(eqn: Any) -> EqnView:
    """The parts of an equation the stepper uses."""
    return EqnView(eqn.primitive.name, dict(eqn.params), list(eqn.invars),
                   list(eqn.outvars), eqn)


def signature(jaxpr: Any) -> tuple[list[Any], list[Any], list[Any], list[EqnView]]:
    """``(constvars, invars, outvars, equations)`` of an open jaxpr."""
    return (list(jaxpr.constvars), list(jaxpr.invars), list(jaxpr.outvars),
            [view(e) for e in jaxpr.eqns])


def closed_parts(closed: Any) -> tuple[Any, list[Any]]:
    """``(jaxpr, consts)`` of a closed jaxpr (an open one has no constants)."""
    if isinstance(closed, _core.ClosedJaxpr):
        return closed.jaxpr, list(closed.consts)
    return closed, []


def read_atom(atom: Any, env: dict[Any, Any]) -> Any:
    """A literal's value, or a variable's value in ``env``."""
    if isinstance(atom, _core.Literal):
        return atom.val
    return env[atom]


def is_drop(var: Any) -> bool:
    """True for an output variable nothing reads (printed ``_``)."""
    return isinstance(var, _core.DropVar)


#: No mesh: the context the stepper runs every equation in (see :func:`bind`).
_NO_MESH = jax.sharding.AbstractMesh((), ())


def bind(view_: EqnView, values: list[Any]) -> list[Any]:
    """Run one equation on concrete values, as ``jax.core.eval_jaxpr`` does; always a list.

    The equation's context (e.g. ``threefry_partitionable``) applies, but not
    its abstract mesh: inside a ``shard_map`` body that is the manual mesh,
    and the stepper runs each device's equation on that device's own local
    values, outside any mesh (JAX's eager caches would otherwise give values
    typed for another body's mesh). For the same reason a sharding an explicit
    mesh asks for is left out: :data:`VALUE_PRESERVING` equations pass their
    value on, and an ``out_sharding=`` is dropped (it says where the result
    lives, not what it is).
    """
    eqn = view_.eqn
    if eqn.primitive.name in VALUE_PRESERVING:  # moves data between devices, not values
        return [detached(v) for v in values]
    params = eqn.primitive.get_bind_params(eqn.params)
    if params.get("out_sharding") is not None:  # where the result lives, not what it is
        params = {**params, "out_sharding": None}
    with eqn.ctx.manager, jax.sharding.use_abstract_mesh(_NO_MESH):
        out = eqn.primitive.bind(*values, **params)
    return [detached(o) for o in out] if eqn.primitive.multiple_results else [detached(out)]


#: Primitives that only change where a value lives (explicit sharding's ``reshard``,
#: ``auto_axes``' ``mesh_cast``, ``with_sharding_constraint``): stepped, the value passes.
VALUE_PRESERVING = frozenset({"reshard", "mesh_cast", "sharding_constraint"})


def nested(view_: EqnView) -> Nested | None:
    """How to step into an equation's nested jaxprs; None for ordinary (or unknown) ones."""
    name, params = view_.primitive, view_.params
    if name in CALL_PRIMITIVES:
        inner = params.get(_CALL_PARAM.get(name, "jaxpr"))
        if inner is None:
            return None
        return Nested("call", [Body(_CALL_PARAM.get(name, "jaxpr"), *closed_parts(inner))], {})
    if name == "scan":
        return Nested("scan", [Body("jaxpr", *closed_parts(params["jaxpr"]))], {
            "num_consts": params["num_consts"], "num_carry": params["num_carry"],
            "length": params["length"], "reverse": params["reverse"]})
    if name == "while":
        return Nested("while", [Body("cond_jaxpr", *closed_parts(params["cond_jaxpr"])),
                                Body("body_jaxpr", *closed_parts(params["body_jaxpr"]))], {
            "cond_nconsts": params["cond_nconsts"], "body_nconsts": params["body_nconsts"]})
    if name == "cond":
        return Nested("cond", [Body(f"branches[{i}]", *closed_parts(b))
                               for i, b in enumerate(params["branches"])], {})
    if name == "shard_map":
        mesh = params["mesh"]
        manual = params.get("newly_manual_axes", params.get("manual_axes"))
        return Nested("shard_map", [Body("jaxpr", *closed_parts(params["jaxpr"]))], {
            "mesh": mesh, "in_specs": tuple(params["in_specs"]),
            "out_specs": tuple(params["out_specs"]),
            "manual_axes": frozenset(manual if manual is not None else mesh.axis_names),
            "check_vma": params.get("check_vma", True)})
    return None


@dataclass(frozen=True)
class Collective:
    """A collective equation, normalised: what the stepper evaluates across devices.

    Attributes:
        kind: the primitive (``psum``, ``pmax``, ``pmin``, ``psum_invariant``,
            ``pvary``, ``all_gather``, ``all_gather_invariant``, ``ppermute``,
            ``all_to_all``, ``reduce_scatter``, ``axis_index``, ``pbroadcast``).
        axes: the named mesh axes it works over, in the order given.
        positional: positional axes (a ``psum`` over a vmapped axis reduces them locally).
        groups: ``axis_index_groups`` (None: the whole axis).
        dimension: all_gather / reduce_scatter dimension.
        split_axis, concat_axis: all_to_all's axes.
        tiled: all_gather / reduce_scatter tiling.
        perm: ppermute's (source, destination) pairs of axis indices.
        source: pbroadcast's source index.
    """

    kind: str
    axes: tuple[str, ...]
    positional: tuple[int, ...] = ()
    groups: Any = None
    dimension: int = 0
    split_axis: int = 0
    concat_axis: int = 0
    tiled: bool = False
    perm: tuple[tuple[int, int], ...] = ()
    source: int = 0


#: Collectives the stepper evaluates across devices.
COLLECTIVE_PRIMITIVES = frozenset({
    "psum", "pmax", "pmin", "psum_invariant", "pvary", "all_gather", "all_gather_invariant",
    "ppermute", "all_to_all", "reduce_scatter", "axis_index", "pbroadcast",
})


def collective(view_: EqnView) -> Collective | None:
    """The collective an equation performs, normalised; None for other equations."""
    name, p = view_.primitive, view_.params
    if name not in COLLECTIVE_PRIMITIVES:
        return None
    raw = p.get("axes", p.get("axis_name", ()))
    raw = tuple(raw) if isinstance(raw, (tuple, list)) else (raw,)
    named = tuple(a for a in raw if not isinstance(a, int))
    positional = tuple(a for a in raw if isinstance(a, int))
    return Collective(
        kind=name, axes=named, positional=positional, groups=p.get("axis_index_groups"),
        dimension=p.get("all_gather_dimension", p.get("scatter_dimension", 0)),
        split_axis=p.get("split_axis", 0), concat_axis=p.get("concat_axis", 0),
        tiled=bool(p.get("tiled", False)),
        perm=tuple((int(s), int(d)) for s, d in p.get("perm", ())),
        source=int(p.get("source", 0)))


def sharded_over(view_: EqnView) -> frozenset[int]:
    """The ids of the devices a ``jit`` equation's own shardings (``in_shardings``,
    ``out_shardings``) place its arguments and results on; empty for other equations
    and for shardings the jit leaves to its callers (unspecified)."""
    if view_.primitive not in ("jit", "pjit"):
        return frozenset()
    ids: set[int] = set()
    for key in ("in_shardings", "out_shardings"):
        for sharding in view_.params.get(key, ()):
            try:
                ids.update(int(d.id) for d in sharding.device_set)
            except (AttributeError, TypeError, ValueError):  # unspecified, abstract mesh
                continue
    return frozenset(ids)


def concrete_mesh(mesh: Any, traced_in: Any) -> Any:
    """The concrete mesh a ``shard_map`` ran on: its own, or -- for one that named none
    (its jaxpr holds an abstract mesh) -- the mesh it was traced inside."""
    if isinstance(mesh, jax.sharding.AbstractMesh) and traced_in is not None:
        return traced_in
    return mesh


def mesh_size(mesh: Any) -> int:
    """How many devices a mesh spans (a concrete or an abstract one)."""
    return int(np.prod([int(mesh.shape[n]) for n in mesh.axis_names]))


def mesh_parts(mesh: Any) -> tuple[list[str], list[int], Any]:
    """``(axis names, axis sizes, device-id grid)`` of a concrete mesh."""
    names = [str(n) for n in mesh.axis_names]
    sizes = [int(mesh.shape[n]) for n in mesh.axis_names]
    ids = np.vectorize(lambda d: d.id, otypes=[int])(np.asarray(mesh.devices))
    return names, sizes, ids


def spec_entries(spec: Any, rank: int) -> list[tuple[str, ...]]:
    """The mesh axes each dimension of a PartitionSpec splits over (``()``: not split)."""
    out: list[tuple[str, ...]] = []
    for i in range(rank):
        entry = spec[i] if i < len(spec) else None
        if entry is None:
            out.append(())
        elif isinstance(entry, (tuple, list)):
            out.append(tuple(str(a) for a in entry))
        else:
            out.append((str(entry),))
    return out


def detached(value: Any) -> Any:
    """A value as the stepper holds it: the same numbers, typed for no mesh.

    Constants made while tracing a ``shard_map`` body, and the outputs of
    equations whose parameters name the body's mesh (``sharding=`` of
    ``convert_element_type``, ``broadcast_in_dim``, ``iota`` ...), carry that
    manual mesh in their type; the stepper runs each device's equations
    outside any mesh, where such a value cannot meet the others. PRNG keys
    are kept as they are.
    """
    if (isinstance(value, jax.Array) and not jax.typeof(value).sharding.mesh.empty
            and not is_key_array(value)):
        return np.asarray(value)
    return value


def is_key_array(value: Any) -> bool:
    """True for typed PRNG key arrays (their elements are not numbers)."""
    dtype = getattr(value, "dtype", None)
    return dtype is not None and jax.dtypes.issubdtype(dtype, jax.dtypes.prng_key)


def aval_shape_dtype(var: Any) -> tuple[tuple[int, ...], Any]:
    """A variable's shape and (NumPy) dtype."""
    return tuple(var.aval.shape), var.aval.dtype


# --------------------------------------------------------------------------- #
# The compiled program (the storyboard)
# --------------------------------------------------------------------------- #


def hlo_schedule(compiled: Any) -> dict[str, list[str]]:
    """Computation name -> instruction names in the order the program runs them.

    Read from the compiled module's own schedule (``HloModule.schedule()``);
    computations without a schedule (fusion bodies, reducers) are left out, and
    an executable without a readable schedule gives ``{}``.
    """
    try:
        module = compiled.runtime_executable().hlo_modules()[0]
        schedule = module.schedule()
    except (AttributeError, IndexError, RuntimeError, TypeError):
        return {}
    if schedule is None:
        return {}
    out: dict[str, list[str]] = {}
    for comp in module.computations():
        try:
            out[comp.name] = [ins.name for ins in schedule.sequence(comp)]
        except (IndexError, KeyError, RuntimeError, ValueError):
            continue  # not a scheduled computation (a fusion body, a reducer)
    return out


def device_assignment(compiled: Any) -> list[Any]:
    """The compiled program's devices: element ``p`` runs SPMD partition ``p``.

    All devices, also those of other processes. Falls back to the executable's
    addressable devices (the same list in a single process).
    """
    executable = getattr(compiled, "_executable", None)
    unloaded = getattr(executable, "_unloaded_executable", None)
    devices = getattr(unloaded, "device_list", None)
    if devices is not None:
        return list(devices)
    return list(compiled.runtime_executable().local_devices())
