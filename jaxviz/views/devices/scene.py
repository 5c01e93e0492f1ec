"""What the device view draws for one variant, as plain records (no Qt).

A :class:`Scene` holds everything the renderer needs except pixel positions:
the devices in mesh order with their grid cell, process and colour
(:class:`DeviceSlot`); every input and output as a
:class:`~jaxviz.views.devices.tiles.TileGrid`; the storyboard it was built from; and
the animation's :class:`Phase` list with captions.
:func:`jaxviz.views.devices.build.build_scene` makes one from a
:class:`~jaxviz.model.TraceResult`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from jaxviz.model.call_code import CallCode
from jaxviz.model.notes import VariantNote
from jaxviz.model.storyboard import Step, Storyboard, StoryPhase
from jaxviz.views.devices.tiles import TileGrid, folded, group_name, same_holders

#: Variants that spread the work over a mesh of devices.
PARALLEL = ("pmap", "sharded", "shard_map", "as_written")
#: Fewest leaves of one output pytree that are folded into one drawn entry.
FOLD_OUTPUTS = 4


@dataclass
class DeviceSlot:
    """One device as drawn: its id, kind, process, grid cell and colour."""

    id: int
    kind: str
    platform: str
    process: int
    row: int
    col: int
    colour: str
    coords: list[int] = field(default_factory=list)


@dataclass
class Batch:
    """The batch of a vmap variant: its size, the loop contrast and how many trips are drawn.

    ``loop_blocker`` is empty when a Python loop of calls computes the same
    thing, else why it cannot (from the storyboard, checked by JAX).
    """

    size: int
    trips: int
    loop_blocker: str = ""


#: ``(variant, first_line, last_line)`` of a variant's jaxpr text.
Highlight = tuple[str, int, int]


@dataclass
class Phase:
    """One step of the animation.

    Attributes:
        kind: ``host split transfer compute collective assemble`` and, for
            vmap, ``loop no_loop vectorized result``.
        step: the storyboard step the phase shows (compute and collective
            phases), with its index in ``Storyboard.steps``.
        devices: the devices that act in the phase.
        arrays: the names of the arrays it moves or shows.
        note: where this variant differs from the others, when the phase is where
            it shows (collectives, the result); the caption ends with it too.
    """

    kind: str
    title: str
    caption: str
    highlights: list[Highlight] = field(default_factory=list)
    duration: float = 3.0  # seconds at 1x speed
    compute_label: str = ""  # local shapes, e.g. "i32[1,5], f32[1,3] → f32[1,3]"
    step: Step | None = None
    step_index: int | None = None
    devices: list[int] = field(default_factory=list)
    arrays: list[str] = field(default_factory=list)
    note: str = ""

    @property
    def caption_without_note(self) -> str:
        """The caption before its note (drawn apart, in the note's colours)."""
        if self.note and self.caption.endswith(self.note):
            return self.caption[:-len(self.note)].rstrip()
        return self.caption

    def to_story(self) -> StoryPhase:
        """The phase as plain data (for ``jaxviz animate --out story.json``)."""
        s = self.step
        c = s.collective if s is not None else None
        return StoryPhase(
            kind=self.kind, title=self.title, caption=self.caption, devices=list(self.devices),
            groups=[list(g) for g in c.groups] if c else [],
            pairs=[list(p) for p in c.pairs] if c else [],
            input_shapes=list(s.input_shapes) if s else [],
            output_shapes=list(s.output_shapes) if s else [], step=self.step_index,
            arrays=list(self.arrays), source_lines=list(s.source_lines) if s else [],
            iterations=[e.trip_count for e in s.within if e.kind == "while"] if s else [],
            group=s.group if s else None)


@dataclass
class Scene:
    """Everything the device view draws for one variant, except positions."""

    variant: str
    call: str
    function: str
    simulated: bool
    devices: list[DeviceSlot]
    rows: int
    cols: int
    row_label: str
    col_label: str
    row_ticks: list[str]
    col_ticks: list[str]
    inputs: list[TileGrid]
    outputs: list[TileGrid]
    story: Storyboard | None = None
    jaxpr_text: str = ""
    mesh_axes: list[tuple[str, int]] = field(default_factory=list)
    idle_devices: int = 0
    batch: Batch | None = None
    error: str | None = None
    phases: list[Phase] = field(default_factory=list)
    #: The batch axis of each input and output (vmap), by :attr:`TileGrid.key`.
    batch_axes: dict[str, int | None] = field(default_factory=dict)
    #: The variant's notes (see :mod:`jaxviz.model.notes`); the ones that say it
    #: differs from the other variants are added to the captions they concern.
    notes: list[VariantNote] = field(default_factory=list)
    #: The variant's call as Python that runs as written ("Copy as code").
    code: CallCode | None = None

    #: The jaxpr is the global program (no shard_map): XLA's partitioner made the
    #: per-device one.
    global_program: bool = False

    @property
    def parallel(self) -> bool:
        """The compiled program runs on several devices (its ``num_partitions``)."""
        claims = self.story.claims if self.story is not None else None
        if claims is not None:
            return claims.program.num_partitions > 1 and len(self.devices) > 1
        return self.variant in PARALLEL and len(self.devices) > 1

    @property
    def one_program(self) -> bool:
        """JAX runs the variant as one compiled program (not op by op)."""
        return self.story.one_program if self.story is not None else False

    @property
    def by_id(self) -> dict[int, DeviceSlot]:
        return {d.id: d for d in self.devices}

    @property
    def colour_of(self) -> dict[int, str]:
        return {d.id: d.colour for d in self.devices}

    @property
    def processes(self) -> list[int]:
        return sorted({d.process for d in self.devices})

    @property
    def arrays(self) -> list[TileGrid]:
        return self.inputs + self.outputs

    def folds(self, role: str) -> dict[str, list[TileGrid]]:
        """Pytree groups of ``role`` that can be drawn as one entry: name -> leaves.

        Inputs fold from two leaves, outputs from :data:`FOLD_OUTPUTS`; only
        leaves with the same holders tile by tile fold (one drawing is then
        true for each of them).
        """
        grids = self.inputs if role == "input" else self.outputs
        least = 2 if role == "input" else FOLD_OUTPUTS
        groups: dict[str, list[TileGrid]] = {}
        for g in grids:
            groups.setdefault(group_name(g.name), []).append(g)
        return {name: members for name, members in groups.items()
                if len(members) >= least and name not in {g.name for g in grids}
                and same_holders(members)
                and len({self.batch_axes.get(m.key) for m in members}) == 1}

    def shown(self, role: str, expanded: frozenset[str] = frozenset()) -> list[TileGrid]:
        """The arrays of ``role`` as drawn: folded pytree groups unless ``expanded``."""
        grids = self.inputs if role == "input" else self.outputs
        folds = {name: m for name, m in self.folds(role).items() if name not in expanded}
        out: list[TileGrid] = []
        done: set[str] = set()
        for g in grids:
            name = group_name(g.name)
            if name not in folds:
                out.append(g)
            elif name not in done:
                done.add(name)
                out.append(folded(name, folds[name]))
        return out

    def batch_axis(self, grid: TileGrid) -> int | None:
        """The vmap batch axis of a drawn array (``None``: shared by every example)."""
        first = grid.members[0] if grid.members else grid
        return self.batch_axes.get(first.key)


def empty_scene(message: str, variant: str = "", call: str = "", function: str = "",
                simulated: bool = False) -> Scene:
    """A scene with nothing to draw but ``message`` (no result, or a failed variant)."""
    return Scene(variant=variant, call=call, function=function, simulated=simulated,
                 devices=[], rows=0, cols=0, row_label="", col_label="", row_ticks=[],
                 col_ticks=[], inputs=[], outputs=[], error=message)
