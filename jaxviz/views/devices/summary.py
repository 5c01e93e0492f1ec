"""One variant in one sentence, rendered from its storyboard's claims (no Qt, no JAX).

A deck's summary slide says, for each variant, what JAX did with the call: one
compiled program or op by op, on how many devices, where the arguments were
when it started, which collectives ran and why, and whether the devices end up
with pieces of the result or identical copies. Every part is read from the
claims (:mod:`jaxviz.model.claims`, derived from the compiled program,
``devices_indices_map``, the arguments as passed and the real run), never from
the variant's name; a part whose claim is missing is left out.

    >>> from jaxviz.model.claims import ProgramClaim, StoryClaims
    >>> how_it_runs(StoryClaims(ProgramClaim("op_by_op", 1, [0])))
    'op by op on device 0 (each primitive dispatched on its own)'
"""

from __future__ import annotations

from jaxviz.model.claims import ArrayClaim, StoryClaims
from jaxviz.model.records import VariantResult, walk_equations
from jaxviz.model.storyboard import Storyboard
from jaxviz.views.devices.words import article, join

#: Most collectives one summary names (the rest are counted).
NAMED_COLLECTIVES = 3


def how_it_runs(claims: StoryClaims) -> str:
    """``one compiled program on 8 devices`` / ``op by op on device 0 (...)``."""
    p = claims.program
    n = p.num_partitions
    where = (f"on device {p.devices[0]}" if n == 1 and len(p.devices) == 1 else
             f"on {n} device{'s' if n != 1 else ''}")
    if p.runs == "op_by_op":
        return f"op by op {where} (each primitive dispatched on its own)"
    return f"one compiled program {where}"


def arguments_words(claims: StoryClaims) -> str:
    """Where the arguments are when the call starts ("" when the claims do not say)."""
    ins = [a for a in claims.arrays if a.role == "input"]
    if not ins or any(not a.starts for a in ins):
        return ""
    said = {"placed": "already placed", "host": "sent from the host",
            "device": "moved between devices at the call"}
    by: dict[str, list[str]] = {}
    for a in ins:
        by.setdefault(a.starts, []).append(a.name)
    if len(by) == 1:
        kind = next(iter(by))
        whom = ("the argument" if len(ins) == 1 else "both arguments" if len(ins) == 2
                else f"all {len(ins)} arguments")
        return f"{whom} {said[kind]}"
    return "; ".join(f"{join(names, 3)} {said[kind]}" for kind, names in by.items())


def collectives_words(story: Storyboard, claims: StoryClaims) -> str:
    """Which collectives ran and why, as the user wrote them (or what asked XLA)."""
    parts = []
    for c in claims.collectives:
        if not 0 <= c.step < len(story.steps):
            continue
        op = story.steps[c.step].collective
        if op is None:
            continue
        kind = article(op.kind)
        if op.origin == "partitioner":
            at = f" on line {c.asked_line}" if c.asked_line is not None else ""
            why = (f" for the {c.asked_by}{at}" if c.asked_by in LAYOUT_REQUESTS else "")
            parts.append(f"{kind} inserted by XLA{why}")
        elif c.written:
            names = c.written.split(" and ")
            lines = c.lines if len(c.lines) == len(names) else [0] * len(names)
            calls = [f"{n} (line {ln})" if ln else n for n, ln in zip(names, lines)]
            parts.append(f"{join(list(dict.fromkeys(calls)), 3)} as {kind}")
        else:
            parts.append(kind)
    if not parts:
        return "no collective runs"
    parts = list(dict.fromkeys(parts))
    if len(parts) > NAMED_COLLECTIVES:
        parts = parts[:NAMED_COLLECTIVES - 1] + [f"{len(parts) - NAMED_COLLECTIVES + 1} more"]
    return "collectives: " + "; ".join(parts)


def results_words(claims: StoryClaims, devices: int) -> str:
    """How the devices hold the results: pieces, identical copies, or one device."""
    outs = [a for a in claims.arrays if a.role == "output"]
    if not outs:
        return ""
    said = {"one_device": "on one device",
            "pieces": f"in distinct pieces on {devices} devices",
            "copies": f"whole on each of {devices} devices",
            "equal_pieces": f"identical copies on {devices} devices"}
    by: dict[str, list[ArrayClaim]] = {}
    for a in outs:
        by.setdefault(a.holding, []).append(a)
    parts = []
    for kind, arrays in by.items():
        whom = (arrays[0].name if len(arrays) == 1 else
                f"{len(arrays)} results" if len(by) > 1 or len(outs) != len(arrays)
                else "both results" if len(arrays) == 2 else f"all {len(arrays)} results")
        parts.append(f"{whom}: {said.get(kind, '')}")
    return "; ".join(parts)


def variant_summary(vr: VariantResult) -> str:
    """``jit: one compiled program on device 0; 3 equations; ...`` for a summary slide.

    Starts with the variant's name and a colon (a deck leaves out a failed variant by it).
    """
    count = sum(1 for _ in walk_equations(vr.equations))
    head = f"{vr.variant}: {count} equation{'' if count == 1 else 's'}"
    story = vr.storyboard
    claims = story.claims if story is not None else None
    if story is None or claims is None:
        if vr.collectives:  # only the jaxpr is known
            head += f", collectives in the jaxpr {', '.join(dict.fromkeys(vr.collectives))}"
        return head
    devices = len(story.devices) or claims.program.num_partitions
    runs = how_it_runs(claims)
    if story.mesh is not None and claims.program.num_partitions > 1 and story.mesh.axis_names:
        runs += " (mesh " + ", ".join(f"{n}={k}" for n, k in zip(story.mesh.axis_names,
                                                              story.mesh.axis_sizes)) + ")"
    parts = [f"{vr.variant}: {runs}", f"{count} equation"
             f"{'' if count == 1 else 's'}", arguments_words(claims),
             collectives_words(story, claims), results_words(claims, devices)]
    return "; ".join(p for p in parts if p)


#: jaxpr primitives that ask for a layout (see :mod:`jaxviz.core.claims`).
LAYOUT_REQUESTS = ("sharding_constraint", "reshard", "device_put", "mesh_cast")
