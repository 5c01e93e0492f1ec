"""Computing a variant's notes from the request and the traced program.

Each note (:class:`~jaxviz.model.notes.VariantNote`) is one sentence whose
numbers, names and lines are read from the jaxpr (and the compiled HLO), never
written by hand:

* ``per_device_collective``: under ``pmap(vmap(f))`` or ``shard_map(vmap(f))``
  with several examples per device, a collective over the device axis reduces
  over the devices only, once per example position -- not over the batch.
* ``reduced_twice`` / ``gradient_summed``: under ``shard_map`` with
  ``check_vma=True``, ``jax.grad`` with respect to a replicated argument
  already sums the gradient over the mesh axis (a ``psum_invariant`` in the
  backward pass); a ``pmean``/``psum`` of that sum counts it once per device.
* ``examples_per_device``, ``check_vma_off``: how the batch was laid out, how
  shard_map was traced.
* ``collectives``: the jaxpr's collectives against the compiled program's.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

from jaxviz.core import jax_internals
from jaxviz.core.hlo_program import COLLECTIVE_OPCODES, HloReadError, read_module
from jaxviz.model.notes import VariantNote

#: Collective primitives and what one does over the devices of its axis.
VERBS = {
    "psum": "sums {n} values per position", "psum_invariant": "sums {n} values per position",
    "pmax": "takes the maximum of {n} values per position",
    "pmin": "takes the minimum of {n} values per position",
    "all_gather": "gathers {n} values per position",
    "all_gather_invariant": "gathers {n} values per position",
    "axis_index": "numbers the {n} devices", "ppermute": "moves values among the {n} devices",
    "pshuffle": "moves values among the {n} devices",
    "all_to_all": "exchanges blocks among the {n} devices",
    "psum_scatter": "sums and scatters over the {n} devices",
    "reduce_scatter": "sums and scatters over the {n} devices",
}
#: The same, for the batch the reference reduces over.
REFERENCE = {"axis_index": "not the {b} examples", "ppermute": "not among the {b} examples",
             "pshuffle": "not among the {b} examples"}


def walk(jaxpr: Any) -> Iterator[Any]:
    """Every equation of a jaxpr, nested ones included (pre-order)."""
    for eqn in jaxpr.eqns:
        yield eqn
        for _name, sub in jax_internals.nested_jaxprs(eqn):
            yield from walk(sub)


#: Primitives that print or call back to Python (jax.debug.print, jax.debug.callback).
PRINTING = frozenset({"debug_print", "debug_callback"})


def prints(closed: Any) -> bool:
    """Whether a traced program prints or calls back at run time (jax.debug.print)."""
    return any(eqn.primitive.name in PRINTING for eqn in walk(closed.jaxpr))


def axes_of(eqn: Any) -> tuple[str, ...]:
    """The named axes a collective equation works over."""
    value = eqn.params.get("axes", eqn.params.get("axis_name", ()))
    items = value if isinstance(value, (tuple, list)) else (value,)
    return tuple(a for a in items if isinstance(a, str))


def line_of(eqn: Any, filename: str) -> int | None:
    span = jax_internals.user_span(eqn, filename)
    return span[1] if span else None


def _lines(lines: list[int | None]) -> str:
    known = sorted({n for n in lines if n is not None})
    if not known:
        return ""
    return f"line {known[0]}" if len(known) == 1 else \
        "lines " + ", ".join(map(str, known[:-1])) + f" and {known[-1]}"


def _axes_text(axes: tuple[str, ...]) -> str:
    return " and ".join(repr(a) for a in axes)


# --------------------------------------------------------------------------- #
# examples per device
# --------------------------------------------------------------------------- #


def per_device_notes(variant: str, function: str, closed: Any, filename: str,
                     device_axes: dict[str, int], per_device: int,
                     batch: int) -> list[VariantNote]:
    """The layout of the batch and, when a device holds several examples, its collectives.

    Args:
        device_axes: the axes the batch is spread over, with their sizes.
        per_device: examples each device holds.
        batch: the whole batch.
    """
    if per_device <= 1 or not device_axes:
        return []
    devices = batch // per_device
    form = f"{variant}(vmap({function}))"
    how = ("is reshaped to" if variant == "pmap" else "is split into")
    notes = [VariantNote("examples_per_device",
                         f"{form}: the batch of {batch} {how} {devices} devices x {per_device} "
                         f"examples; each device runs vmap over its {per_device}")]
    found: Counter[tuple[str, tuple[str, ...]]] = Counter()
    lines: dict[tuple[str, tuple[str, ...]], list[int | None]] = {}
    for eqn in walk(closed.jaxpr):
        name = eqn.primitive.name
        axes = tuple(a for a in axes_of(eqn) if a in device_axes)
        if name not in VERBS or not axes or jax_internals.from_backward_pass(eqn):
            continue
        found[(name, axes)] += 1
        lines.setdefault((name, axes), []).append(line_of(eqn, filename))
    parts = []
    for (name, axes), _count in found.items():
        n = 1
        for a in axes:
            n *= device_axes[a]
        where = _lines(lines[(name, axes)])
        verb = VERBS[name].format(n=n)
        against = REFERENCE.get(name, "not {b}").format(b=batch)
        shown = "psum" if name == "psum_invariant" else name
        parts.append(f"{shown} over {_axes_text(axes)}{f' ({where})' if where else ''} "
                     f"{verb}, {against}")
    if parts:
        notes.append(VariantNote(
            "per_device_collective",
            f"{form} with {per_device} examples per device: {'; '.join(parts)}"))
    return notes


# --------------------------------------------------------------------------- #
# check_vma
# --------------------------------------------------------------------------- #


def check_vma_notes(closed: Any, filename: str, check_vma: bool,
                    mesh_sizes: dict[str, int]) -> list[VariantNote]:
    """What shard_map's ``check_vma`` did to the program."""
    eqns = list(walk(closed.jaxpr))
    if not check_vma:
        psums = sum(e.primitive.name == "psum" for e in eqns)
        said = f"{psums} psum" if psums else "no psum"
        return [VariantNote("check_vma_off",
                            f"shard_map with check_vma=False, as pmap traces it: no value carries "
                            f"the mesh axes it varies over, so the jaxpr has {said} and no "
                            f"psum_invariant or pvary")]
    producer = {id(v): e for e in eqns for v in e.outvars}
    backward = [e for e in eqns if e.primitive.name == "psum_invariant"
                and jax_internals.from_backward_pass(e)]
    if not backward:
        return []
    twice = []
    for eqn in eqns:
        if eqn.primitive.name != "psum_invariant" or jax_internals.from_backward_pass(eqn):
            continue
        source = producer.get(id(eqn.invars[0]))
        if source is None or source.primitive.name != "pvary":
            continue
        origin = _backward_sum_behind(source.invars[0], producer)
        if origin is not None:
            twice.append((eqn, origin))
    axes = tuple(dict.fromkeys(a for e in backward for a in axes_of(e)))
    sums = (f"{len(backward)} psum_invariant in the backward pass"
            f"{', ' + _lines([line_of(e, filename) for e in backward]) if backward else ''}")
    head = (f"with check_vma=True, jax.grad with respect to a replicated argument already sums "
            f"its gradient over {_axes_text(axes)} ({sums})")
    if not twice:
        return [VariantNote("gradient_summed", head)]
    n = 1
    for a in axes:
        n *= mesh_sizes.get(a, 1)
    pmean = [e for e, _ in twice if _divided_by(e, n, eqns)]
    psum = [e for e, _ in twice if e not in pmean]
    parts = []
    if pmean:
        parts.append(f"the pmean over {_axes_text(axes)} "
                     f"({_lines([line_of(e, filename) for e in pmean])}) then averages {n} equal "
                     f"copies of that sum: its result is the sum over the {n} devices, not their "
                     f"mean")
    if psum:
        parts.append(f"the psum over {_axes_text(axes)} "
                     f"({_lines([line_of(e, filename) for e in psum])}) then adds {n} equal "
                     f"copies of that sum: its result is {n} x the sum")
    return [VariantNote("reduced_twice", f"{head}; {'; '.join(parts)}")]


