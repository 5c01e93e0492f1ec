"""What changed between variants: the marks the jaxpr panes draw in their gutters.

* ``vmap`` against ``plain``, read off their diff (:mod:`jaxviz.views.compare.jaxpr_diff`,
  the one pairing of equations): equations whose outputs gained the batch axis
  (``batched``) and primitives that only the batched jaxpr has (``new``, put
  there by a batching rule).
* ``pmap``, ``sharded``, ``shard_map``, ``as_written``: the per-device wrapper
  (``shard_map``, a ``jit`` with shardings: ``wrapper``) and every collective
  (``collective``).
* every variant: where a type's sharding is changed on purpose (``resharded``):
  ``reshard`` (also what ``auto_axes``/``explicit_axes`` trace to), ``mesh_cast``,
  ``device_put``, a ``sharding_constraint`` whose types carry shardings, and any
  equation given an ``out_sharding=``.

Pure Python over the result records (no Qt).

Example:
    >>> marks = batch_marks(result.variant("plain"), result.variant("vmap"))  # doctest: +SKIP
    >>> [m.kind for m in marks][:2]                                           # doctest: +SKIP
    ['batched', 'batched']
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from jaxviz.model import Equation, TraceResult, VariantResult, VarInfo
from jaxviz.views.incremental import Steps, run_to_end
from jaxviz.views.panes.link_index import walk
from jaxviz.views.text.lexers import JAXPR_COLLECTIVES

#: Variants whose panes show the wrapper and collectives marks.
PARALLEL_VARIANTS = ("pmap", "sharded", "shard_map", "as_written")
#: Primitives that move a value to another sharding (explicit sharding's ``reshard``;
#: ``auto_axes`` traces to a pair of them).
RESHARDING = frozenset({"reshard", "mesh_cast", "device_put", "sharding_constraint"})

_WHAT_MOVES = {
    "psum": "all-reduce: every device ends up with the sum over",
    "psum_invariant": "all-reduce: every device ends up with the sum over",
    "pmean": "all-reduce: every device ends up with the mean over",
    "pmax": "all-reduce: every device ends up with the maximum over",
    "pmin": "all-reduce: every device ends up with the minimum over",
    "all_gather": "all-gather: every device receives every shard along",
    "all_gather_invariant": "all-gather: every device receives every shard along",
    "all_to_all": "all-to-all: each device sends a piece of its shard to every other along",
    "ppermute": "permute: each device sends its shard to another device along",
    "pshuffle": "shuffle: each device sends its shard to another device along",
    "psum_scatter": "reduce-scatter: summed across devices, each keeps one slice, along",
    "reduce_scatter": "reduce-scatter: summed across devices, each keeps one slice, along",
    "pbroadcast": "broadcast: one device's value is sent to all along",
    "axis_index": "axis index: each device reads its own position (no data moves) along",
}


@dataclass(frozen=True)
class Mark:
    """A mark on jaxpr lines ``start..end`` (0-based, inclusive) with a plain-words tip."""

    kind: str  # "batched" | "new" | "wrapper" | "collective" | "resharded"
    start: int
    end: int
    tip: str


def batch_marks(plain: VariantResult, batched: VariantResult) -> list[Mark]:
    """Marks on ``batched`` (a vmap jaxpr) relative to ``plain``, read off their diff.

    The rows of :func:`~jaxviz.views.compare.jaxpr_diff.diff_variants` say it: a paired
    equation whose output gained an axis is ``batched``; an equation only the
    batched jaxpr has is ``new``. A wrapper's mark covers its opening lines (its
    body's equations have marks of their own).
    """
    return run_to_end(_batch_marks_steps(plain, batched))


def _batch_marks_steps(plain: VariantResult, batched: VariantResult) -> Steps[list[Mark]]:
    """:func:`batch_marks` in steps (the diff of a big program's jaxprs takes a while)."""
    # (loaded here: the other marks of a result need no diff, and its module's import was
    # most of the first result's marks_for in the window's turn)
    from jaxviz.views.compare.jaxpr_diff import diff_steps

    diff = yield from diff_steps(plain, batched)
    marks = []
    for row in diff.rows:
        side = row.right
        if side is None or not side.text_lines:
            continue
        start, end = side.text_lines[0], side.text_lines[-1]
        if row.kind == "only_right":
            marks.append(Mark("new", start, end, f"{side.primitive}: not in the plain jaxpr; "
                                                 f"vmap's batching rules added it"))
            continue
        gained = [c for c in row.shapes if c.where == "output" and c.change == "gained"]
        if gained:
            marks.append(Mark("batched", start, end,
                              f"{side.primitive}: {'; '.join(c.text for c in gained)}"))
    return marks


def is_wrapper(eqn: Equation) -> bool:
    """Whether an equation runs its body per device: shard_map, pmap or a sharded jit."""
    if eqn.primitive in ("shard_map", "xla_pmap", "sharding_constraint"):
        return True
    return eqn.primitive in ("jit", "pjit") and any(
        "NamedSharding" in eqn.params.get(k, "") for k in ("in_shardings", "out_shardings"))


def is_collective(eqn: Equation, declared: Sequence[str] = ()) -> bool:
    return eqn.primitive in JAXPR_COLLECTIVES or eqn.primitive in declared


def _axes(eqn: Equation) -> str:
    for key in ("axes", "axis_name"):
        if key in eqn.params:
            return f"axis {eqn.params[key]}"
    return "the mapped axis"


def _only_places_a_shard_map(eqn: Equation) -> bool:
    """A sharded ``jit`` whose body is a ``shard_map``: the jit only places the inputs, the
    shard_map's body is what runs per device (one mark for it, as under ``pmap``)."""
    return eqn.primitive in ("jit", "pjit") and any(
        inner.primitive == "shard_map" for sub in eqn.subjaxprs for inner in sub.equations)


#: Equations looked at per step by the marks' steps (a train step has thousands; 150 were
#: a 7.8 ms step).
STEP_EQUATIONS = 60


def parallel_marks(vr: VariantResult) -> list[Mark]:
    """The wrapper and collective marks of a pmap/sharded/shard_map jaxpr."""
    return run_to_end(_parallel_marks_steps(vr))


def _parallel_marks_steps(vr: VariantResult) -> Steps[list[Mark]]:
    marks = []
    for n, (_path, eqn) in enumerate(walk(vr.equations)):
        if n % STEP_EQUATIONS == STEP_EQUATIONS - 1:
            yield
        if eqn.text_start is None:
            continue
        end = eqn.text_end if eqn.text_end is not None else eqn.text_start
        if is_collective(eqn, vr.collectives):
            what = _WHAT_MOVES.get(eqn.primitive, f"{eqn.primitive}: data moves between "
                                                  f"devices along")
            marks.append(Mark("collective", eqn.text_start, end, f"{what} {_axes(eqn)}"))
        elif is_wrapper(eqn) and not _only_places_a_shard_map(eqn):
            if eqn.primitive == "shard_map":
                tip = (f"shard_map: the body below runs once per device, on that "
                       f"device's shard ({eqn.params.get('mesh', '')})")
            elif eqn.primitive == "sharding_constraint":
                tip = "sharding constraint: the compiler must lay this array out as given"
            else:
                tip = ("jit with shardings: XLA's partitioner splits this program across "
                       "the devices of the mesh")
            marks.append(Mark("wrapper", eqn.text_start, end, tip))
    return marks


def _sharding_text(var: VarInfo) -> str:
    return var.type_str if var.sharding else f"{var.type_str} (no sharding in its type)"


def sharding_marks(vr: VariantResult) -> list[Mark]:
    """Where a type's sharding is changed on purpose (see the module docstring).

    Equations of these primitives are marked when a type carries a sharding on
    either side (under an Auto mesh types carry none: a ``sharding_constraint``
    there is the compiler hint the parallel marks already show); an equation
    given ``out_sharding=`` is marked for what it chose.
    """
    return run_to_end(_sharding_marks_steps(vr))


def _sharding_marks_steps(vr: VariantResult) -> Steps[list[Mark]]:
    marks = []
    for n, (_path, eqn) in enumerate(walk(vr.equations)):
        if n % STEP_EQUATIONS == STEP_EQUATIONS - 1:
            yield
        if eqn.text_start is None:
            continue
        end = eqn.text_end if eqn.text_end is not None else eqn.text_start
        if eqn.subjaxprs:
            end = eqn.text_start
        typed = any(v.sharding for v in [*eqn.inputs, *eqn.outputs])
        chosen = eqn.params.get("out_sharding", "None") not in ("None", "")
        if eqn.primitive in RESHARDING and typed:
            before = ", ".join(_sharding_text(v) for v in eqn.inputs if not v.literal)
            after = ", ".join(_sharding_text(v) for v in eqn.outputs)
            marks.append(Mark("resharded", eqn.text_start, end,
                              f"{eqn.primitive}: the sharding changes, {before} -> {after} "
                              f"(the data moves between devices to match)"))
        elif chosen:
            after = ", ".join(_sharding_text(v) for v in eqn.outputs)
            marks.append(Mark("resharded", eqn.text_start, end,
                              f"{eqn.primitive}: out_sharding chose the result's sharding: "
                              f"{after}"))
    return marks


def marks_for(result: TraceResult, variant: str) -> list[Mark]:
    """The marks of one variant's pane (empty when there is nothing to compare)."""
    return run_to_end(marks_steps(result, variant))


def marks_steps(result: TraceResult, variant: str) -> Steps[list[Mark]]:
    """:func:`marks_for` in steps: a vmap variant's are read off its diff against the
    plain jaxpr, a few milliseconds a step (a big program's diff is hundreds of
    milliseconds: the window puts it in the pane's fill, not in one turn)."""
    try:
        vr = result.variant(variant)
    except KeyError:
        return []
    if not vr.ok:
        return []
    marks: list[Mark] = []
    if variant == "vmap":
        try:
            plain = result.variant("plain")
        except KeyError:
            plain = None
        if plain is not None and plain.ok:
            marks = yield from _batch_marks_steps(plain, vr)
    elif variant in PARALLEL_VARIANTS:
        marks = yield from _parallel_marks_steps(vr)
    resharded = yield from _sharding_marks_steps(vr)
    return sorted(marks + resharded, key=lambda m: (m.start, m.end))


def compiler_added(vr: VariantResult) -> list[str]:
    """The collectives XLA's SPMD partitioner added to the variant's program, whatever its
    name: read off the storyboard's steps when it has one, else every collective of a
    compiled program whose jaxpr has none; ``[]`` when that cannot be told."""
    story = vr.storyboard
    if story is not None:
        return sorted({s.collective.kind for s in story.steps if s.collective is not None
                       and s.collective.origin == "partitioner"})
    if vr.collectives:
        return []  # the jaxpr's own collectives are in the program too: which is which?
    return sorted(set(vr.hlo_collectives))


def summary(marks: list[Mark]) -> dict[str, int]:
    """How many marks of each kind."""
    counts: dict[str, int] = {}
    for m in marks:
        counts[m.kind] = counts.get(m.kind, 0) + 1
    return counts
