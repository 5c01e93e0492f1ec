"""A compiled variant's costs per device: collectives, FLOPs and HBM bytes per storyboard step.

Reads the storyboard's steps (:mod:`jaxviz.core.storyboard`: compute runs and
collectives in program order, with their jaxpr origins and source lines), the
parsed HLO module (:mod:`jaxviz.core.hlo_program`) for what each instruction
costs (:mod:`jaxviz.core.hlo_cost`, loops times their trip counts), and XLA's
``memory_analysis()`` and ``cost_analysis()`` of the compiled program. The
result is a :class:`jaxviz.model.program.ProgramCosts` record.
"""

from __future__ import annotations

import math
from typing import Any

from jaxviz.core import hlo_program, jax_internals
from jaxviz.core.hlo_cost import Cost, CostModel, types_bytes
from jaxviz.core.hlo_program import Computation, Instruction, Module
from jaxviz.model.devices import MeshInfo
from jaxviz.model.program import CollectiveUse, MemoryUse, ProgramCosts, StepCost
from jaxviz.model.storyboard import Step, Storyboard


def analyze(storyboard: Storyboard, compiled: Any, hlo_text: str | None = None) -> ProgramCosts:
    """The costs of a compiled variant whose storyboard is built.

    Args:
        storyboard: the variant's storyboard (from the same compiled program).
        compiled: ``jax.jit(...).lower(...).compile()``.
        hlo_text: ``compiled.as_text()``, if already at hand.
    """
    module = hlo_program.read_module(hlo_text or compiled.as_text() or "",
                                     jax_internals.hlo_schedule(compiled))
    out = costs_of(storyboard, module)
    out.memory = memory_of(compiled)
    xla = xla_cost(compiled)
    out.xla_flops, out.xla_bytes = xla.get("flops"), xla.get("bytes accessed")
    return out


def costs_of(storyboard: Storyboard, module: Module) -> ProgramCosts:
    """Per-step and whole-program costs of a storyboard read from ``module``."""
    model = CostModel(module, loops="trip")
    total = model.program()
    where = _locate(module)
    result = ProgramCosts(variant=storyboard.variant, devices=list(storyboard.devices),
                          mesh=storyboard.mesh, flops=total.flops,
                          transcendentals=total.transcendentals, hbm_bytes=total.bytes,
                          flops_by_dtype=dict(total.flops_by_dtype))
    groups: dict[tuple[Any, ...], int] = {}
    attributed = Cost()
    for index, step in enumerate(storyboard.steps):
        times = loop_times(step)
        cost = Cost()
        for name in step.hlo:
            if name in where:
                comp, ins = where[name]
                cost.add(model.instruction(comp, ins))
        attributed.add(cost, times)
        sc = StepCost(step=index, kind=step.kind, times=times, flops=cost.flops * times,
                      transcendentals=cost.transcendentals * times,
                      flops_by_dtype={k: v * times for k, v in cost.flops_by_dtype.items()},
                      hbm_bytes=cost.bytes * times, source_lines=list(step.source_lines),
                      primitives=list(step.primitives), where=where_text(step))
        if step.collective is not None:
            use = collective_use(step, index, times, storyboard.mesh, module, where)
            key = _identity(use, step)
            if key in groups:
                known = result.collectives[groups[key]]
                known.count += use.count
                known.instructions += use.instructions
                known.steps += use.steps
                known.trip_counts += use.trip_counts
                known.in_loop = known.in_loop or use.in_loop
                sc.collective = groups[key]
            else:
                groups[key] = len(result.collectives)
                sc.collective = groups[key]
                result.collectives.append(use)
            sc.comm_bytes = use.sent_bytes * times
        result.steps.append(sc)
    result.unattributed_flops = total.flops - attributed.flops
    result.unattributed_bytes = total.bytes - attributed.bytes
    result.unknown_trip_counts = sorted(set(model.unknown_trip_counts))
    if result.unknown_trip_counts:
        result.notes.append(f"XLA knows no trip count for {', '.join(result.unknown_trip_counts)}"
                            f": its body is counted once")
    if model.custom_calls:
        result.notes.append(f"{len(set(model.custom_calls))} custom call(s) are costed as no "
                            f"FLOPs (XLA does not know what they do either)")
    return result


def loop_times(step: Step) -> int:
    """How often a step runs: the product of the known trip counts of its loops."""
    return math.prod(e.trip_count or 1 for e in step.within if e.kind == "while")


def where_text(step: Step) -> str:
    return " > ".join(f"{e.hlo} {e.part}" + (f" x{e.trip_count}" if e.trip_count else "")
                      for e in step.within)


