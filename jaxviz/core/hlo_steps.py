"""The steps of a compiled program in the order every device runs them.

Walks a parsed HLO module (:mod:`jaxviz.core.hlo_program`, where all text is
read) from its ENTRY computation: runs of local computation between
collectives, each collective with its device groups mapped to device ids
through the executable's device assignment, and the inside of while loops,
conditionals and calls that communicate, with a note of where a step is. For
each run of computation, the per-device types it reads from before it and
makes for after it come from the def-use graph of its computation.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field

from jaxviz.core.hlo_program import (
    BOOKKEEPING,
    COLLECTIVE_OPCODES,
    REDUCTIONS,
    Computation,
    Instruction,
    Module,
    replica_groups,
    source_target_pairs,
)


@dataclass
class Context:
    """A control-flow construct a step runs inside (see ``model.Enclosing``)."""

    kind: str
    hlo: str
    part: str
    trip_count: int | None = None


@dataclass
class CollectiveInstr:
    """A collective instruction, its device groups already mapped to device ids."""

    instruction: Instruction
    kind: str
    reduction: str
    groups: list[list[int]]
    pairs: list[list[int]]
    dimensions: list[int]
    channel_id: int | None
    operand_types: list[str]
    result_types: list[str]


@dataclass
class RawStep:
    """A run of compute instructions or one collective, in program order."""

    kind: str  # "compute" | "collective"
    computation: str
    instructions: list[Instruction]
    within: list[Context]
    input_types: list[str] = field(default_factory=list)
    output_types: list[str] = field(default_factory=list)
    collective: CollectiveInstr | None = None


def program_steps(module: Module, devices: list[int]) -> list[RawStep]:
    """The steps every device runs, in program order, loops and branches followed.

    Args:
        module: the parsed module.
        devices: the device assignment: ``devices[p]`` runs partition ``p``.
    """
    return list(_walk(module, module.entry_computation, [], devices))


def _walk(module: Module, comp: Computation, within: list[Context],
          devices: list[int]) -> Iterator[RawStep]:
    flow = _Flow(module, comp)
    run: list[Instruction] = []

    def flush() -> Iterator[RawStep]:
        if run:
            ins, outs = flow.boundary(run)
            yield RawStep("compute", comp.name, list(run), within, ins, outs)
            run.clear()

    for ins in comp.instructions:
        kind = collective_kind(ins)
        if kind:
            yield from flush()
            yield RawStep("collective", comp.name, [ins], within,
                          collective=_collective(module, comp, ins, kind, devices))
            continue
        inner = [(role, module.computations[c]) for role, c in ins.called()
                 if c in module.computations and ins.opcode in ("while", "conditional", "call")]
        inner = [(role, c) for role, c in inner if contains_collective(module, c)]
        if inner:  # follow the parts that communicate (a loop's counter test does not)
            yield from flush()
            for role, sub in sorted(inner, key=lambda rc: rc[0] != "condition"):
                context = Context(ins.opcode, ins.name, role, ins.trip_count)
                yield from _walk(module, sub, within + [context], devices)
            continue
        if not flow.bookkeeping(ins):
            run.append(ins)
    yield from flush()


def collective_kind(ins: Instruction) -> str:
    """The collective an instruction performs, or ``""``.

    ``all-gather`` for ``all-gather-start``.
    """
    op = ins.opcode.removesuffix("-start")
    return op if op in COLLECTIVE_OPCODES else ""


def contains_collective(module: Module, comp: Computation, seen: set[str] | None = None) -> bool:
    """Whether a computation (or one it calls) has a collective instruction."""
    seen = set() if seen is None else seen
    if comp.name in seen:
        return False
    seen.add(comp.name)
    for ins in comp.instructions:
        if collective_kind(ins):
            return True
        for _, called in ins.called():
            sub = module.computations.get(called)
            if sub is not None and contains_collective(module, sub, seen):
                return True
    return False


def _collective(module: Module, comp: Computation, ins: Instruction, kind: str,
                devices: list[int]) -> CollectiveInstr:
    def device(p: int) -> int:
        return devices[p] if p < len(devices) else p

    n = module.num_partitions * module.num_replicas
    groups = [] if kind == "collective-permute" else replica_groups(ins.attrs, n)
    pairs = [[device(a), device(b)] for a, b in source_target_pairs(ins.attrs)]
    named = comp.by_name()
    result_types = ins.types
    if ins.opcode.endswith("-start"):
        done = next((u for u in comp.instructions if u.opcode.endswith("-done")
                     and ins.name in u.operands), None)
        result_types = done.types if done is not None else ins.types[-1:]
    operand_types = [t for o in ins.operands for t in (named[o].types if o in named else [])]
    return CollectiveInstr(
        instruction=ins, kind=kind, reduction=_reduction(module, ins),
        groups=[[device(p) for p in g] for g in groups], pairs=pairs,
        dimensions=ins.dimensions, channel_id=ins.channel_id,
        operand_types=operand_types, result_types=list(result_types))


def _reduction(module: Module, ins: Instruction) -> str:
    for role, name in ins.called():
        if role == "to_apply" and name in module.computations:
            root = next((i for i in module.computations[name].instructions if i.root), None)
            return REDUCTIONS.get(root.opcode, root.opcode) if root is not None else ""
    return ""


class _Flow:
    """Def-use facts of one computation, for the values a compute run reads and makes."""

    def __init__(self, module: Module, comp: Computation):
        self.module = module
        self.named = comp.by_name()
        self.users: dict[str, list[str]] = {i.name: [] for i in comp.instructions}
        for ins in comp.instructions:
            for op in ins.operands:
                if op in self.users:
                    self.users[op].append(ins.name)

    def bookkeeping(self, ins: Instruction) -> bool:
        """No computation of its own: naming, bitcasts, copies, a fusion of only those."""
        if ins.opcode in BOOKKEEPING or ins.opcode.endswith("-done"):
            return True
        if ins.opcode == "fusion":
            called = [self.module.computations.get(c)
                      for role, c in ins.called() if role == "calls"]
            return all(c is not None and all(i.opcode in ("parameter", "copy", "bitcast")
                                              for i in c.instructions) for c in called)
        return False

    def _source(self, name: str) -> Instruction | None:
        """Follow bitcasts and copies back to the value they reinterpret."""
        ins = self.named.get(name)
        while ins is not None and (ins.opcode in ("bitcast", "copy") or (
                ins.opcode == "fusion" and self.bookkeeping(ins))) and len(ins.operands) == 1:
            ins = self.named.get(ins.operands[0])
        return ins

    def _consumers(self, name: str) -> Iterator[str]:
        """Users of a value, looking through bookkeeping users; ``""`` for the result."""
        ins = self.named[name]
        if ins.root:
            yield ""
        for user in self.users.get(name, []):
            if self.bookkeeping(self.named[user]):
                yield from self._consumers(user)
            else:
                yield user

    def boundary(self, run: list[Instruction]) -> tuple[list[str], list[str]]:
        """Types a run reads from before it and types it makes for after it."""
        inside = {i.name for i in run}
        inputs: dict[str, list[str]] = {}
        for ins in run:
            for op in ins.operands:
                src = self._source(op)
                if src is None or src.name in inside or src.opcode in (
                        "constant", "partition-id", "replica-id"):
                    continue
                inputs.setdefault(src.name, src.types)
        outputs = [t for ins in run
                   if any(c not in inside for c in self._consumers(ins.name))
                   for t in ins.types]
        return list(itertools.chain.from_iterable(inputs.values())), outputs
