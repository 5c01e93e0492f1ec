"""Which jaxpr equations each step of a compiled program implements, and why XLA added the rest.

Every HLO instruction JAX lowers carries metadata: ``op_name`` ends in the
primitive it came from (``jit(f)/shard_map/psum``; fused instructions list
several, ``.../mul;.../broadcast_in_dim``; a combined collective
``.../(psum:psum)``) and ``stack_frame_id`` names the user's source line. The
equations of the variant's jaxpr are matched on (primitive, file, line):

* a collective step implements the jaxpr collectives (psum, all_gather,
  ppermute ...) its operands came from -- a combined all-reduce tells each
  operand's origin through the metadata of its ``get-tuple-element`` users, so
  two psums XLA merged into one all-reduce are both its origin;
* a collective whose metadata names no jaxpr collective was inserted by the
  SPMD partitioner while partitioning the named primitive; the reason is
  computed from the shardings of that primitive's operands;
* a compute step implements the equations whose primitive and line its
  instructions (fused ones included) carry. Equations XLA left no trace of
  (folded into bitcasts, constants) go with the preceding equation's step.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Any

from jaxviz.core.hlo_program import Instruction, Module
from jaxviz.core.hlo_steps import RawStep
from jaxviz.model import ArrayTiles, Equation, VariantResult
from jaxviz.model.records import walk_equations
from jaxviz.model.storyboard import Step

#: jaxpr primitives that exchange data between devices -> the HLO collective they become.
JAXPR_COLLECTIVES = {
    "psum": "all-reduce", "pmax": "all-reduce", "pmin": "all-reduce",
    "psum_invariant": "all-reduce", "all_gather": "all-gather",
    "all_gather_invariant": "all-gather", "ppermute": "collective-permute",
    "pshuffle": "collective-permute", "all_to_all": "all-to-all",
    "reduce_scatter": "reduce-scatter", "psum_scatter": "reduce-scatter",
    "pbroadcast": "collective-broadcast",
}

_REDUCE = ("reduce_sum", "reduce_max", "reduce_min", "reduce_prod", "reduce_and", "reduce_or",
           "argmax", "argmin")

Source = tuple[str, int] | None


@dataclass
class _Leaf:
    """An equation without nested jaxprs, with its walk index and source line."""

    index: int
    eq: Equation
    file: str
    line: int | None
    capacity: int  # collective operands not yet claimed by an HLO collective


class Origins:
    """Matches a variant's HLO steps to its jaxpr equations.

    Args:
        vr: the variant (its equations).
        module: its parsed HLO module.
        filename: the user's file (source lines are reported in it).
        inputs: the flat input arrays, to explain partitioner collectives.
    """

    def __init__(self, vr: VariantResult, module: Module, filename: str,
                 inputs: list[ArrayTiles]):
        self.module = module
        self.filename = filename
        self.leaves: list[_Leaf] = []
        for index, eq in enumerate(walk_equations(vr.equations)):
            if eq.subjaxprs:
                continue
            src = eq.source
            self.leaves.append(_Leaf(index, eq, src.file if src else "",
                                     src.line if src else None,
                                     sum(not v.literal for v in eq.inputs) or 1))
        self.collective_leaves = [x for x in self.leaves if x.eq.primitive in JAXPR_COLLECTIVES]
        one_jit = (len(vr.equations) == 1 and vr.equations[0].primitive in ("jit", "pjit")
                   and bool(vr.equations[0].subjaxprs))
        body = vr.equations[0].subjaxprs[0].invars if one_jit else vr.invars
        self.arrays = ({v.name: a for v, a in zip(body, inputs)}
                       if len(body) == len(inputs) else {})
        #: the jit's own out_shardings, by the name of the body's output variable
        self.out_specs: dict[str, str] = {}
        if one_jit:
            specs = _specs(vr.equations[0].params.get("out_shardings", ""))
            outs = vr.equations[0].subjaxprs[0].outvars
            if len(specs) == len(outs):
                self.out_specs = {v.name: spec for v, spec in zip(outs, specs) if spec}

    # -- the whole program ---------------------------------------------------- #

    def attach(self, raw: list[RawStep], steps: list[Step]) -> list[str]:
        """Fill every step's equations, primitives, source lines and collective origin.

        Returns:
            notes on jaxpr collectives the compiled program has no collective for.
        """
        claimed: dict[int, list[int]] = {}  # leaf index -> step numbers
        for k, (r, s) in enumerate(zip(raw, steps)):
            if s.collective is not None:
                for leaf_index in self._collective(r, s):
                    claimed.setdefault(leaf_index, []).append(k)
        compute = [k for k, s in enumerate(steps) if s.kind == "compute"]
        strong: dict[int, set[tuple[str, str, int | None]]] = {}
        weak: dict[int, set[str]] = {}
        for k in compute:
            strong[k], weak[k] = self._compute_origins(raw[k].instructions)
        for leaf in self.leaves:
            if leaf.index in claimed:
                continue
            hits = [k for k in compute if (leaf.eq.primitive, leaf.file, leaf.line) in strong[k]]
            if not hits:
                hits = [k for k in compute if leaf.eq.primitive in weak[k]][:1]
            if hits:
                claimed[leaf.index] = hits
        unexchanged: dict[str, int] = {}
        last = compute[0] if compute else None
        for leaf in self.leaves:
            if leaf.index in claimed:
                last = _compute_at_or_after(max(claimed[leaf.index]), compute)
                continue
            if leaf.eq.primitive in JAXPR_COLLECTIVES:
                key = f"{leaf.eq.primitive} ({self._where(leaf)})"
                unexchanged[key] = unexchanged.get(key, 0) + 1
            if last is not None:
                claimed[leaf.index] = [last]
        notes = [f"{key if n == 1 else f'{n} x {key}'} needs no exchange between devices: the "
                 f"compiled program has no collective for it" for key, n in unexchanged.items()]
        by_index = {x.index: x for x in self.leaves}
        for leaf_index, ks in claimed.items():
            for k in ks:
                if leaf_index not in steps[k].equations:
                    steps[k].equations.append(leaf_index)
        for s in steps:
            s.equations.sort()
            eqs = [by_index[i].eq for i in s.equations if i in by_index]
            s.primitives = list(dict.fromkeys(e.primitive for e in eqs))
            s.source_lines = sorted({e.source.line for e in eqs
                                     if e.source is not None and e.source.file == self.filename})
        return notes

    # -- collectives ---------------------------------------------------------- #

    def _collective(self, r: RawStep, step: Step) -> list[int]:
        """Give a collective step its origin; return the leaves it implements."""
        assert step.collective is not None
        ins = r.instructions[0]
        found: list[int] = []
        named_collective = False
        for prims, source, type_str in self._slots(r.computation, ins, step.input_shapes):
            if any(p in JAXPR_COLLECTIVES for p in prims):
                named_collective = True
            leaf = self._claim(prims, source, type_str)
            if leaf is not None and leaf.index not in found:
                found.append(leaf.index)
        if found or named_collective:
            step.equations = list(found)
            return found
        step.collective.origin = "partitioner"
        prims = ins.primitives
        serving = self._serving(prims, self.module.source(ins))
        if serving is not None:
            step.equations = [serving.index]
        step.collective.why = self._why(step, serving)
        return []

    def _slots(self, comp_name: str, ins: Instruction,
               operand_types: list[str]) -> list[tuple[list[str], Source, str]]:
        """(primitives, source, operand type) of each operand of a collective."""
        own = (ins.primitives, self.module.source(ins))
        if len(ins.types) <= 1:
            return [(own[0], own[1], t) for t in operand_types[:1] or [""]]
        comp = self.module.computations[comp_name]
        by_index: dict[int, Instruction] = {}
        for user in comp.instructions:
            index = user.tuple_index
            if (user.opcode == "get-tuple-element" and ins.name in user.operands
                    and index is not None):
                by_index.setdefault(index, user)
        slots = []
        for k, type_str in enumerate(operand_types):
            gte = by_index.get(k)
            if gte is not None and gte.op_name:
                slots.append((gte.primitives, self.module.source(gte), type_str))
            else:
                slots.append((own[0], own[1], type_str))
        return slots

    def _claim(self, prims: list[str], source: Source, type_str: str) -> _Leaf | None:
        """The first unclaimed jaxpr collective that best fits an operand's metadata."""
        def fit(leaf: _Leaf) -> tuple[bool, bool]:
            same_line = (leaf.file, leaf.line) == source
            same_type = any(v.type_str == type_str for v in leaf.eq.inputs)
            return same_line, same_type

        candidates = [x for x in self.collective_leaves
                      if x.capacity > 0 and x.eq.primitive in prims]
        if not candidates:
            return None
        best = max(candidates, key=lambda x: (*fit(x), -x.index))
        best.capacity -= 1
        return best

    def _serving(self, prims: list[str], source: Source) -> _Leaf | None:
        """The equation whose partitioning needed an inserted collective."""
        hits = [x for x in self.leaves if x.eq.primitive in prims]
        if source is not None:
            exact = [x for x in hits if (x.file, x.line) == source]
            if exact:
                return exact[0]
        return hits[0] if len(hits) == 1 else None

    # -- compute -------------------------------------------------------------- #

    def _compute_origins(self, instructions: list[Instruction]
                         ) -> tuple[set[tuple[str, str, int | None]], set[str]]:
        """(primitive, file, line) the instructions carry; primitives without a line."""
        strong: set[tuple[str, str, int | None]] = set()
        weak: set[str] = set()
        seen: set[str] = set()
        todo = list(instructions)
        while todo:
            ins = todo.pop()
            source = self.module.source(ins)
            for prim in ins.primitives:
                if source is None:
                    weak.add(prim)
                else:
                    strong.add((prim, source[0], source[1]))
            for _role, name in ins.called():
                sub = self.module.computations.get(name)
                if sub is not None and name not in seen:
                    seen.add(name)
                    todo.extend(sub.instructions)
        return strong, weak

    # -- why the partitioner inserted a collective ---------------------------- #

    def _why(self, step: Step, serving: _Leaf | None) -> str:
        op = step.collective
        assert op is not None
        over = ("over " + " and ".join(repr(a) for a in op.mesh_axes) if op.mesh_axes
                else "between the devices of each group")
        dims = ", ".join(map(str, op.dimensions))
        action = {
            "all-gather": f"gathers dimension {dims} {over} so that every device holds it whole",
            "all-reduce": f"adds up the devices' partial results {over}",
            "reduce-scatter": f"adds up the devices' partial results {over} and leaves each "
                              f"device one slice of the sum",
            "all-to-all": f"re-tiles the data: the devices swap blocks {over}",
            "collective-permute": "moves blocks from device to device to re-tile the data",
        }.get(op.kind, f"exchanges data {over}")
        if serving is None:
            shapes = f"{', '.join(step.input_shapes)} -> {', '.join(step.output_shapes)}"
            return (f"inserted by XLA's SPMD partitioner, not in the jaxpr: it {action} "
                    f"({shapes} per device)")
        reasons = self._reasons(serving.eq) or self._asked_by_out_shardings(step, serving.eq)
        lead = "; ".join(reasons) + ": so " if reasons else ""
        return (f"{lead}XLA's SPMD partitioner {action}, for {serving.eq.primitive} "
                f"({self._where(serving)}); the jaxpr has no collective here")

    def _reasons(self, eq: Equation) -> list[str]:
        """How the shardings of an equation's operands disagree with what it computes."""
        ins = [self.arrays.get(v.name) for v in eq.inputs]
        lhs, rhs = (ins + [None, None])[:2]
        if eq.primitive == "dot_general" and lhs is not None and rhs is not None:
            dims = _literal(eq.params.get("dimension_numbers", ""))
            if dims is not None:
                (lc, rc), (lb, rb) = dims
                return (_pair_reasons("contracted", lhs, rhs, lc, rc)
                        + _pair_reasons("batch", lhs, rhs, lb, rb))
        if eq.primitive in _REDUCE and ins and ins[0] is not None:
            axes = _ints(eq.params.get("axes", ""))
            return [f"reduced dimension {d} of {ins[0].name} is {_split(ins[0].split_by[d])}"
                    for d in axes if d < len(ins[0].split_by) and ins[0].split_by[d]]
        known = [a for a in ins if a is not None]
        if len(known) >= 2 and len({tuple(a.shape) for a in known}) == 1:
            a, b = known[0], known[1]
            return [f"dimension {d} of {a.name} is {_split(a.split_by[d])} but of {b.name} "
                    f"{_split(b.split_by[d])}" for d in range(len(a.shape))
                    if a.split_by[d] != b.split_by[d]]
        return []

    def _asked_by_out_shardings(self, step: Step, eq: Equation) -> list[str]:
        """A re-tiling of an equation's result that the jit returns with out_shardings of
        its own: those asked for the other layout."""
        op = step.collective
        if op is None or op.kind not in ("all-to-all", "all-gather", "collective-permute"):
            return []
        asked = [self.out_specs[v.name] for v in eq.outputs if v.name in self.out_specs]
        if not asked:
            return []
        return [f"the jit's out_shardings ask for the {eq.primitive} result as {asked[0]}, "
                f"not as the devices compute it"]

    def _where(self, leaf: _Leaf) -> str:
        return f"line {leaf.line}" if leaf.line is not None and leaf.file == self.filename \
            else "in the jaxpr"


