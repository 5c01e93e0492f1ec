"""Rows of the collectives table and the projected cost of a device-view phase.

One :class:`CollectiveRow` per :class:`~jaxviz.model.program.CollectiveUse` (identical
collectives already grouped, with their count including loop trip counts), its cells
the text ``jaxpr collectives`` prints. With a chip, each row gains the projected time
of all its executions (:func:`jaxviz.model.cost_model.collective_time` times the
count) and the formula that made it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from jaxviz.model.chips import Chip
from jaxviz.model.cost_model import (
    Estimate,
    PhaseProjection,
    Projection,
    axis_sizes_of,
    collective_time,
    project,
    seconds,
)
from jaxviz.model.program import CollectiveUse, MemoryUse, ProgramCosts

#: The columns of the table, in order (the projected one only with a chip).
COLUMNS = ["#", "collective", "axes", "groups", "per device in -> out", "sends", "receives",
           "count", "sent in all", "origin", "line", "serves", "why"]


def human_bytes(n: float | None) -> str:
    """``12582`` -> ``12.3 KiB``."""
    if n is None:
        return "?"
    value = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(value) < 1024 or unit == "TiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} TiB"


def axes_text(use: CollectiveUse) -> str:
    """The mesh axes a collective runs along, ``-`` when none match."""
    if use.mesh_axes:
        return ",".join(use.mesh_axes)
    return "-"


def groups_text(use: CollectiveUse, limit: int = 3) -> str:
    """``{0,1} {2,3}``, or ``{0->1} {1->2} +6`` for a permute's pairs."""
    items = use.groups if use.groups else use.pairs
    arrow = "->" if not use.groups else ","
    shown = [("{" + arrow.join(map(str, g)) + "}") for g in items[:limit]]
    more = f" +{len(items) - limit}" if len(items) > limit else ""
    return " ".join(shown) + more


def shapes_text(shapes: list[str]) -> str:
    """``[f32[2,8], f32[2,8], f32[2,8]]`` -> ``3 x f32[2,8]``; mixed shapes as they are."""
    if len(shapes) > 1 and len(set(shapes)) == 1:
        return f"{len(shapes)} x {shapes[0]}"
    return " ".join(shapes)


def line_text(use: CollectiveUse) -> str:
    """The first source lines it serves, ``-`` when none."""
    lines = ",".join(str(n) for n in use.source_lines[:3])
    return lines or "-"


def memory_lines(mem: MemoryUse | None) -> list[str]:
    """XLA's memory analysis per device, as a sentence."""
    if mem is None:
        return ["memory per device: XLA gives no memory analysis for this program"]
    return [f"memory per device (XLA's memory analysis): arguments "
            f"{human_bytes(mem.argument_bytes)}, outputs {human_bytes(mem.output_bytes)}"
            + (f" ({human_bytes(mem.alias_bytes)} aliased to arguments)"
               if mem.alias_bytes else "")
            + f", temporaries {human_bytes(mem.temp_bytes)}"]


def projection_label(costs: ProgramCosts, chip: Chip) -> str:
    """``projected: 8x H100``: what a projected number is, always said with it."""
    return f"projected: {len(costs.devices)}x {chip.name}"


def projected_time(use: CollectiveUse, costs: ProgramCosts, chip: Chip) -> Estimate:
    """All executions of one collective group on ``chip``: one execution's roofline
    (:func:`~jaxviz.model.cost_model.collective_time`) times its count."""
    one = collective_time(chip, use.kind, use.operand_bytes, use.result_bytes,
                          axis_sizes_of(use, costs), use.groups or use.pairs)
    if use.count == 1:
        return one
    return Estimate(one.value * use.count,
                    f"{use.count} x ({one.formula}) = {seconds(one.value * use.count)}")


@dataclass
class CollectiveRow:
    """One row of the table: a collective group's cells and where it leads.

    Attributes:
        cells: the text of :data:`COLUMNS`, in order.
        steps: the storyboard steps it is (the device view's phases to go to).
        source_lines: the user's source lines it serves.
        projected: the projected time of all its executions (None without a chip).
        formula: how ``projected`` was computed ("" without a chip).
    """

    cells: list[str]
    steps: list[int] = field(default_factory=list)
    source_lines: list[int] = field(default_factory=list)
    projected: float | None = None
    formula: str = ""


def collective_rows(costs: ProgramCosts, chip: Chip | None = None) -> list[CollectiveRow]:
    """One row per collective group of ``costs``, in program order."""
    rows = []
    for k, c in enumerate(costs.collectives, 1):
        name = c.kind + (f" ({c.reduction})" if c.reduction else "")
        name += " async" if c.asynchronous else ""
        shapes = f"{shapes_text(c.operand_shapes)} -> {shapes_text(c.result_shapes)}"
        count = f"{c.count}" + (" (loop)" if c.in_loop else "")
        row = CollectiveRow(
            cells=[str(k), name, axes_text(c), groups_text(c), shapes,
                   human_bytes(c.sent_bytes), human_bytes(c.received_bytes), count,
                   human_bytes(c.sent_bytes * c.count),
                   "you" if c.origin == "jaxpr" else "XLA", line_text(c),
                   ",".join(c.primitives[:3]) or "-", c.why or "-"],
            steps=list(c.steps), source_lines=list(c.source_lines))
        if chip is not None:
            est = projected_time(c, costs, chip)
            row.projected, row.formula = est.value, est.formula
        rows.append(row)
    return rows


_BOUND = {"compute": "compute-bound", "memory": "HBM-bound", "communication": "link-bound"}


def phase_cost_text(projection: Projection, costs: ProgramCosts, step: int) -> str:
    """What storyboard step ``step`` costs on the projection's chip, in words:
    ``all-gather of 34.0 MiB over 'data' on TPU v5e: about 380 us, link-bound``
    ("" when the program has no such step). "About" is the phase's lower bound (its
    compute, HBM and link times overlapped), what bounds it the largest of them
    (``latency-bound`` when that is a collective's per-hop latency floor)."""
    ph = next((p for p in projection.phases if p.step == step), None)
    if ph is None:
        return ""
    sc = next(s for s in costs.steps if s.step == step)
    if sc.collective is not None:
        use = costs.collectives[sc.collective]
        axes = " x ".join(f"'{a}'" for a in use.mesh_axes) or f"{use.group_size} devices"
        what = (f"{use.kind} of {human_bytes(max(use.operand_bytes, use.result_bytes))} "
                f"over {axes}")
    else:
        what = f"compute of {ph.flops:.3g} FLOP and {human_bytes(ph.hbm_bytes)} of HBM traffic"
    if ph.times > 1:
        what += f" x{ph.times}"
    bound = _BOUND[ph.bound]
    if ph.bound == "communication" and ph.t_comm.formula.endswith("latency-bound"):
        bound = "latency-bound"  # the per-hop floor, not the links' bandwidth
    return f"{what} on {projection.chip_name}: about {seconds(ph.t_lower.value)}, {bound}"


def phase_projection(projection: Projection, step: int) -> PhaseProjection | None:
    """The projection of storyboard step ``step``, if any."""
    return next((p for p in projection.phases if p.step == step), None)


__all__ = ["COLUMNS", "CollectiveRow", "axes_text", "collective_rows", "groups_text",
           "human_bytes", "line_text", "memory_lines", "phase_cost_text", "phase_projection",
           "project", "projected_time", "projection_label", "shapes_text"]
