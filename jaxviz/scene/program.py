"""What each device runs: compute segments and the collectives between them (no Qt).

The steps come from the variant's jaxpr (the body of its ``shard_map`` for
``pmap``/``shard_map``, the top-level program otherwise) and, where the XLA
SPMD partitioner inserted communication that the jaxpr does not show (a
``sharded`` variant whose matmul contracts a split axis), from the compiled
HLO: its ``replica_groups`` say which devices talk, its ``op_name`` metadata
which jaxpr primitive the collective belongs to.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from jaxviz.model import Equation, MeshInfo, VariantResult

#: jaxpr primitive -> the movement it makes (named like the HLO op).
COLLECTIVE_KINDS = {
    "psum": "all-reduce", "pmean": "all-reduce", "pmax": "all-reduce", "pmin": "all-reduce",
    "psum_invariant": "all-reduce",
    "all_gather": "all-gather", "all_gather_invariant": "all-gather",
    "ppermute": "collective-permute", "pshuffle": "collective-permute",
    "all_to_all": "all-to-all",
    "psum_scatter": "reduce-scatter", "reduce_scatter": "reduce-scatter",
}

#: Primitives that only retag values (no work, no movement): they do not split a
#: run of collectives into separate phases.
BOOKKEEPING = frozenset({"pvary", "pbroadcast", "convert_element_type", "squeeze",
                         "broadcast_in_dim", "reshape"})

_HLO_LINE = re.compile(
    r"=\s*(?P<type>.+?)\s+(?P<op>all-reduce|all-gather|collective-permute|all-to-all|"
    r"reduce-scatter)(?:-start)?\((?P<rest>.*)$")
_GROUPS = re.compile(r"replica_groups=\{((?:\{[\d,\s]*\},?\s*)*)\}")
_IOTA = re.compile(r"replica_groups=\[([\d,]+)\]<=\[([\d,]+)\](?:T\(([\d,]+)\))?")
_PAIRS = re.compile(r"source_target_pairs=\{((?:\{\d+,\d+\},?)*)\}")
_OP_NAME = re.compile(r'op_name="([^"]*)"')


@dataclass
class HloCollective:
    """One collective instruction of the compiled HLO."""

    kind: str
    type: str
    groups: list[list[int]]
    pairs: list[tuple[int, int]]
    primitive: str


@dataclass
class Segment:
    """Equations every device runs on its own data, with no communication."""

    equations: list[Equation]


@dataclass
class Collective:
    """One exchange between devices (consecutive same-kind collectives merged)."""

    kind: str
    primitives: list[str] = field(default_factory=list)
    axes: list[str] = field(default_factory=list)
    groups: list[list[int]] = field(default_factory=list)
    pairs: list[tuple[int, int]] = field(default_factory=list)
    equations: list[Equation] = field(default_factory=list)
    hlo: list[HloCollective] = field(default_factory=list)
    #: Inserted by the XLA partitioner: in the compiled HLO, not in the jaxpr.
    inserted: bool = False

    @property
    def name(self) -> str:
        """``psum`` (or ``psum x2``) for jaxpr collectives, the HLO op otherwise."""
        if not self.primitives:
            return self.kind
        first = self.primitives[0]
        n = len(self.primitives)
        return first if n == 1 else f"{first} x{n}"


@dataclass
class Program:
    """The per-device program of a variant, as steps."""

    #: True when the equations are what one device runs (a shard_map body).
    local: bool
    steps: list[Segment | Collective]
    container: Equation | None = None

    @property
    def collectives(self) -> list[Collective]:
        return [s for s in self.steps if isinstance(s, Collective)]


def build_program(vr: VariantResult) -> Program:
    """Split a variant's program into compute segments and collectives."""
    body, container = _body(vr.equations)
    leaves = list(_leaves(body))
    hlo = parse_hlo_collectives(vr.hlo, vr.mesh)
    steps: list[Segment | Collective] = []
    pending: list[Equation] = []  # bookkeeping equations right after a collective
    for eq in leaves:
        kind = COLLECTIVE_KINDS.get(eq.primitive)
        if kind is None and eq.primitive in BOOKKEEPING and steps and \
                isinstance(steps[-1], Collective):
            pending.append(eq)
            continue
        if kind is None:
            if pending:
                steps.append(Segment(pending))
                pending = []
            if steps and isinstance(steps[-1], Segment):
                steps[-1].equations.append(eq)
            else:
                steps.append(Segment([eq]))
            continue
        axes = _axis_names(eq)
        last = steps[-1] if steps else None
        if isinstance(last, Collective) and last.kind == kind and last.axes == axes:
            last.primitives.append(eq.primitive)
            last.equations.extend(pending + [eq])
            pending = []
            continue
        if pending:
            steps.append(Segment(pending))
            pending = []
        steps.append(Collective(kind=kind, primitives=[eq.primitive], axes=axes,
                                groups=mesh_groups(vr.mesh, axes), equations=[eq],
                                pairs=_perm_pairs(eq, vr.mesh, axes)))
    if pending:
        steps.append(Segment(pending))
    _attach_hlo(steps, hlo)
    return Program(local=container is not None, steps=steps, container=container)


