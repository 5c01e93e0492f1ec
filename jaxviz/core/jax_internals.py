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
* :func:`var_name` -- a variable's printed name in a given printing context.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import jax
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
