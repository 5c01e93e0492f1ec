"""What a compiled variant costs every device: its collectives, FLOPs, HBM bytes and memory.

The core reads these from the compiled, partitioned HLO module and XLA's own
analyses (:mod:`jaxviz.core.program_analysis`); the projection onto a real
chip (:mod:`jaxviz.model.cost_model`) and every view of them work on these
records alone, without JAX. All numbers are per device: every device runs the
same SPMD program (a collective-permute's sources and targets aside, whose
bytes are those of a device that sends and receives).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from jaxviz.model.codec import check_annotations, register
from jaxviz.model.devices import MeshInfo


@register
@dataclass
class CollectiveUse:
    """One collective of the compiled program, or a group of identical ones.

    Identical means: the same kind, reduction, device groups (or pairs), per-device
    shapes, origin and source lines; the group lists every HLO instruction and
    storyboard step it stands for.

    Attributes:
        kind: the HLO opcode (``all-gather`` for ``all-gather-start``/``-done``).
        reduction: ``sum``, ``max`` ... for all-reduce and reduce-scatter.
        mesh_axes: the mesh axes the groups run along (for a permute: the axes along
            which its sources and targets differ); empty when no mesh axes match.
        groups: the device ids exchanging data, per group (empty for permutes).
        pairs: ``[source, target]`` device pairs of a collective-permute.
        group_size: devices per group (2 for a permute).
        operand_shapes, result_shapes: per-device types going in and out.
        operand_bytes, result_bytes: their bytes on one device.
        sent_bytes, received_bytes: what one device sends and receives for one
            execution, as a ring (all-gather, reduce-scatter, all-reduce) or direct
            (all-to-all, permute) algorithm moves it.
        bytes_formula: how ``sent_bytes`` was computed.
        count: how many times every device runs it: instructions times the trip
            counts of the loops around them.
        instructions: the HLO instructions grouped here (names).
        steps: the storyboard steps (indices) they are.
        trip_counts: per instruction, the product of the known trip counts of the
            loops around it (1 at top level).
        in_loop: some instruction of the group runs inside a while loop.
        asynchronous: XLA split it into ``-start``/``-done`` (overlappable).
        origin: ``jaxpr`` (the user's psum, all_gather, ppermute ...) or
            ``partitioner`` (the SPMD partitioner inserted it).
        primitives: the jaxpr primitives it implements or serves.
        equations: their indices in the pre-order walk of the variant's equations.
        source_lines: the user's source lines of those equations.
        why: for partitioner collectives, why the shardings need it.
    """

    kind: str
    reduction: str = ""
    mesh_axes: list[str] = field(default_factory=list)
    groups: list[list[int]] = field(default_factory=list)
    pairs: list[list[int]] = field(default_factory=list)
    group_size: int = 1
    operand_shapes: list[str] = field(default_factory=list)
    result_shapes: list[str] = field(default_factory=list)
    operand_bytes: int = 0
    result_bytes: int = 0
    sent_bytes: float = 0.0
    received_bytes: float = 0.0
    bytes_formula: str = ""
    count: int = 1
    instructions: list[str] = field(default_factory=list)
    steps: list[int] = field(default_factory=list)
    trip_counts: list[int] = field(default_factory=list)
    in_loop: bool = False
    asynchronous: bool = False
    origin: str = "jaxpr"
    primitives: list[str] = field(default_factory=list)
    equations: list[int] = field(default_factory=list)
    source_lines: list[int] = field(default_factory=list)
    why: str = ""


@register
@dataclass
class StepCost:
    """What one storyboard step costs every device, all its executions together.

    Attributes:
        step: the index into the storyboard's steps.
        kind: ``compute`` or ``collective``.
        times: how often it runs (the product of the loops' known trip counts).
        flops: FLOPs (transcendentals apart), loops inside it run their trip count.
        transcendentals: exp, log, tanh ... one per element.
        flops_by_dtype: the FLOPs split by the element type they run in.
        hbm_bytes: HBM bytes read and written.
        collective: for a collective step, its index into
            :attr:`ProgramCosts.collectives`.
        comm_bytes: bytes one device sends (all executions).
        source_lines: the user's source lines the step implements.
        primitives: the jaxpr primitives it implements.
        where: the loops around it, e.g. ``while.12 body x12``; empty at top level.
    """

    step: int
    kind: str
    times: int = 1
    flops: float = 0.0
    transcendentals: float = 0.0
    flops_by_dtype: dict[str, float] = field(default_factory=dict)
    hbm_bytes: float = 0.0
    collective: int | None = None
    comm_bytes: float = 0.0
    source_lines: list[int] = field(default_factory=list)
    primitives: list[str] = field(default_factory=list)
    where: str = ""


@register
@dataclass
class MemoryUse:
    """Memory per device, from XLA's ``compiled.memory_analysis()`` (bytes)."""

    argument_bytes: int = 0
    output_bytes: int = 0
    temp_bytes: int = 0
    alias_bytes: int = 0
    generated_code_bytes: int = 0

    @property
    def peak_bytes(self) -> int:
        """Arguments, outputs not aliased to them, and temporaries."""
        return self.argument_bytes + self.output_bytes - self.alias_bytes + self.temp_bytes


@register
@dataclass
class ProgramCosts:
    """A compiled variant's costs per device.

    Attributes:
        variant: the variant's name.
        devices: the program's device ids (its device assignment).
        mesh: the mesh of its shardings, if any.
        flops, transcendentals, hbm_bytes, flops_by_dtype: the whole program, every
            while loop's body counted as often as XLA knows it runs.
        xla_flops, xla_bytes: XLA's own ``cost_analysis()`` of the same program (loop
            bodies counted once; no communication), for comparison.
        steps: per storyboard step.
        collectives: the collectives, identical ones grouped, in program order.
        memory: XLA's memory analysis.
        unattributed_flops, unattributed_bytes: what no step holds (copies and other
            bookkeeping, the condition of a loop that communicates).
        unknown_trip_counts: while loops whose trip count XLA does not know (counted once).
        notes: what the numbers leave out.
    """

    variant: str
    devices: list[int] = field(default_factory=list)
    mesh: MeshInfo | None = None
    flops: float = 0.0
    transcendentals: float = 0.0
    hbm_bytes: float = 0.0
    flops_by_dtype: dict[str, float] = field(default_factory=dict)
    xla_flops: float | None = None
    xla_bytes: float | None = None
    steps: list[StepCost] = field(default_factory=list)
    collectives: list[CollectiveUse] = field(default_factory=list)
    memory: MemoryUse | None = None
    unattributed_flops: float = 0.0
    unattributed_bytes: float = 0.0
    unknown_trip_counts: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def comm_bytes(self) -> float:
        """Bytes one device sends over the whole program."""
        return sum(c.sent_bytes * c.count for c in self.collectives)


check_annotations(CollectiveUse, StepCost, MemoryUse, ProgramCosts)
