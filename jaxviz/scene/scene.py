"""What the device view draws for one variant, as plain records (no Qt).

A :class:`Scene` holds everything the renderer needs except pixel positions:
the devices in mesh order with their grid cell, process and colour
(:class:`DeviceSlot`); every input and output as a
:class:`~jaxviz.scene.tiles.TileGrid`; the per-device program; and the
animation's :class:`Phase` list with captions. :func:`jaxviz.scene.build.build_scene`
makes one from a :class:`~jaxviz.model.TraceResult`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from jaxviz.model.call_code import CallCode
from jaxviz.model.notes import VariantNote
from jaxviz.scene.program import Collective, Program
from jaxviz.scene.tiles import TileGrid

#: Variants that spread the work over a mesh of devices.
PARALLEL = ("pmap", "sharded", "shard_map")


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
    """The batch of a vmap variant: its size and each input's batch axis."""

    size: int
    in_axes: list[int | None]
    trips: int


#: ``(variant, first_line, last_line)`` of a variant's jaxpr text.
Highlight = tuple[str, int, int]


@dataclass
class Phase:
    """One step of the animation."""

    kind: str  # host split transfer compute collective assemble loop vectorized result
    title: str
    caption: str
    highlights: list[Highlight] = field(default_factory=list)
    duration: float = 3.0  # seconds at 1x speed
    compute_label: str = ""  # local shapes, e.g. "i32[1,5], f32[1,3] → f32[1,3]"
    collective: Collective | None = None
    #: Where this variant differs from the others, when the phase is where it shows
    #: (collectives, the result); the caption ends with it too.
    note: str = ""


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
    program: Program
    jaxpr_text: str = ""
    mesh_axes: list[tuple[str, int]] = field(default_factory=list)
    idle_devices: int = 0
    batch: Batch | None = None
    error: str | None = None
    phases: list[Phase] = field(default_factory=list)
    #: The variant's notes (see :mod:`jaxviz.model.notes`); the ones that say it
    #: differs from the other variants are added to the captions they concern.
    notes: list[VariantNote] = field(default_factory=list)
    #: The variant's call as Python that runs as written ("Copy as code").
    code: CallCode | None = None

    @property
    def parallel(self) -> bool:
        return self.variant in PARALLEL and len(self.devices) > 1

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


def empty_scene(message: str, variant: str = "", call: str = "", function: str = "",
                simulated: bool = False) -> Scene:
    """A scene with nothing to draw but ``message`` (no result, or a failed variant)."""
    return Scene(variant=variant, call=call, function=function, simulated=simulated,
                 devices=[], rows=0, cols=0, row_label="", col_label="", row_ticks=[],
                 col_ticks=[], inputs=[], outputs=[], program=Program(local=False, steps=[]),
                 error=message)
