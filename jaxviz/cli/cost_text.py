"""Text and JSON of a program's collectives and costs, for ``jaxviz collectives`` and ``cost``."""

from __future__ import annotations

from jaxviz.model.cost_model import Projection, seconds
from jaxviz.model.program import CollectiveUse, MemoryUse, ProgramCosts


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


def _table(rows: list[list[str]], right: set[int]) -> list[str]:
    widths = [max(len(r[k]) for r in rows) for k in range(len(rows[0]))]
    return ["  ".join(cell.rjust(widths[k]) if k in right else cell.ljust(widths[k])
                      for k, cell in enumerate(row)).rstrip() for row in rows]


def axes_text(use: CollectiveUse) -> str:
    if use.mesh_axes:
        return ",".join(use.mesh_axes)
    return "-"


def groups_text(use: CollectiveUse, limit: int = 3) -> str:
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
    lines = ",".join(str(n) for n in use.source_lines[:3])
    return lines or "-"


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
        rows = [["#", "collective", "axes", "groups", "per device in -> out", "sends",
                 "receives", "count", "sent in all", "origin", "line", "serves"]]
        for k, c in enumerate(costs.collectives, 1):
            name = c.kind + (f" ({c.reduction})" if c.reduction else "")
            name += " async" if c.asynchronous else ""
            shapes = f"{shapes_text(c.operand_shapes)} -> {shapes_text(c.result_shapes)}"
            count = f"{c.count}" + (" (loop)" if c.in_loop else "")
            rows.append([str(k), name, axes_text(c), groups_text(c), shapes,
                         human_bytes(c.sent_bytes), human_bytes(c.received_bytes), count,
                         human_bytes(c.sent_bytes * c.count),
                         "you" if c.origin == "jaxpr" else "XLA", line_text(c),
                         ",".join(c.primitives[:3]) or "-"])
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


def memory_lines(mem: MemoryUse | None) -> list[str]:
    if mem is None:
        return ["memory per device: XLA gives no memory analysis for this program"]
    return [f"memory per device (XLA's memory analysis): arguments "
            f"{human_bytes(mem.argument_bytes)}, outputs {human_bytes(mem.output_bytes)}"
            + (f" ({human_bytes(mem.alias_bytes)} aliased to arguments)"
               if mem.alias_bytes else "")
            + f", temporaries {human_bytes(mem.temp_bytes)}"]


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