def _compute_at_or_after(k: int, compute: list[int]) -> int | None:
    """The compute step at ``k`` or the first after it (else the last before it)."""
    after = [c for c in compute if c >= k]
    if after:
        return after[0]
    return compute[-1] if compute else None


def _pair_reasons(word: str, lhs: ArrayTiles, rhs: ArrayTiles, ldims: list[int],
                  rdims: list[int]) -> list[str]:
    out = []
    for dl, dr in zip(ldims, rdims):
        al, ar = lhs.split_by[dl], rhs.split_by[dr]
        if al != ar:
            out.append(f"{word} dimension {dl} of {lhs.name} is {_split(al)} but dimension "
                       f"{dr} of {rhs.name} is {_split(ar)}")
        elif al and word == "contracted":
            out.append(f"contracted dimension {dl} of {lhs.name} and {dr} of {rhs.name} are "
                       f"both {_split(al)}: each device multiplies matching slices into a "
                       f"partial sum")
    return out


def _specs(text: str) -> list[str]:
    """The ``P(...)`` of each sharding in a printed ``out_shardings`` tuple ("" for one the
    jit leaves unspecified)."""
    text = text.strip()
    if not text.startswith("(") or "NamedSharding" not in text:
        return []
    parts, depth, start = [], 0, 1
    for k, ch in enumerate(text):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if (ch == "," and depth == 1) or (depth == 0 and ch == ")"):
            parts.append(text[start:k].strip())
            start = k + 1
    found = [re.search(r"spec=(P\(.*?\))(?:,|\))", p) for p in parts if p]
    return [m.group(1) if m else "" for m in found]


def _split(axes: list[str]) -> str:
    return "split over " + " and ".join(repr(a) for a in axes) if axes else "not split"


def _literal(text: str) -> Any:
    """A parameter's Python literal (``(((1,), (0,)), ((), ()))``), or ``None``."""
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return None


def _ints(text: str) -> list[int]:
    return [int(x) for x in re.findall(r"-?\d+", text)]
