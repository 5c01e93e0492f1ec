"""The storyboard of a variant: what every device holds and does, read from the compiled program.

The storyboard is the single source of truth for the device view. The core
builds it (:mod:`jaxviz.core.storyboard`) from three things JAX itself
provides, never from guesses:

* the real shardings of every input and output (``devices_indices_map``):
  :class:`ArrayTiles`, one :class:`Tile` per distinct block with the exact
  devices holding it;
* the optimized, SPMD-partitioned HLO module of the compiled variant, in
  program order: :class:`Step` records, compute runs and collectives, with the
  per-device shapes XLA gave them;
* the traced jaxpr: which equations (and so which source lines) each step
  implements, or, for a collective the jaxpr does not have, that the SPMD
  partitioner inserted it and why.

Everything is plain data (strings, numbers, lists and other records of this
module) so it crosses the process boundary and serializes with
:func:`~jaxviz.model.records.to_plain`.

Device numbers are always device ids (``jax.Device.id``), never positions in
the program's device assignment.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from jaxviz.model.claims import StoryClaims
from jaxviz.model.codec import check_annotations, register
from jaxviz.model.devices import MeshInfo

#: Kinds of :class:`Step`.
STEP_KINDS = ("compute", "collective")

#: HLO collective opcodes a :class:`CollectiveOp` can have.
COLLECTIVE_KINDS = ("all-reduce", "all-gather", "reduce-scatter", "all-to-all",
                    "collective-permute", "collective-broadcast", "ragged-all-to-all")

#: Where a collective came from (:attr:`CollectiveOp.origin`).
ORIGINS = ("jaxpr", "partitioner")


@register
@dataclass
class Tile:
    """One distinct block of an array and every device that holds it.

    Attributes:
        index: per array axis, the ``[start, stop)`` range of the block.
        devices: the ids of the devices holding exactly this block, sorted.
            More than one device means the block is held whole by each of
            them (shared), not split between them.
    """

    index: list[list[int]]
    devices: list[int]


@register
@dataclass
class ArrayTiles:
    """Where the blocks of one input or output array live.

    Attributes:
        name: argument name or pytree path (``x``, ``params[0][1]``) for
            inputs, ``out`` / ``out[1]`` for outputs.
        role: ``input`` or ``output``.
        shape: the global (logical) shape.
        dtype: short dtype name (``f32``).
        spec: the ``PartitionSpec`` text of a named sharding, else the
            sharding's description.
        tile_shape: the shape of one block (the same for every block).
        tiles: one :class:`Tile` per distinct block, in index order.
        devices: every device holding some block, sorted.
        replicated: every device of the program holds the whole array.
        split_by: per array axis, the mesh axis names that split it (empty:
            that axis is not split). For shardings without mesh axis names an
            axis that is cut has ``["?"]``.
    """

    name: str
    role: str
    shape: list[int]
    dtype: str
    spec: str
    tile_shape: list[int]
    tiles: list[Tile]
    devices: list[int]
    replicated: bool
    split_by: list[list[str]]

    @property
    def type_str(self) -> str:
        return f"{self.dtype}[{','.join(str(d) for d in self.shape)}]"

    @property
    def tile_type_str(self) -> str:
        return f"{self.dtype}[{','.join(str(d) for d in self.tile_shape)}]"


@register
@dataclass
class Enclosing:
    """A control-flow construct of the compiled program that a step runs inside.

    Attributes:
        kind: ``while``, ``conditional`` or ``call``.
        hlo: the HLO instruction's name (``while.15``).
        part: ``body``, ``condition`` or ``branch 1`` (which part of it).
        trip_count: the number of iterations XLA knows a loop makes, if it
            knows (``None`` otherwise or for non-loops).
    """

    kind: str
    hlo: str
    part: str
    trip_count: int | None = None


@register
@dataclass
class CollectiveOp:
    """What a collective step exchanges, and between which devices.

    Attributes:
        kind: the HLO opcode, one of :data:`COLLECTIVE_KINDS`.
        reduction: ``sum``, ``max``, ``min``, ``product``, ``and``, ``or`` for
            reducing collectives (all-reduce, reduce-scatter), else ``""``.
        groups: the devices that exchange data, one list per group, each in
            the group's own order (the order an all-gather stacks pieces in).
            Empty for collective-permute.
        pairs: ``[source, target]`` device pairs of a collective-permute.
        dimensions: the array dimensions an all-gather concatenates, a
            reduce-scatter scatters or an all-to-all splits/concatenates.
        mesh_axes: the mesh axes the groups run along (when the groups are
            exactly those of some mesh axes; empty otherwise).
        origin: ``jaxpr`` (the user's program has the collective: a psum,
            all_gather, ppermute ...) or ``partitioner`` (XLA's SPMD
            partitioner inserted it to make the shardings work).
        why: for partitioner collectives, the reason computed from the
            shardings and the operation it serves; ``""`` for jaxpr ones.
        channel_id: the HLO channel id (``None`` if the op has none).
    """

    kind: str
    reduction: str = ""
    groups: list[list[int]] = field(default_factory=list)
    pairs: list[list[int]] = field(default_factory=list)
    dimensions: list[int] = field(default_factory=list)
    mesh_axes: list[str] = field(default_factory=list)
    origin: str = "jaxpr"
    why: str = ""
    channel_id: int | None = None


#: Kinds of :class:`StepGroup`, from the whole program down.
GROUP_KINDS = ("program", "part", "loop", "call", "scope", "run", "repeat")

#: Parts of a train step, as the name stack of the compiled program shows them.
PARTS = ("forward", "backward", "update")


@register
@dataclass
class CallSite:
    """One frame of the user's Python call stack a step was traced under.

    Attributes:
        function: the function's name (``block``, ``<lambda>``).
        line: the line of the user's file running in that frame: the call of
            the next frame, or, innermost, the line that made the operation.
    """

    function: str
    line: int


@register
@dataclass
class StepGroup:
    """A contiguous run of steps that come from one place of the program.

    Groups nest (the whole program, then the forward / backward / update part
    of a train step, loops, the functions called and named scopes); each step
    belongs to exactly one innermost group (:attr:`Step.group`). A ``run`` is
    at least four collectives of one kind in a row from several places (XLA
    hoists the parameters' all-gathers of a whole model to the start). Consecutive
    identical stretches (the same steps, shapes and sources: one function
    called again and again, a layer after another) collapse into one
    ``repeat`` group with a count and one child per repetition (the last one may
    lack its last steps, when XLA fused them with other work: its title says so).

    Attributes:
        name: a unique path of short names (``forward/loss_fn/block``), what
            ``jaxviz animate --group`` accepts.
        title: the words for people (``block (line 56)``, ``block, call 3 of 12``).
        kind: one of :data:`GROUP_KINDS`; a repetition inside a ``repeat``
            group has the kind of what repeats.
        first, last: the steps it spans (indices into :attr:`Storyboard.steps`,
            inclusive).
        parent: the index of the enclosing group in :attr:`Storyboard.groups`
            (``None`` for the whole program).
        repeat: how many identical consecutive repetitions the group holds
            (1: none).
        iteration: for one repetition of a ``repeat`` group, which (1-based).
        trip_count: for a loop, the iterations XLA knows it makes.
        function: the function a ``call`` group runs, or the loop's function.
        line: where the group starts in the user's file: the line calling the
            function, the loop's line, ``None`` if unknown.
    """

    name: str
    title: str
    kind: str
    first: int
    last: int
    parent: int | None = None
    repeat: int = 1
    iteration: int | None = None
    trip_count: int | None = None
    function: str = ""
    line: int | None = None


@register
@dataclass
class Step:
    """One step every device runs, in program order.

    All devices run the same SPMD program, so the per-device shapes are the
    same on every device.

    Attributes:
        kind: ``compute`` (local work, no communication) or ``collective``.
        equations: the jaxpr equations this step implements, as indices into
            the pre-order walk of the variant's equations (nested equations
            included, see :func:`jaxviz.model.records.walk_equations`). A collective XLA made
            from several jaxpr collectives (e.g. two psums combined into one
            all-reduce) lists all of them.
        primitives: the distinct primitives of those equations, in order.
        source_lines: the user's source lines (1-based) of those equations.
        input_shapes: per-device types going in (``f32[4,32]``): for a
            collective its operands, for a compute step the values it reads
            that were made before it.
        output_shapes: per-device types coming out: a collective's results,
            or the values a compute step makes that are used after it.
        hlo: the names of the HLO instructions of the step (for linking to
            the compiled HLO text).
        within: the loops/branches of the compiled program the step is
            inside, outermost first (empty at top level).
        collective: what is exchanged, for collective steps.
        part: ``forward``, ``backward`` or ``update`` (see :data:`PARTS`) where
            the program differentiates (``jvp``/``transpose`` in the HLO
            metadata's name stack), else ``""``.
        scopes: the named scopes (``jax.named_scope``) of the step's name
            stack, outermost first.
        calls: the user's call stack the step was traced under, from the
            traced function's frame inward.
        group: the index of its innermost :class:`StepGroup`
            (:attr:`Storyboard.groups`), ``None`` before grouping.
    """

    kind: str
    equations: list[int] = field(default_factory=list)
    primitives: list[str] = field(default_factory=list)
    source_lines: list[int] = field(default_factory=list)
    input_shapes: list[str] = field(default_factory=list)
    output_shapes: list[str] = field(default_factory=list)
    hlo: list[str] = field(default_factory=list)
    within: list[Enclosing] = field(default_factory=list)
    collective: CollectiveOp | None = None
    part: str = ""
    scopes: list[str] = field(default_factory=list)
    calls: list[CallSite] = field(default_factory=list)
    group: int | None = None


@register
@dataclass
class VmapBatch:
    """The batch a ``vmap`` variant maps over, and whether a loop of calls could replace it.

    Attributes:
        size: the number of examples in the batch.
        in_axes: per input array (the flattened leaves, in the order of
            :attr:`Storyboard.inputs`), its batch axis; ``None`` for an input
            every example shares.
        loop_blocker: ``""`` when a Python loop calling the function on one
            example at a time computes the same thing; otherwise why it
            cannot, checked by tracing the function on one example (e.g. it
            uses a collective over the batch axis, which one call does not
            have).
        out_axes: per output array (the flattened leaves, in the order of the
            storyboard's outputs), the axis ``vmap`` put the batch on (``out_axes``,
            made non-negative); ``None`` for an output every example shares. Empty
            when not known (then an output whose first axis is the batch's size is
            taken to carry it there).
    """

    size: int
    in_axes: list[int | None] = field(default_factory=list)
    loop_blocker: str = ""
    out_axes: list[int | None] = field(default_factory=list)


@register
@dataclass
class StoryPhase:
    """One phase of the device view's animation, as plain data for slide tools and tests.

    The device view (:mod:`jaxviz.views.devices`) computes the phases, their titles and
    captions from the storyboard; ``jaxviz animate --out story.json`` writes
    them next to the storyboard they were computed from.

    Attributes:
        kind: ``host``, ``split``, ``transfer``, ``compute``, ``collective``,
            ``assemble``; for vmap ``loop`` (a Python loop could do the same),
            ``no_loop`` (it could not, and why), ``vectorized``, ``result``.
        title: the phase's one-line title.
        caption: what happens, in one or two sentences.
        devices: the devices that act in this phase.
        groups: for a collective, the devices that exchange data, per group.
        pairs: for a collective-permute, ``[source, target]`` pairs.
        input_shapes, output_shapes: per-device types going in and out.
        step: the index into :attr:`Storyboard.steps` this phase shows, or
            ``None`` for phases about the arrays (host, split, transfer,
            assemble ...).
        arrays: the names of the arrays (see :attr:`Storyboard.arrays`, whose
            tiles list their holders) the phase moves or shows.
        source_lines: the user's source lines of the equations it shows.
        iterations: for a step inside loops, the trip counts XLA knows
            (outermost first; ``None`` where unknown).
        group: the index of the innermost :class:`StepGroup` of its step
            (``None`` for phases about the arrays).
    """

    kind: str
    title: str
    caption: str
    devices: list[int] = field(default_factory=list)
    groups: list[list[int]] = field(default_factory=list)
    pairs: list[list[int]] = field(default_factory=list)
    input_shapes: list[str] = field(default_factory=list)
    output_shapes: list[str] = field(default_factory=list)
    step: int | None = None
    arrays: list[str] = field(default_factory=list)
    source_lines: list[int] = field(default_factory=list)
    iterations: list[int | None] = field(default_factory=list)
    group: int | None = None


@register
@dataclass
class Storyboard:
    """Everything the device view shows for one variant.

    Attributes:
        variant: ``plain``, ``jit``, ``vmap``, ``pmap``, ``sharded`` or
            ``shard_map``.
        one_program: True when JAX runs the variant as one compiled XLA
            program (jit, pmap, sharded, shard_map); False for ``plain`` and a
            bare ``vmap``, which run op by op -- their steps are then those of
            the program ``jax.jit`` would compile for the same function.
        mesh: the device mesh of a named sharding (axis names, sizes, device
            ids in mesh order), or ``None`` without one.
        devices: the program's device assignment: ``devices[k]`` runs SPMD
            partition ``k``.
        processes: the process index of each device in ``devices``.
        arrays: the inputs (flattened pytree leaves) and outputs.
        steps: what every device runs, in program order.
        notes: facts the steps alone do not show (e.g. a jaxpr collective
            that needs no communication in the compiled program).
        hlo_module: the compiled HLO module's name.
        batch: for a ``vmap`` variant, the batch it maps over.
        phases: the device view's phases computed from this storyboard; empty
            as the core returns it, filled when it is written for slides
            (``jaxviz animate --out story.json``).
        claims: the facts its sentences are rendered from (how the call runs, where
            each array starts, how it is held, which collective the user wrote),
            derived from JAX by :mod:`jaxviz.core.claims`; ``None`` if not derived.
        groups: where the steps come from, as nested :class:`StepGroup`
            records, parents before children; ``groups[0]`` is the whole
            program (empty for a storyboard without steps).
    """

    variant: str
    one_program: bool
    mesh: MeshInfo | None
    devices: list[int]
    processes: list[int]
    arrays: list[ArrayTiles] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    hlo_module: str = ""
    batch: VmapBatch | None = None
    phases: list[StoryPhase] = field(default_factory=list)
    claims: StoryClaims | None = None
    groups: list[StepGroup] = field(default_factory=list)

    @property
    def collectives(self) -> list[Step]:
        """The collective steps, in program order."""
        return [s for s in self.steps if s.kind == "collective"]

    @property
    def inputs(self) -> list[ArrayTiles]:
        return [a for a in self.arrays if a.role == "input"]

    @property
    def outputs(self) -> list[ArrayTiles]:
        return [a for a in self.arrays if a.role == "output"]


    def children(self, group: int) -> list[int]:
        """The groups directly inside ``group``, in program order."""
        return [k for k, g in enumerate(self.groups) if g.parent == group]

    def group_path(self, group: int) -> list[int]:
        """``group`` and its ancestors, the whole program first."""
        path: list[int] = []
        k: int | None = group
        while k is not None:
            path.append(k)
            k = self.groups[k].parent
        return path[::-1]


check_annotations(Tile, ArrayTiles, Enclosing, CollectiveOp, CallSite, StepGroup, Step, VmapBatch,
                  StoryPhase, Storyboard)
