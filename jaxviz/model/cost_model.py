"""Project a compiled program's per-device costs onto a real chip: a roofline per phase.

The scaling book's rooflines ("How to Scale Your Model", jax-ml/scaling-book:
roofline.md, sharding.md, tpus.md, gpus.md), applied to the costs the core read
from the compiled program (:class:`jaxviz.model.program.ProgramCosts`) and a
chip's numbers (:class:`jaxviz.model.chips.Chip`):

* ``T_compute = FLOPs / peak FLOP/s`` (the peak of the dtype the FLOPs run in);
* ``T_memory = HBM bytes / HBM bandwidth``;
* ``T_comm`` of each collective from its bytes, group and the chip's links
  (:func:`collective_time`);
* a phase takes at least ``max`` of the three (all overlapped) and at most
  their ``sum`` (none overlapped).

Every number carries the formula that made it (:class:`Estimate`). This is a
projection, never a measurement: it assumes each mesh axis lies along one axis
of the chips' torus (TPU) and devices fill NVLink domains in id order (GPU).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from jaxviz.model.chips import Chip, passes
from jaxviz.model.codec import check_annotations, register
from jaxviz.model.program import CollectiveUse, MemoryUse, ProgramCosts


@register
@dataclass
class Estimate:
    """A projected number and the formula, with its numbers, that made it."""

    value: float
    formula: str


@register
@dataclass
class PhaseProjection:
    """One phase (storyboard step) projected onto a chip, or the whole program.

    Attributes:
        step: the storyboard step (``None`` for the whole program).
        kind: ``compute``, ``collective`` or ``program``.
        label: what it is, in a few words (``all-gather over data x12``).
        source_line: the first user source line it implements, if any.
        times: how often it runs (loop trip counts).
        flops, hbm_bytes, comm_bytes: per device, all executions.
        t_compute, t_memory, t_comm: seconds, each with its formula.
        t_lower, t_upper: max and sum of the three.
        bound: which of the three is largest: ``compute``, ``memory`` or ``communication``.
    """

    step: int | None
    kind: str
    label: str
    source_line: int | None
    times: int
    flops: float
    hbm_bytes: float
    comm_bytes: float
    t_compute: Estimate
    t_memory: Estimate
    t_comm: Estimate
    t_lower: Estimate
    t_upper: Estimate
    bound: str


@register
@dataclass
class Projection:
    """A program projected onto ``devices`` chips of one kind.

    Attributes:
        chip: the chip's key (``tpu-v5e``); chip_name: what it is called.
        devices: the number of devices the program runs on.
        mesh: the mesh as text (``data=4,model=2``), or ``""``.
        total: the whole program.
        phases: per storyboard step, in program order.
        memory: XLA's memory analysis per device, if known.
        memory_fits: whether arguments, outputs and temporaries fit the chip's HBM.
        memory_formula: how that was decided.
        notes: assumptions and what is left out.
    """

    chip: str
    chip_name: str
    devices: int
    mesh: str
    total: PhaseProjection
    phases: list[PhaseProjection] = field(default_factory=list)
    memory: MemoryUse | None = None
    memory_fits: bool | None = None
    memory_formula: str = ""
    notes: list[str] = field(default_factory=list)


# --------------------------------------------------------------------------- #
# Formatting
# --------------------------------------------------------------------------- #


def seconds(value: float) -> str:
    """``3.77e-4`` -> ``377 us``."""
    if value == 0:
        return "0 s"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9)):
        if abs(value) >= scale:
            return f"{value / scale:.3g} {unit}"
    return f"{value / 1e-12:.3g} ps"


def byte_size(value: float) -> str:
    """``8e10`` -> ``80 GB``, ``2.6e5`` -> ``260 kB``: decimal units (as chips' HBM is
    quoted), three digits."""
    for unit, scale in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if abs(value) >= scale:
            return f"{value / scale:.3g} {unit}"
    return f"{value:.3g} B"


def quantity(value: float) -> str:
    """``34e6`` -> ``3.4e+07``: short, exact to three digits."""
    return f"{value:.3g}"


# --------------------------------------------------------------------------- #
# Rooflines
# --------------------------------------------------------------------------- #


def compute_time(chip: Chip, flops_by_dtype: dict[str, float]) -> Estimate:
    """``sum over dtypes of FLOPs / peak FLOP/s of that dtype``."""
    if not flops_by_dtype or not any(flops_by_dtype.values()):
        return Estimate(0.0, "no FLOPs")
    parts, total = [], 0.0
    for dtype, flops in sorted(flops_by_dtype.items()):
        if not flops:
            continue
        peak, used = chip.peak(dtype)
        total += flops / peak
        shown = _dtype_words(dtype) if used == dtype else \
            f"{_dtype_words(dtype)} at the {_dtype_words(used)} peak"
        parts.append(f"{quantity(flops)} FLOP ({shown}) / {quantity(peak)} FLOP/s")
    return Estimate(total, " + ".join(parts) + f" = {seconds(total)}")


def _dtype_words(dtype: str) -> str:
    """``bf16_x6`` (a dot algorithm: six bf16 dots make one) -> ``bf16, 6 passes``."""
    repeated = passes(dtype)
    return f"{repeated[0]}, {repeated[1]} passes" if repeated is not None else dtype


def memory_time(chip: Chip, hbm_bytes: float) -> Estimate:
    """``HBM bytes / HBM bandwidth``."""
    t = hbm_bytes / chip.hbm_bandwidth
    return Estimate(t, f"{quantity(hbm_bytes)} B / {quantity(chip.hbm_bandwidth)} B/s HBM = "
                       f"{seconds(t)}")


#: How many times an all-gather's time each collective takes on a ring, and the
#: array ``V`` its formula uses (scaling book, sharding.md).
_RING = {"all-gather": (1.0, "V = the gathered array"),
         "reduce-scatter": (1.0, "V = the array before scattering"),
         "all-reduce": (2.0, "V = the array (a reduce-scatter and an all-gather)"),
         "all-to-all": (0.25, "V = the whole array, n x the local one (a quarter of an "
                              "all-gather)"),
         "ragged-all-to-all": (0.25, "V = the whole array, n x the local one")}


def collective_time(chip: Chip, kind: str, operand_bytes: float, result_bytes: float,
                    axis_sizes: list[int], groups: list[list[int]] | None = None) -> Estimate:
    """Seconds one collective takes on ``chip``, with its formula.

    Args:
        chip: the chip.
        kind: the HLO collective.
        operand_bytes, result_bytes: per device, one execution.
        axis_sizes: the sizes of the mesh axes the group runs along (one entry
            per axis; a group of ``n`` devices with no known axes: ``[n]``).
        groups: the device ids of each group (GPUs: whether a group leaves its node).

    TPU (ICI torus, sharding.md): on an axis with a wraparound link an all-gather
    of ``V`` bytes takes ``max(T_hop * |X| / 2, V / W_bidi)``; over ``k`` axes
    ``max(T_hop * sum|X| / 2, V / (k W_bidi))``; without wraparound data crosses
    ``|X| - 1`` links one way: ``max(T_hop (|X| - 1), (|X| - 1) V / (|X| W_uni))``.
    An all-reduce is twice, an all-to-all a quarter; a permute ``V / W_uni`` over
    one link. GPU (gpus.md): inside an NVLink domain ``V (n - 1) / (n W_egress)``
    (all-reduce twice, all-to-all ``(n - 1) / n`` of the local array, a permute its
    bytes over the sender's egress); across nodes ``V / W_network``.
    """
    n = math.prod(axis_sizes) if axis_sizes else 1
    if n <= 1:
        return Estimate(0.0, "a group of one device: nothing moves")
    if kind == "collective-permute" or kind == "collective-broadcast":
        return _permute_time(chip, operand_bytes, groups)
    factor, meaning = _RING.get(kind, (1.0, "V = the operand"))
    array = {"all-gather": result_bytes, "all-to-all": n * operand_bytes,
             "ragged-all-to-all": n * operand_bytes}.get(kind, operand_bytes)
    if chip.family == "gpu":
        return _gpu_time(chip, kind, factor, array, operand_bytes, n, groups)
    k = len(axis_sizes)
    name = kind
    lat = chip.hop_latency
    if all(chip.wraps(s) for s in axis_sizes):
        bandwidth = factor * array / (k * chip.link_bidirectional)
        latency = factor_latency(factor) * lat * sum(axis_sizes) / 2
        how = (f"{name} on a ring with wraparound ({' x '.join(map(str, axis_sizes))}): "
               f"max({_f(factor)}T_hop x sum|X|/2, {_f(factor)}V / ({k} x W_bidi)) with "
               f"{meaning}: max({seconds(latency)}, {_f(factor)}{quantity(array)} B / "
               f"({k} x {quantity(chip.link_bidirectional)} B/s))")
    else:
        bandwidth = factor * (n - 1) / n * array / (k * chip.link_bandwidth)
        latency = factor_latency(factor) * lat * sum(s - 1 for s in axis_sizes)
        how = (f"{name} without wraparound ({' x '.join(map(str, axis_sizes))}: "
               f"{chip.name} wraps only {_wrap_rule(chip)}): max({_f(factor)}T_hop x "
               f"sum(|X|-1), {_f(factor)}(n-1)/n x V / ({k} x W_one_way)) with {meaning}: "
               f"max({seconds(latency)}, {_f(factor)}{n - 1}/{n} x {quantity(array)} B / "
               f"({k} x {quantity(chip.link_bandwidth)} B/s))")
    t = max(latency, bandwidth)
    bound = "latency-bound" if latency > bandwidth else "link-bound"
    return Estimate(t, f"{how} = {seconds(t)}, {bound}")


def factor_latency(factor: float) -> float:
    """Latency hops scale with the passes over the ring (2 for an all-reduce), never below 1."""
    return max(1.0, factor)


def _f(factor: float) -> str:
    return "" if factor == 1.0 else f"{factor:g} x "


def _wrap_rule(chip: Chip) -> str:
    if chip.wraparound == "full":
        return f"axes of its full torus size ({' or '.join(map(str, sorted(set(chip.torus))))})"
    return {"multiple-of-4": "axes whose size is a multiple of 4", "never": "never",
            "always": "always"}[chip.wraparound]


def _nodes(chip: Chip, groups: list[list[int]] | None) -> int:
    """How many NVLink domains the largest group spans (device ids fill nodes in order)."""
    if not groups or chip.nvlink_domain <= 0:
        return 1
    return max(len({d // chip.nvlink_domain for d in g}) for g in groups)


def _gpu_time(chip: Chip, kind: str, factor: float, array: float, operand: float, n: int,
              groups: list[list[int]] | None) -> Estimate:
    nodes = _nodes(chip, groups)
    lat = chip.hop_latency * (n - 1)
    if nodes > 1:
        # the same latency floor as inside a node: a ring still takes n - 1 hops
        f = 2.0 if kind == "all-reduce" else 1.0
        bw = f * array / chip.network_bandwidth
        t = max(lat, bw)
        bound = "latency-bound" if lat > bw else "link-bound"
        return Estimate(t, f"{kind} across {nodes} nodes: max(T_hop x (n-1) = {seconds(lat)}, "
                           f"{_f(f)}V / W_network = {_f(f)}{quantity(array)} B / "
                           f"{quantity(chip.network_bandwidth)} B/s) = {seconds(t)}, {bound}")
    if kind in ("all-to-all", "ragged-all-to-all"):
        bw = (n - 1) / n * operand / chip.link_bandwidth
        what = (f"(n-1)/n x local array / W_egress = {n - 1}/{n} x {quantity(operand)} B / "
                f"{quantity(chip.link_bandwidth)} B/s")
    else:
        f = 2.0 if kind == "all-reduce" else 1.0
        bw = f * array * (n - 1) / (n * chip.link_bandwidth)
        what = (f"{_f(f)}V (n-1) / (n W_egress) = {_f(f)}{quantity(array)} B x {n - 1}/{n} / "
                f"{quantity(chip.link_bandwidth)} B/s")
    t = max(lat, bw)
    bound = "latency-bound" if lat > bw else "link-bound"
    return Estimate(t, f"{kind} inside one NVLink domain of {n}: max(T_hop x (n-1) = "
                       f"{seconds(lat)}, {what}) = {seconds(t)}, {bound}")


def _permute_time(chip: Chip, operand: float, groups: list[list[int]] | None) -> Estimate:
    if chip.family == "gpu":
        link, name = chip.link_bandwidth, "NVLink egress"
        if _nodes(chip, groups) > 1:
            link, name = chip.network_bandwidth, "the network"
    else:
        link, name = chip.link_bandwidth, "one ICI link, one way"
    bw = operand / link
    t = max(chip.hop_latency, bw)
    return Estimate(t, f"permute over {name}: max(T_hop, V / W) = max({seconds(chip.hop_latency)}"
                       f", {quantity(operand)} B / {quantity(link)} B/s) = {seconds(t)}")


# --------------------------------------------------------------------------- #
# A whole program
# --------------------------------------------------------------------------- #


def axis_sizes_of(use: CollectiveUse, costs: ProgramCosts) -> list[int]:
    """The sizes of the mesh axes a collective runs along (``[group size]`` if unknown)."""
    mesh = costs.mesh
    if mesh is not None and use.mesh_axes and all(a in mesh.axis_names for a in use.mesh_axes):
        sizes = [mesh.axis_sizes[mesh.axis_names.index(a)] for a in use.mesh_axes]
        if use.kind == "collective-permute" or math.prod(sizes) == use.group_size:
            return sizes
    return [use.group_size]


def project(costs: ProgramCosts, chip: Chip) -> Projection:
    """Project every step of a program, and the whole program, onto ``chip``."""
    phases = []
    comm_total = 0.0
    comm_formulas = []
    for sc in costs.steps:
        comm = Estimate(0.0, "no communication")
        label = "compute"
        if sc.collective is not None:
            use = costs.collectives[sc.collective]
            one = collective_time(chip, use.kind, use.operand_bytes, use.result_bytes,
                                  axis_sizes_of(use, costs), use.groups or use.pairs)
            comm = Estimate(one.value * sc.times, one.formula if sc.times == 1 else
                            f"{sc.times} x ({one.formula})")
            axes = ",".join(use.mesh_axes) or f"{use.group_size} devices"
            label = f"{use.kind} over {axes}"
            comm_total += comm.value
        if sc.times > 1:
            label += f" ×{sc.times}"
        phases.append(_phase(chip, sc.step, sc.kind, label,
                             sc.source_lines[0] if sc.source_lines else None, sc.times,
                             sc.flops, sc.flops_by_dtype, sc.hbm_bytes, sc.comm_bytes, comm))
        if comm.value:
            comm_formulas.append(f"{seconds(comm.value)} (phase {sc.step + 1})")
    if len(comm_formulas) == 1:  # the one phase's own formula says how it was made
        total_comm = Estimate(comm_total, next(p.t_comm.formula for p in phases if p.t_comm.value))
    else:
        total_comm = Estimate(comm_total, (" + ".join(comm_formulas) if len(comm_formulas) < 12
                                           else f"the sum over {len(comm_formulas)} "
                                                f"collective phases")
                              + f" = {seconds(comm_total)}" if comm_formulas
                              else "no communication")
    total = _phase(chip, None, "program", "the whole program", None, 1, costs.flops,
                   costs.flops_by_dtype, costs.hbm_bytes, costs.comm_bytes, total_comm)
    mesh = costs.mesh
    mesh_text = ",".join(f"{n}={s}" for n, s in zip(mesh.axis_names, mesh.axis_sizes)) \
        if mesh is not None else ""
    out = Projection(chip=chip.key, chip_name=chip.name, devices=len(costs.devices),
                     mesh=mesh_text, total=total, phases=phases, memory=costs.memory)
    if costs.memory is not None:
        need = costs.memory.peak_bytes
        out.memory_fits = need <= chip.hbm_bytes
        out.memory_formula = (f"arguments + outputs - aliased + temporaries = "
                              f"{quantity(need)} B {'<=' if out.memory_fits else '>'} "
                              f"{quantity(chip.hbm_bytes)} B HBM")
    out.notes = [f"projected for {len(costs.devices)}x {chip.name}"
                 + (f", mesh {mesh_text}" if mesh_text else "")
                 + ": a roofline from the compiled program, not a measurement",
                 "the whole program's lower bound overlaps everything; its upper bound "
                 "overlaps nothing",
                 "transcendentals (exp, log, tanh ...) are not in T_compute"]
    if chip.family == "tpu":
        out.notes.append("each mesh axis is assumed to lie along one torus axis of its size")
    else:
        out.notes.append(f"devices are assumed to fill NVLink domains of "
                         f"{chip.nvlink_domain} in id order")
    if costs.unattributed_bytes or costs.unattributed_flops:
        out.notes.append(f"{quantity(costs.unattributed_bytes)} B and "
                         f"{quantity(costs.unattributed_flops)} FLOP belong to no phase "
                         f"(copies, loop conditions): counted in the total only")
    out.notes += costs.notes
    return out


def _phase(chip: Chip, step: int | None, kind: str, label: str, line: int | None, times: int,
           flops: float, flops_by_dtype: dict[str, float], hbm: float, comm_bytes: float,
           comm: Estimate) -> PhaseProjection:
    tc = compute_time(chip, flops_by_dtype)
    tm = memory_time(chip, hbm)
    parts = {"compute": tc.value, "memory": tm.value, "communication": comm.value}
    bound = max(parts, key=lambda k: parts[k])
    lower = max(parts.values())
    upper = sum(parts.values())
    lo = Estimate(lower, f"max(T_compute, T_memory, T_comm) = max({seconds(tc.value)}, "
                         f"{seconds(tm.value)}, {seconds(comm.value)}) = {seconds(lower)}")
    hi = Estimate(upper, f"T_compute + T_memory + T_comm = {seconds(tc.value)} + "
                         f"{seconds(tm.value)} + {seconds(comm.value)} = {seconds(upper)}")
    return PhaseProjection(step=step, kind=kind, label=label, source_line=line, times=times,
                           flops=flops, hbm_bytes=hbm, comm_bytes=comm_bytes, t_compute=tc,
                           t_memory=tm, t_comm=comm, t_lower=lo, t_upper=hi, bound=bound)


def projection_json(p: Projection) -> dict[str, object]:
    """The ``jaxviz cost --json`` object: chip, devices, total, phases, memory."""

    def phase(ph: PhaseProjection) -> dict[str, object]:
        return {"kind": ph.kind, "label": ph.label, "step": ph.step,
                "source_line": ph.source_line, "times": ph.times, "flops": ph.flops,
                "hbm_bytes": ph.hbm_bytes, "comm_bytes": ph.comm_bytes,
                "t_compute_s": ph.t_compute.value, "t_memory_s": ph.t_memory.value,
                "t_comm_s": ph.t_comm.value, "t_lower_s": ph.t_lower.value,
                "t_upper_s": ph.t_upper.value, "bound": ph.bound,
                "formulas": {"t_compute_s": ph.t_compute.formula,
                             "t_memory_s": ph.t_memory.formula,
                             "t_comm_s": ph.t_comm.formula, "t_lower_s": ph.t_lower.formula,
                             "t_upper_s": ph.t_upper.formula}}

    total = phase(p.total)
    for key in ("kind", "label", "step", "source_line", "times"):
        total.pop(key)
    mem = p.memory
    return {"chip": p.chip, "chip_name": p.chip_name, "devices": p.devices, "mesh": p.mesh,
            "per": "device", "total": total, "phases": [phase(ph) for ph in p.phases],
            "memory": {"argument_bytes": mem.argument_bytes if mem else None,
                       "output_bytes": mem.output_bytes if mem else None,
                       "temp_bytes": mem.temp_bytes if mem else None,
                       "alias_bytes": mem.alias_bytes if mem else None,
                       "fits": p.memory_fits, "formula": p.memory_formula},
            "notes": list(p.notes)}


check_annotations(Estimate, PhaseProjection, Projection)