def _backward_sum_behind(var: Any, producer: dict[int, Any]) -> Any | None:
    """The backward-pass psum_invariant ``var`` was computed from, if any."""
    todo, seen = [var], set()
    while todo:
        v = todo.pop()
        eqn = producer.get(id(v))
        if eqn is None or id(eqn) in seen:
            continue
        seen.add(id(eqn))
        if eqn.primitive.name == "psum_invariant" and jax_internals.from_backward_pass(eqn):
            return eqn
        todo.extend(x for x in eqn.invars if not jax_internals.is_literal(x))
    return None


def _divided_by(eqn: Any, n: int, eqns: list[Any]) -> bool:
    """Whether the equation's result is next divided by ``n`` (a pmean is psum, then div)."""
    out = eqn.outvars[0]
    for other in eqns:
        if other.primitive.name == "div" and other.invars and other.invars[0] is out:
            divisor = other.invars[1]
            value = getattr(divisor, "val", None)
            return jax_internals.is_literal(divisor) and value is not None and float(value) == n
    return False


# --------------------------------------------------------------------------- #
# the compiled program's collectives
# --------------------------------------------------------------------------- #


def _in_loops(module: Any) -> set[str]:
    """The computations a while loop runs (its bodies and conditions, and what they call)."""
    looped: set[str] = set()
    todo = [name for c in module.computations.values() for i in c.instructions
            if i.opcode == "while" for role, name in i.called() if role in ("body", "condition")]
    while todo:
        name = todo.pop()
        if name in looped or name not in module.computations:
            continue
        looped.add(name)
        todo += [called for i in module.computations[name].instructions
                 for _, called in i.called()]
    return looped


