"""Text and JSON of a program's collectives and costs, for ``jaxviz collectives`` and ``cost``."""

from __future__ import annotations

from jaxviz.model.cost_model import Projection, seconds
from jaxviz.model.program import ProgramCosts
from jaxviz.views.collectives.rows import (  # noqa: F401 - the CLI's names for them
    COLUMNS,
    axes_text,
    collective_rows,
    groups_text,
    human_bytes,
    line_text,
    memory_lines,
    shapes_text,
)


def _table(rows: list[list[str]], right: set[int]) -> list[str]:
    widths = [max(len(r[k]) for r in rows) for k in range(len(rows[0]))]
    return ["  ".join(cell.rjust(widths[k]) if k in right else cell.ljust(widths[k])
                      for k, cell in enumerate(row)).rstrip() for row in rows]


def collectives_text(costs: ProgramCosts, call: str, simulated: bool) -> str:
    """The collectives table, the memory per device and the reasons, as text."""
    out = [f"{costs.variant}: {call}"]
    if costs.mesh is not None:
        m = costs.mesh
        out.append("mesh: " + " x ".join(f"{n}={s}" for n, s in zip(m.axis_names,
                                                                      m.axis_sizes)))
    kind = "simulated CPU devices" if simulated else "devices"
    out.append(f"{len(costs.devices)} {kind}; bytes are per device")
    out.append("")
    if not costs.collectives:
        out.append("no collectives: every device computes on its own data")
    else:
        # the window's Collectives tab shows the same cells, and the reasons in a column
        rows = [COLUMNS[:-1]] + [row.cells[:-1] for row in collective_rows(costs)]
        out += _table(rows, {0, 5, 6, 7, 8})
        total = sum(c.count for c in costs.collectives)
        out.append("")
        out.append(f"{len(costs.collectives)} distinct collectives, {total} executions; "
                   f"each device sends {human_bytes(costs.comm_bytes)} in all. "
                   f"origin: 'you' = a collective in your code (psum, all_gather, ...), "
                   f"'XLA' = inserted by the SPMD partitioner")
        whys = [(k, c.why) for k, c in enumerate(costs.collectives, 1) if c.why]
        if whys:
            out.append("")
            out.append("why XLA inserted them:")
            out += [f"  #{k}: {why}" for k, why in whys]
    out.append("")
    out += memory_lines(costs.memory)
    out += [f"note: {n}" for n in costs.notes]
    return "\n".join(out)


def collectives_json(costs: ProgramCosts, call: str, simulated: bool) -> dict[str, object]:
    mem = costs.memory
    return {
        "variant": costs.variant, "call": call, "simulated": simulated,
        "devices": costs.devices, "per": "device",
        "mesh": None if costs.mesh is None else {
            "axis_names": costs.mesh.axis_names, "axis_sizes": costs.mesh.axis_sizes,
            "device_ids": costs.mesh.device_ids},
        "collectives": [{
            "kind": c.kind, "reduction": c.reduction, "mesh_axes": c.mesh_axes,
            "groups": c.groups, "pairs": c.pairs, "group_size": c.group_size,
            "operand_shapes": c.operand_shapes, "result_shapes": c.result_shapes,
            "operand_bytes": c.operand_bytes, "result_bytes": c.result_bytes,
            "sent_bytes": c.sent_bytes, "received_bytes": c.received_bytes,
            "bytes_formula": c.bytes_formula, "count": c.count, "in_loop": c.in_loop,
            "asynchronous": c.asynchronous, "hlo": c.instructions, "steps": c.steps,
            "origin": "user" if c.origin == "jaxpr" else "xla",
            "primitives": c.primitives, "equations": c.equations,
            "source_lines": c.source_lines, "why": c.why,
        } for c in costs.collectives],
        "comm_bytes": costs.comm_bytes,
        "memory": None if mem is None else {
            "argument_bytes": mem.argument_bytes, "output_bytes": mem.output_bytes,
            "temp_bytes": mem.temp_bytes, "alias_bytes": mem.alias_bytes},
        "notes": costs.notes,
    }


def projection_text(p: Projection, call: str, verbose: bool = False) -> str:
    """The per-phase table of a projection, the whole program, memory and notes."""
    out = [f"projected: {p.devices}x {p.chip_name}" + (f", mesh {p.mesh}" if p.mesh else "")
           + f" -- {call}", "per device; a roofline from the compiled program, not a "
                            "measurement", ""]
    rows = [["phase", "what", "line", "FLOPs", "HBM bytes", "sent", "T_compute", "T_memory",
             "T_comm", "at least", "at most", "bound"]]
    for ph in p.phases:
        rows.append([str((ph.step or 0) + 1), ph.label,
                     str(ph.source_line) if ph.source_line is not None else "-",
                     f"{ph.flops:.3g}", human_bytes(ph.hbm_bytes), human_bytes(ph.comm_bytes),
                     seconds(ph.t_compute.value), seconds(ph.t_memory.value),
                     seconds(ph.t_comm.value), seconds(ph.t_lower.value),
                     seconds(ph.t_upper.value), ph.bound])
    t = p.total
    rows.append(["all", "the whole program", "-", f"{t.flops:.3g}", human_bytes(t.hbm_bytes),
                 human_bytes(t.comm_bytes), seconds(t.t_compute.value),
                 seconds(t.t_memory.value), seconds(t.t_comm.value), seconds(t.t_lower.value),
                 seconds(t.t_upper.value), t.bound])
    table = _table(rows, {0, 3, 4, 5, 6, 7, 8, 9, 10})
    out += table[:-1] + ["-" * len(table[0])] + table[-1:]
    out.append("")
    out.append(f"step time: between {seconds(t.t_lower.value)} (everything overlapped) and "
               f"{seconds(t.t_upper.value)} (nothing overlapped); {t.bound}-bound")
    for name, est in (("T_compute", t.t_compute), ("T_memory", t.t_memory),
                      ("T_comm", t.t_comm)):
        out.append(f"  {name} = {est.formula}")
    if verbose:
        out.append("")
        for ph in p.phases:
            out.append(f"phase {(ph.step or 0) + 1} ({ph.label}):")
            for name, est in (("T_compute", ph.t_compute), ("T_memory", ph.t_memory),
                              ("T_comm", ph.t_comm)):
                out.append(f"  {name} = {est.formula}")
    out.append("")
    out += memory_lines(p.memory)
    if p.memory_formula:
        out.append(f"  {'fits' if p.memory_fits else 'does NOT fit'}: {p.memory_formula}")
    out += [f"note: {n}" for n in p.notes]
    return "\n".join(out)
