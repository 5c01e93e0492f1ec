"""The projected timeline beside the measured one: what each variant would take on real chips.

Qt-free. The engine compiles each timed variant and reads its costs per device
(:class:`~jaxviz.model.program.ProgramCosts`, from the compiled HLO); this module
projects them onto a chip with the same function as ``jaxviz cost``
(:func:`jaxviz.model.cost_model.project`) and lays the phases out on three
lanes -- compute, memory, communication -- one phase after the other, each
phase as long as its overlapped bound ``max(T_compute, T_memory, T_comm)``.
Every device runs the same SPMD program, so one block of lanes stands for each
of a variant's devices. Nothing here is measured, and nothing is drawn on the
measured plots: the figure is its own, labelled ``projected: 8x H100, mesh i=8``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from jaxviz.model.chips import Chip
from jaxviz.model.cost_model import Projection, project, seconds
from jaxviz.model.program import ProgramCosts

#: The lanes, top to bottom, and the Projection field each one draws.
LANES = ("compute", "memory", "communication")

#: The traced variant whose compiled program each timing variant runs; None: no one
#: compiled XLA program to project, with the reason.
TRACED: dict[str, str | None] = {
    "jit": "jit", "jit-sync": "jit", "jit-vmap": "vmap", "pmap": "pmap",
    "sharded": "sharded", "shard_map": "shard_map",
    "numpy": None, "op-by-op": None, "vmap": None, "loop": None}

WHY_NOT: dict[str, str] = {
    "numpy": "NumPy runs on the host: no XLA program to project",
    "op-by-op": "every operation is dispatched on its own: no one compiled program",
    "vmap": "vmap without jit is dispatched op by op: no one compiled program",
    "loop": "a Python loop of calls: project jit (one example) instead",
}


@dataclass
class Bar:
    """One phase's time on one lane (seconds from the start of the program)."""

    lane: str
    start: float
    length: float
    phase: int
    label: str
    formula: str


@dataclass
class ProjectedVariant:
    """One variant's lanes.

    Attributes:
        variant: the timing variant (``pmap``); traced: the compiled variant it runs.
        title: ``projected: 8x H100, mesh i=8``.
        devices: how many chips; mesh: the mesh as text.
        bars: every phase on every lane with a nonzero time.
        end: the end of the last phase (phases in sequence, each at its max).
        projection: the whole projection (``jaxpr cost --json``'s numbers).
    """

    variant: str
    traced: str
    title: str
    devices: int
    mesh: str
    bars: list[Bar]
    end: float
    projection: Projection


@dataclass
class ProjectedTimeline:
    """Every projected variant for one chip, and the variants left out (with why)."""

    chip: str
    chip_name: str
    variants: list[ProjectedVariant] = field(default_factory=list)
    left_out: dict[str, str] = field(default_factory=dict)

    @property
    def end(self) -> float:
        return max((v.end for v in self.variants), default=0.0)

    def speedups(self) -> dict[str, float]:
        """Each variant's projected step time (lower bound) against the slowest's."""
        if not self.variants:
            return {}
        slowest = max(v.projection.total.t_lower.value for v in self.variants)
        return {v.variant: slowest / v.projection.total.t_lower.value
                for v in self.variants if v.projection.total.t_lower.value > 0}


def title_of(p: Projection) -> str:
    """``projected: 8x H100, mesh i=8``."""
    return f"projected: {p.devices}x {p.chip_name}" + (f", mesh {p.mesh}" if p.mesh else "")


def projected_variant(variant: str, traced: str, costs: ProgramCosts,
                      chip: Chip) -> ProjectedVariant:
    """Project one variant's compiled costs and lay its phases out on the lanes."""
    p = project(costs, chip)
    bars: list[Bar] = []
    t = 0.0
    for i, ph in enumerate(p.phases):
        for lane, est in zip(LANES, (ph.t_compute, ph.t_memory, ph.t_comm)):
            if est.value > 0:
                bars.append(Bar(lane, t, est.value, i, ph.label, est.formula))
        t += ph.t_lower.value
    return ProjectedVariant(variant, traced, title_of(p), p.devices, p.mesh, bars, t, p)


def projected_timeline(programs: dict[str, ProgramCosts | str], chip: Chip) -> ProjectedTimeline:
    """The timeline of every timing variant.

    Args:
        programs: per timing variant, its compiled costs, or why it has none.
        chip: the chip to project onto.
    """
    out = ProjectedTimeline(chip.key, chip.name)
    for variant, costs in programs.items():
        if isinstance(costs, str):
            out.left_out[variant] = costs
            continue
        out.variants.append(projected_variant(variant, TRACED.get(variant) or variant, costs,
                                              chip))
    return out


def caption(timeline: ProjectedTimeline) -> str:
    """What the figure shows, in one paragraph."""
    parts = [f"Projected on {timeline.chip_name}, not measured: a roofline of each "
             f"variant's compiled program (per device; every device runs the same program). "
             f"Phases one after another, each as long as max(T_compute, T_memory, T_comm)."]
    speed = timeline.speedups()
    if len(speed) > 1:
        parts.append("Step time (lower bound): " + "; ".join(
            f"{v.variant} {seconds(v.projection.total.t_lower.value)} on {v.devices} "
            f"chip{'s' if v.devices > 1 else ''} ({speed[v.variant]:.3g}x)"
            for v in timeline.variants) + ".")
    for v, why in timeline.left_out.items():
        parts.append(f"{v}: not projected ({why}).")
    return " ".join(parts)


def timeline_json(timeline: ProjectedTimeline) -> dict[str, object]:
    """The raw data of the projected timeline (the export): the bars and each variant's
    ``jaxviz cost --json`` object."""
    from jaxviz.model.cost_model import projection_json

    return {"chip": timeline.chip, "chip_name": timeline.chip_name, "projected": True,
            "variants": [{"variant": v.variant, "traced": v.traced, "title": v.title,
                          "devices": v.devices, "mesh": v.mesh, "end_s": v.end,
                          "bars": [{"lane": b.lane, "start_s": b.start, "length_s": b.length,
                                    "phase": b.phase, "label": b.label,
                                    "formula": b.formula} for b in v.bars],
                          "cost": projection_json(v.projection)} for v in timeline.variants],
            "left_out": dict(timeline.left_out)}