def collective_use(step: Step, index: int, times: int, mesh: MeshInfo | None, module: Module,
                   where: dict[str, tuple[Computation, Instruction]]) -> CollectiveUse:
    """The record of one collective step, its bytes per device computed from its shapes."""
    op = step.collective
    assert op is not None
    operand = sum(types_bytes([t]) for t in step.input_shapes)
    result = sum(types_bytes([t]) for t in step.output_shapes)
    n = len(op.groups[0]) if op.groups else (2 if op.pairs else 1)
    sent, received, formula = exchanged_bytes(op.kind, n, operand, result, op.pairs)
    axes = list(op.mesh_axes) or (permute_axes(op.pairs, mesh) if op.pairs else [])
    name = step.hlo[0] if step.hlo else ""
    asynchronous = name in where and where[name][1].opcode.endswith("-start")
    return CollectiveUse(
        kind=op.kind, reduction=op.reduction, mesh_axes=axes, groups=op.groups, pairs=op.pairs,
        group_size=n, operand_shapes=list(step.input_shapes),
        result_shapes=list(step.output_shapes), operand_bytes=operand, result_bytes=result,
        sent_bytes=sent, received_bytes=received, bytes_formula=formula, count=times,
        instructions=list(step.hlo), steps=[index], trip_counts=[times],
        in_loop=any(e.kind == "while" for e in step.within), asynchronous=asynchronous,
        origin=op.origin, primitives=list(step.primitives), equations=list(step.equations),
        source_lines=list(step.source_lines), why=op.why)


def exchanged_bytes(kind: str, n: int, operand: int, result: int,
                    pairs: list[list[int]]) -> tuple[float, float, str]:
    """Bytes one device sends and receives for one execution, and how that was counted.

    Ring algorithms (XLA's and NCCL's for large arrays): an all-gather passes each
    of the other ``n - 1`` shards on; a reduce-scatter sends ``(n - 1) / n`` of the
    array; an all-reduce is both. An all-to-all sends every other device its
    ``1/n`` piece directly; a permute sends its operand to its target.
    """
    if n <= 1:
        return 0.0, 0.0, "a group of one device: nothing moves"
    b: float
    if kind == "all-gather":
        b = float((n - 1) * operand)
        return b, b, f"(n-1) x shard = {n - 1} x {operand} B"
    if kind == "reduce-scatter":
        b = (n - 1) / n * operand
        return b, b, f"(n-1)/n x array = {n - 1}/{n} x {operand} B"
    if kind == "all-reduce":
        b = 2 * (n - 1) / n * operand
        return b, b, f"2 (n-1)/n x array = 2 x {n - 1}/{n} x {operand} B (reduce-scatter + " \
                     f"all-gather)"
    if kind in ("all-to-all", "ragged-all-to-all"):
        b = (n - 1) / n * operand
        return b, b, f"(n-1)/n x local array = {n - 1}/{n} x {operand} B"
    if kind == "collective-permute":
        return float(operand), float(result), f"its operand to its target: {operand} B"
    if kind == "collective-broadcast":
        return float(operand), float(result), f"the root's array: {operand} B"
    return float(operand), float(result), f"operand bytes: {operand} B"


def permute_axes(pairs: list[list[int]], mesh: MeshInfo | None) -> list[str]:
    """The mesh axes along which a permute's sources and targets differ."""
    if mesh is None or not pairs:
        return []
    coords = mesh_coordinates(mesh)
    axes: set[int] = set()
    for a, b in pairs:
        if a in coords and b in coords:
            axes |= {k for k, (x, y) in enumerate(zip(coords[a], coords[b])) if x != y}
    return [mesh.axis_names[k] for k in sorted(axes)]


def mesh_coordinates(mesh: MeshInfo) -> dict[int, tuple[int, ...]]:
    """Device id -> its coordinates in the mesh (row-major)."""
    out: dict[int, tuple[int, ...]] = {}
    for flat, device in enumerate(mesh.device_ids):
        coords, rest = [], flat
        for size in reversed(mesh.axis_sizes):
            coords.append(rest % size)
            rest //= size
        out[device] = tuple(reversed(coords))
    return out


def memory_of(compiled: Any) -> MemoryUse | None:
    """XLA's memory analysis of the compiled program, per device (None if unavailable)."""
    try:
        stats = compiled.memory_analysis()
    except Exception:  # noqa: BLE001 - not every backend provides it
        return None
    if stats is None:
        return None
    if isinstance(stats, list):
        stats = stats[0] if stats else None
    if stats is None:
        return None
    return MemoryUse(
        argument_bytes=int(getattr(stats, "argument_size_in_bytes", 0)),
        output_bytes=int(getattr(stats, "output_size_in_bytes", 0)),
        temp_bytes=int(getattr(stats, "temp_size_in_bytes", 0)),
        alias_bytes=int(getattr(stats, "alias_size_in_bytes", 0)),
        generated_code_bytes=int(getattr(stats, "generated_code_size_in_bytes", 0)))


def xla_cost(compiled: Any) -> dict[str, float]:
    """``compiled.cost_analysis()`` as a dict of floats ({} if unavailable)."""
    try:
        cost = compiled.cost_analysis()
    except Exception:  # noqa: BLE001 - not every backend provides it
        return {}
    if isinstance(cost, list):
        cost = cost[0] if cost else {}
    return {k: float(v) for k, v in (cost or {}).items() if isinstance(v, (int, float))}


def _locate(module: Module) -> dict[str, tuple[Computation, Instruction]]:
    """Instruction name -> its computation and itself (names are unique in a module)."""
    return {ins.name: (comp, ins) for comp in module.computations.values()
            for ins in comp.instructions}


def _identity(use: CollectiveUse, step: Step) -> tuple[Any, ...]:
    return (use.kind, use.reduction, tuple(map(tuple, use.groups)), tuple(map(tuple, use.pairs)),
            tuple(use.operand_shapes), tuple(use.result_shapes), use.origin,
            tuple(use.source_lines), tuple(use.primitives), use.why)