def collectives_note(closed: Any, hlo: str) -> VariantNote | None:
    """How many collectives the jaxpr has, and how many the compiled program runs."""
    jaxpr_counts = Counter(e.primitive.name for e in walk(closed.jaxpr)
                           if e.primitive.name in VERBS)
    try:
        module = read_module(hlo)
    except HloReadError:
        return None
    placed = [(c.name, i) for c in module.computations.values() for i in c.instructions
              if i.opcode.removesuffix("-start") in COLLECTIVE_OPCODES]
    ops = [i for _, i in placed]
    hlo_counts = Counter(i.opcode.removesuffix("-start") for i in ops)
    if not jaxpr_counts and not hlo_counts:
        return None
    said = ", ".join(f"{k} {name}" for name, k in sorted(jaxpr_counts.items())) or "no collective"
    runs = ", ".join(f"{k} {name}" for name, k in sorted(hlo_counts.items())) or "no collective"
    text = f"the jaxpr has {said}; the compiled program runs {runs}"
    looped = _in_loops(module)
    in_loop = sum(1 for name, _ in placed if name in looped)
    # a combined collective works on a tuple: one operand per collective it replaced --
    # the jaxpr's own where its op_name names only collective primitives (psum ...), else
    # ones the partitioner inserted (their op_name names what they serve: dot_general ...).
    # (An all-to-all on a tuple is one all-to-all: one operand per device's chunk; a
    # ragged one's operands are its data, output and offsets.)
    combined = [i for i in ops if max(len(i.types), len(i.primitives)) > 1
                and i.opcode.removesuffix("-start") not in ("all-to-all", "ragged-all-to-all")]
    parts = sum(max(len(i.types), len(i.primitives)) for i in combined)
    own = bool(jaxpr_counts) and all(i.primitives and set(i.primitives) <= set(VERBS)
                                     for i in combined)
    said_more = []
    if not jaxpr_counts:
        said_more.append("inserted by XLA's SPMD partitioner")
    if combined:
        said_more.append(f"XLA combined {parts} {'jaxpr ' if own else ''}collectives into "
                         f"{len(combined)} op{'s' if len(combined) > 1 else ''}")
    if in_loop:
        said_more.append("inside a loop, once per iteration" if in_loop == len(ops) else
                         f"{in_loop} inside a loop, once per iteration each")
    if said_more:
        text += f" ({'; '.join(said_more)})"
    return VariantNote("collectives", text)
