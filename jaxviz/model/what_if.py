"""What if the program ran on N devices: its per-device costs compiled at every N, projected.

The engine compiles the target's variants once per device count ``N`` (a
process with ``max(N)`` simulated CPU devices; each compile uses the first
``N``; compile only, nothing runs) and reads each compiled program's costs
(:class:`~jaxviz.model.program.ProgramCosts`: FLOPs, HBM bytes, collectives,
XLA's memory analysis, per device). Nothing is extrapolated from another N:
every point is its own compiled program. :func:`what_if_rows` projects them
onto a chip (:func:`jaxviz.model.cost_model.project`), and
:func:`comm_bound_at` / :func:`hbm_exceeded_at` find where a variant turns
communication-bound and where it stops fitting in HBM, from those rows alone.

The global batch stays fixed across N (strong scaling): the request's batch, or
the largest N, so every N splits the same problem.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from jaxviz.model.chips import Chip
from jaxviz.model.codec import check_annotations, register
from jaxviz.model.cost_model import project
from jaxviz.model.program import ProgramCosts
from jaxviz.model.records import TraceRequest

#: The device counts of ``--what-if`` when none are given.
DEFAULT_COUNTS = [1, 2, 4, 8, 16, 32, 64, 128, 256]

#: The most devices a what-if compiles for (simulated CPU devices in one process).
MAX_COUNT = 512

#: How the numbers were made, said on the plot and in the table.
METHOD = ("each point compiled with N simulated CPU devices (compile only, nothing ran) "
          "and read from its own HLO; global batch fixed")

#: The variants that run on several devices, in the order a what-if shows them.
MULTI_DEVICE = ("pmap", "sharded", "shard_map")


@register
@dataclass
class WhatIfRequest:
    """Compile ``trace``'s variants at every device count in ``counts``.

    Attributes:
        trace: the target and its settings (its ``variants`` are the ones compiled;
            its ``mesh``, if given, has its first axis scaled to each N).
        counts: the device counts, ascending.
    """

    trace: TraceRequest
    counts: list[int] = field(default_factory=lambda: list(DEFAULT_COUNTS))


@register
@dataclass
class WhatIfPoint:
    """One variant compiled at one device count.

    Attributes:
        devices: N.
        variant: the variant's name.
        mesh: the mesh it was compiled for (``data=8``), or ``""``.
        batch: the global batch.
        program: its costs per device, or None when it did not compile.
        xla_flops: XLA's own ``cost_analysis()`` FLOPs of that compiled program.
        error: why it did not compile (``""`` when it did).
    """

    devices: int
    variant: str
    mesh: str = ""
    batch: int | None = None
    program: ProgramCosts | None = None
    xla_flops: float | None = None
    error: str = ""


@register
@dataclass
class WhatIfResult:
    """Every point of a what-if, and how they were made."""

    function: str
    counts: list[int] = field(default_factory=list)
    points: list[WhatIfPoint] = field(default_factory=list)
    method: str = METHOD
    error: str = ""


@dataclass
class WhatIfRow:
    """One point projected onto a chip (per device)."""

    devices: int
    variant: str
    mesh: str
    flops: float
    comm_bytes: float
    t_compute: float
    t_memory: float
    t_comm: float
    t_lower: float
    t_upper: float
    bound: str
    memory_bytes: int | None
    fits: bool | None
    error: str = ""


def parse_counts(text: str) -> list[int]:
    """``"1,2,4"`` -> ``[1, 2, 4]``; raises ValueError with a clear message."""
    counts: list[int] = []
    for item in text.split(","):
        item = item.strip()
        if not item:
            raise ValueError(f"an empty item in {text!r}: give device counts like 1,2,4,8")
        try:
            n = int(item)
        except ValueError:
            raise ValueError(f"{item!r} is not a device count (a whole number, e.g. "
                             f"1,2,4,8)") from None
        if not 1 <= n <= MAX_COUNT:
            raise ValueError(f"{n} devices: a what-if compiles for 1 to {MAX_COUNT} devices")
        counts.append(n)
    return sorted(set(counts))


def scaled_mesh(mesh: str | None, n: int) -> tuple[str | None, str]:
    """The mesh for ``n`` devices: the first axis scaled, the others kept.

    Returns:
        ``(mesh text or None for the default one-axis mesh, problem)``; ``problem``
        says why ``n`` does not fit (the other axes do not divide it).
    """
    if not mesh:
        return None, ""
    axes = []
    for item in mesh.replace(" ", ",").split(","):
        if item.strip():
            name, _, size = item.replace(":", "=").partition("=")
            axes.append((name.strip(), int(size)))
    rest = 1
    for _, s in axes[1:]:
        rest *= s
    if n % rest:
        kept = ",".join(f"{a}={s}" for a, s in axes[1:])
        return None, f"{n} devices do not fill a mesh with {kept} kept"
    axes[0] = (axes[0][0], n // rest)
    return ",".join(f"{a}={s}" for a, s in axes), ""


def what_if_rows(result: WhatIfResult, chip: Chip) -> list[WhatIfRow]:
    """Every point projected onto ``chip`` (the whole program, per device)."""
    rows = []
    for p in result.points:
        if p.program is None:
            rows.append(WhatIfRow(p.devices, p.variant, p.mesh, 0, 0, 0, 0, 0, 0, 0, "", None,
                                  None, p.error or "did not compile"))
            continue
        pr = project(p.program, chip)
        t = pr.total
        mem = p.program.memory.peak_bytes if p.program.memory is not None else None
        rows.append(WhatIfRow(p.devices, p.variant, p.mesh, t.flops, t.comm_bytes,
                              t.t_compute.value, t.t_memory.value, t.t_comm.value,
                              t.t_lower.value, t.t_upper.value, t.bound, mem,
                              pr.memory_fits))
    return rows


def variants_of(rows: list[WhatIfRow]) -> list[str]:
    """The variants in the rows, in order of first appearance."""
    return list(dict.fromkeys(r.variant for r in rows))


def comm_bound_at(rows: list[WhatIfRow], variant: str) -> int | None:
    """The first N (ascending) where the variant's T_comm exceeds its T_compute."""
    for r in sorted((r for r in rows if r.variant == variant and not r.error),
                    key=lambda r: r.devices):
        if r.t_comm > r.t_compute:
            return r.devices
    return None


def hbm_exceeded_at(rows: list[WhatIfRow], variant: str) -> int | None:
    """The first N (ascending) where the variant no longer fits the chip's HBM."""
    for r in sorted((r for r in rows if r.variant == variant and not r.error),
                    key=lambda r: r.devices):
        if r.fits is False:
            return r.devices
    return None


def rows_json(rows: list[WhatIfRow]) -> list[dict[str, object]]:
    """The rows as plain data (``--json``, the raw-data export)."""
    return [{"devices": r.devices, "variant": r.variant, "mesh": r.mesh, "flops": r.flops,
             "comm_bytes": r.comm_bytes, "t_compute_s": r.t_compute,
             "t_memory_s": r.t_memory, "t_comm_s": r.t_comm, "t_lower_s": r.t_lower,
             "t_upper_s": r.t_upper, "bound": r.bound, "memory_bytes": r.memory_bytes,
             "fits": r.fits, "error": r.error or None} for r in rows]


check_annotations(WhatIfRequest, WhatIfPoint, WhatIfResult)