def _body(equations: list[Equation]) -> tuple[list[Equation], Equation | None]:
    """The per-device body (inside shard_map), or the program unwrapped from jit."""
    for eq in _walk(equations):
        if eq.primitive == "shard_map" and eq.subjaxprs:
            return eq.subjaxprs[0].equations, eq
    body = equations
    while len(body) == 1 and body[0].primitive in ("jit", "pjit") and body[0].subjaxprs:
        body = body[0].subjaxprs[0].equations
    return body, None


def _walk(equations: list[Equation]) -> Iterator[Equation]:
    for eq in equations:
        yield eq
        for sub in eq.subjaxprs:
            yield from _walk(sub.equations)


def _leaves(equations: list[Equation]) -> Iterator[Equation]:
    for eq in equations:
        if eq.subjaxprs and eq.primitive not in COLLECTIVE_KINDS:
            for sub in eq.subjaxprs:
                yield from _leaves(sub.equations)
        else:
            yield eq


def _axis_names(eq: Equation) -> list[str]:
    text = eq.params.get("axes") or eq.params.get("axis_name") or ""
    names = re.findall(r"'([^']*)'", text)
    if not names and text.isidentifier():
        names = [text]
    return names


def mesh_groups(mesh: MeshInfo | None, axes: list[str]) -> list[list[int]]:
    """Devices that communicate over ``axes``: those sharing every other coordinate."""
    if mesh is None or not axes or not set(axes) <= set(mesh.axis_names):
        return []
    sizes = mesh.axis_sizes
    inside = [mesh.axis_names.index(a) for a in axes]
    groups: dict[tuple[int, ...], list[tuple[tuple[int, ...], int]]] = {}
    for flat, device in enumerate(mesh.device_ids):
        coords = unravel(flat, sizes)
        outer = tuple(c for k, c in enumerate(coords) if k not in inside)
        inner = tuple(coords[k] for k in inside)
        groups.setdefault(outer, []).append((inner, device))
    return [[d for _, d in sorted(members)] for _, members in sorted(groups.items())]


def _perm_pairs(eq: Equation, mesh: MeshInfo | None, axes: list[str]) -> list[tuple[int, int]]:
    perm = eq.params.get("perm")
    if not perm:
        return []
    index_pairs = [(int(a), int(b)) for a, b in re.findall(r"\((\d+),\s*(\d+)\)", perm)]
    out = []
    for group in mesh_groups(mesh, axes):
        for a, b in index_pairs:
            if a < len(group) and b < len(group):
                out.append((group[a], group[b]))
    return out


