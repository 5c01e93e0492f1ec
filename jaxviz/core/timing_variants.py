"""The callables a timing run measures: NumPy, op-by-op, jit, a loop, vmap, pmap, sharded.

Each timing variant is built from the trace variants of
:mod:`jaxviz.core.variants` (so it is exactly what the jaxpr panes show) and
becomes a :class:`Timed`: the callable, concrete arguments, the Python of the
call (written by the request's :class:`~jaxviz.core.call_code.CallWriter`, as
the panes' is), the variant's notes and, for variants compiled as a whole, a
factory of fresh wrappers whose ahead-of-time stages (trace, lower, compile)
the first call measures.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxviz.core import arguments, meshes
from jaxviz.core.trace import Loaded, program_notes
from jaxviz.core.variants import Prepared
from jaxviz.model import ErrorInfo
from jaxviz.model.call_code import CallCode
from jaxviz.model.errors import UserError
from jaxviz.model.notes import VariantNote
from jaxviz.model.timing import TIMING_VARIANTS

#: Timing variants that run on batched arguments.
BATCHED_TIMING = ("loop", "vmap", "jit-vmap", "pmap", "shard_map")


@dataclass
class Timed:
    """One timing variant, ready to call as ``fn(*args)``.

    Attributes:
        fresh: makes a new, never-called compiled wrapper (with ``.lower`` and
            maybe ``.trace``) for the first-call stages; ``None`` for variants
            not compiled as a whole.
        chain_ok: the first argument may be replaced by the previous output
            (pipelined calls feed each other where shapes allow).
    """

    variant: str
    fn: Callable
    args: list[Any]
    code: CallCode
    fresh: Callable[[], Any] | None = None
    notes: list[VariantNote] = field(default_factory=list)
    chain_ok: bool = True
    #: The argument types to show, when ``args`` does not say it well (the loop).
    arg_text: str | None = None
    #: Whether the output spans several devices (known after the first call).
    multi_device: bool | None = None
    #: The mesh the calls run inside (``jax.set_mesh``): an explicit mesh, the module's.
    context: Any = None

    @property
    def call(self) -> str:
        """The call as one line of Python."""
        return self.code.call


def uses_batched(loaded: Loaded, variants: list[str]) -> bool:
    """NumPy runs on the batched arguments when batched variants are compared."""
    return loaded.settings.batched and any(v in BATCHED_TIMING or v == "sharded"
                                           for v in variants)


def build(loaded: Loaded, variant: str, baseline: str | None, batched_numpy: bool) -> Timed:
    """Build one timing variant.

    Raises:
        UserError: the function does not support the variant (e.g. pmap of an
            unbatched function), or there is no NumPy baseline.
    """
    maker = _MAKERS.get(variant)
    if maker is None:
        raise UserError(ErrorInfo(kind="option", field="variants", variant=variant,
                                  message=f"unknown timing variant {variant!r}; choose from "
                                          f"{', '.join(TIMING_VARIANTS)}"))
    return maker(loaded, variant, baseline, batched_numpy)


def arg_types(args: list[Any]) -> str:
    """``f32[1000,1000], f32[1000,1000]`` for a list of argument trees."""
    def one(tree: Any) -> str:
        leaves = jax.tree.leaves(tree)
        parts = []
        for leaf in leaves:
            shape = tuple(np.shape(leaf))
            dtype = np.dtype(getattr(leaf, "dtype", np.asarray(leaf).dtype))
            parts.append(f"{_short_dtype(dtype)}[{','.join(map(str, shape))}]")
        return parts[0] if len(parts) == 1 and not isinstance(tree, (list, tuple, dict)) \
            else "(" + ", ".join(parts) + ")"
    return ", ".join(one(a) for a in args)


def _short_dtype(dtype: np.dtype) -> str:
    kind = {"f": "f", "i": "i", "u": "u", "c": "c", "b": "bool"}.get(dtype.kind, dtype.name)
    if dtype.name == "bfloat16":
        return "bf16"
    return kind if kind == "bool" else f"{kind}{dtype.itemsize * 8}"


def _concrete(args: list[Any]) -> list[Any]:
    return list(arguments.concrete(list(args)))


def _timing_note(text: str) -> VariantNote:
    return VariantNote("timing", text)


# --------------------------------------------------------------------------- #
# the variants
# --------------------------------------------------------------------------- #


def _numpy(loaded: Loaded, variant: str, baseline: str | None, batched: bool) -> Timed:
    if not baseline:
        raise UserError(ErrorInfo(
            kind="option", field="baseline", variant=variant,
            message=f"{loaded.builder.name} has no NumPy baseline to time: name a NumPy "
                    f"function of the same file with --baseline NAME"))
    fn = loaded.namespace.get(baseline)
    if not callable(fn):
        raise UserError(ErrorInfo(
            kind="lookup", field="baseline", variant=variant,
            message=f"the NumPy baseline {baseline!r} is not a function of "
                    f"{loaded.builder.name}'s file"))
    source = loaded.builder.batched_args() if batched else loaded.single
    args = jax.tree.map(np.asarray, _concrete(source))
    writer = loaded.builder.writer
    names = writer.args_text(batched)
    convert = f"{names}{',' if len(writer.names) == 1 else ''} = " \
              f"jax.tree.map(np.asarray, ({names}{',' if len(writer.names) == 1 else ''}))"
    code = writer.code(f"{baseline}({names})", batched, extra=[convert])
    return Timed(variant, fn, args, code, chain_ok=True, notes=[_timing_note(
        "NumPy computes on the host before returning: dispatch = completion")])


def _op_by_op(loaded: Loaded, variant: str, baseline: str | None, batched: bool) -> Timed:
    p = loaded.builder.prepare("plain")
    return Timed(variant, p.fn, _concrete(p.args), p.code, context=p.context,
                 notes=[_timing_note("no jit: every jax.numpy operation is dispatched on its "
                                     "own (and compiled on its first call)")])


def _jit(loaded: Loaded, variant: str, baseline: str | None, batched: bool) -> Timed:
    p = loaded.builder.prepare("jit")
    notes = [_timing_note("measured with CPU async dispatch off")] if variant == "jit-sync" \
        else []
    return Timed(variant, p.fn, _concrete(p.args), p.code, context=p.context,
                 fresh=lambda: jax.jit(loaded.builder.fn), notes=notes)


def _vmap(loaded: Loaded, variant: str, baseline: str | None, batched: bool) -> Timed:
    p = loaded.builder.prepare("vmap")
    return Timed(variant, p.fn, _concrete(p.args), p.code, context=p.context,
                 notes=[_timing_note("no jit: the batched operations are dispatched one by "
                                     "one")])


def _jit_vmap(loaded: Loaded, variant: str, baseline: str | None, batched: bool) -> Timed:
    p = loaded.builder.prepare("vmap")
    builder = loaded.builder
    vfn = p.fn
    code = builder.writer.code(f"jax.jit({builder.vmap_text(True)})"
                               f"({builder.writer.args_text(True)})", True)
    return Timed(variant, jax.jit(vfn), _concrete(p.args), code, fresh=lambda: jax.jit(vfn),
                 context=p.context)


def _loop(loaded: Loaded, variant: str, baseline: str | None, batched: bool) -> Timed:
    p = loaded.builder.prepare("vmap")  # checks the function is batched
    batched_args = _concrete(p.args)
    in_axes = loaded.settings.in_axes
    size = arguments.batch_size_of(batched_args, in_axes) or 1
    examples = [[a if axis is None else
                 jax.tree.map(lambda leaf, i=i, ax=axis: jnp.take(jnp.asarray(leaf), i, axis=ax), a)
                 for a, axis in zip(batched_args, in_axes)] for i in range(size)]
    examples = jax.block_until_ready(examples)
    single = jax.jit(loaded.builder.fn)

    def loop(examples: list[list[Any]]) -> list[Any]:
        return [single(*example) for example in examples]

    writer = loaded.builder.writer
    picks = []
    for name, value, axis in zip(writer.arg_names(True), batched_args, in_axes):
        if axis is None:
            picks.append(name)
        elif len(jax.tree.leaves(value)) == 1 and not isinstance(value, (list, tuple, dict)):
            picks.append(f"{name}[i]" if axis == 0 else f"jnp.take({name}, i, axis={axis})")
        else:
            picks.append(f"jax.tree.map(lambda a: jnp.take(a, i, axis={axis}), {name})")
    line = f"examples = [[{', '.join(picks)}] for i in range({size})]"
    code = writer.code(f"[jax.jit({loaded.builder.fn_text})(*example) for example in examples]",
                       True, extra=[line])
    return Timed(variant, loop, [examples], code, chain_ok=False,
                 notes=[_timing_note(f"a Python loop over the {size} examples of the batch")],
                 arg_text=f"{size} x ({arg_types(examples[0]) if examples else ''})")


def _parallel(loaded: Loaded, variant: str, baseline: str | None, batched: bool) -> Timed:
    p = loaded.builder.prepare(variant)
    builder = loaded.builder
    with meshes.mesh_context(p.context):
        notes = _notes(loaded, p)
    return Timed(variant, p.fn, _concrete(p.args), p.code, notes=notes, context=p.context,
                 fresh=lambda: builder.prepare(variant).fn)


def _as_written(loaded: Loaded, variant: str, baseline: str | None, batched: bool) -> Timed:
    """The function as its module defines it: its own jit (if any) is what is measured."""
    p = loaded.builder.prepare("as_written")
    with meshes.mesh_context(p.context):
        notes = _notes(loaded, p)
    args = _concrete(p.args)
    written = loaded.builder.written
    fresh = None
    if hasattr(written, "lower") and not loaded.builder.static:
        def fresh() -> Any:
            return loaded.builder.prepare("as_written").fn
    return Timed(variant, p.fn, args, p.code, notes=notes, context=p.context, fresh=fresh)


def _notes(loaded: Loaded, p: Prepared) -> list[VariantNote]:
    """The trace variant's notes (they need its jaxpr: one more trace, before any timing)."""
    closed = jax.make_jaxpr(p.fn)(*p.args)
    return program_notes(p, closed, loaded, loaded.filename)


_MAKERS: dict[str, Callable[[Loaded, str, str | None, bool], Timed]] = {
    "numpy": _numpy,
    "op-by-op": _op_by_op,
    "jit": _jit,
    "jit-sync": _jit,
    "loop": _loop,
    "vmap": _vmap,
    "jit-vmap": _jit_vmap,
    "pmap": _parallel,
    "sharded": _parallel,
    "shard_map": _parallel,
    "as_written": _as_written,
}