def unravel(flat: int, sizes: list[int]) -> list[int]:
    """Row-major coordinates of flat index ``flat`` in a grid of ``sizes``."""
    coords = []
    for size in reversed(sizes):
        flat, c = divmod(flat, size)
        coords.append(c)
    return coords[::-1]


def parse_hlo_collectives(hlo: str, mesh: MeshInfo | None = None) -> list[HloCollective]:
    """The collective instructions of compiled HLO text, with their device groups.

    Replica-group numbers are positions in the program's device assignment;
    with a mesh they are mapped to device ids through its mesh order.
    """
    ids = mesh.device_ids if mesh is not None else []

    def dev(k: int) -> int:
        return ids[k] if k < len(ids) else k

    out = []
    for line in hlo.splitlines():
        m = _HLO_LINE.search(line)
        if m is None or "-done(" in line:
            continue
        rest = m.group("rest")
        groups = [[dev(k) for k in g] for g in _replica_groups(rest)]
        pairs = []
        pm = _PAIRS.search(rest)
        if pm:
            pairs = [(dev(int(a)), dev(int(b)))
                     for a, b in re.findall(r"\{(\d+),(\d+)\}", pm.group(1))]
        name = _OP_NAME.search(rest)
        primitive = name.group(1).rsplit("/", 1)[-1] if name else ""
        out.append(HloCollective(kind=m.group("op"), type=re.sub(r"\{[^}]*\}", "", m.group("type")),
                                 groups=groups, pairs=pairs, primitive=primitive))
    return out


def _replica_groups(text: str) -> list[list[int]]:
    m = _GROUPS.search(text)
    if m:
        return [[int(x) for x in g.split(",") if x.strip()]
                for g in re.findall(r"\{([\d,\s]*)\}", m.group(1))]
    m = _IOTA.search(text)
    if not m:
        return []
    shape = [int(x) for x in m.group(1).split(",")]
    dims = [int(x) for x in m.group(2).split(",")]
    perm = [int(x) for x in m.group(3).split(",")] if m.group(3) else list(range(len(dims)))
    tshape = [dims[p] for p in perm]
    values = []
    total = 1
    for d in tshape:
        total *= d
    for flat in range(total):
        j = unravel(flat, tshape)
        i = [0] * len(dims)
        for k, p in enumerate(perm):
            i[p] = j[k]
        v = 0
        for c, d in zip(i, dims):
            v = v * d + c
        values.append(v)
    size = shape[-1] if shape else total
    return [values[k:k + size] for k in range(0, len(values), size)]


def _attach_hlo(steps: list[Segment | Collective], hlo: list[HloCollective]) -> None:
    """Give jaxpr collectives their HLO groups; add the partitioner's own collectives."""
    for op in hlo:
        owner = next((s for s in steps if isinstance(s, Collective) and s.kind == op.kind
                      and (op.primitive in s.primitives or not op.primitive)), None)
        if owner is None:
            owner = next((s for s in steps if isinstance(s, Collective) and s.kind == op.kind
                          and not s.inserted), None)
        if owner is not None:
            owner.hlo.append(op)
            if not owner.groups:
                owner.groups = op.groups
            continue
        step = Collective(kind=op.kind, groups=op.groups, pairs=op.pairs, hlo=[op],
                          inserted=True)
        _insert_after_producer(steps, step, op.primitive)


def _insert_after_producer(steps: list[Segment | Collective], step: Collective,
                           primitive: str) -> None:
    """Put an inserted collective right after the last equation named ``primitive``."""
    for k in range(len(steps) - 1, -1, -1):
        seg = steps[k]
        if not isinstance(seg, Segment):
            continue
        hits = [i for i, eq in enumerate(seg.equations) if eq.primitive == primitive]
        if not hits:
            continue
        cut = hits[-1] + 1
        step.equations = [seg.equations[hits[-1]]]
        tail = seg.equations[cut:]
        seg.equations = seg.equations[:cut]
        steps.insert(k + 1, step)
        if tail:
            steps.insert(k + 2, Segment(tail))
        return
    steps.append(step)
