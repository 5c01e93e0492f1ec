"""The plain words of the device view's captions, computed from the storyboard (no Qt).

Every caption says what the storyboard records and nothing more: shapes are
the per-device types of the compiled program, groups and pairs are device ids,
and where a collective came from is the storyboard's ``origin`` and ``why``.
"""

from __future__ import annotations

from jaxviz.model.claims import ArrayClaim, CollectiveClaim, StoryClaims, jaxpr_type
from jaxviz.model.storyboard import CollectiveOp, Step
from jaxviz.views.devices.tiles import TileGrid, holders_text

#: The word for each reduction of an all-reduce or reduce-scatter.
REDUCTION_WORDS = {"sum": "sum", "max": "maximum", "min": "minimum", "product": "product",
                   "and": "logical and", "or": "logical or", "xor": "exclusive or"}
#: Most groups or pairs a caption lists before "…".
LISTED = 4


def join(items: list[str], limit: int = 4) -> str:
    """``a, b and c`` (``a, b, c and 2 more`` past ``limit``)."""
    items = list(items)
    if len(items) > limit:
        items = items[:limit - 1] + [f"{len(items) - limit + 1} more"]
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def short_list(types: list[str], limit: int = 4) -> list[str]:
    return types if len(types) <= limit else types[:limit - 1] + ["…"]


def article(word: str) -> str:
    """``an all-reduce``, ``a collective-permute``, ``a reduce-scatter``."""
    return ("an " if word[:1].lower() in "aeio" else "a ") + word


def shapes(types: list[str]) -> str:
    """Per-device types, comma-separated, with the jaxpr's dtype names (``i32[4,64]``)."""
    return ", ".join(short_list([jaxpr_type(t) for t in types])) or "nothing"


def compute_label(step: Step) -> str:
    """``f32[4,64], f32[64,16] → f32[4,16]``: what one device reads and makes."""
    if not step.input_shapes and not step.output_shapes:
        return ""
    return f"{shapes(step.input_shapes)} → {shapes(step.output_shapes)}"


def lines_text(lines: list[int]) -> str:
    """``line 17`` / ``lines 16, 18``."""
    if not lines:
        return ""
    return ("line " if len(lines) == 1 else "lines ") + ", ".join(map(str, lines))


def primitives_text(step: Step, limit: int = 5) -> str:
    names = step.primitives
    if not names:
        return "no jaxpr equation"
    return ", ".join(names[:limit]) + (", …" if len(names) > limit else "")


def loop_counts(step: Step) -> list[int | None]:
    """Trip counts of the loops a step runs inside, outermost first."""
    return [e.trip_count for e in step.within if e.kind == "while"]


def loop_words(step: Step) -> tuple[str, str]:
    """(title suffix, caption sentence) for a step inside loops, or empty strings."""
    counts = loop_counts(step)
    if not counts:
        if any(e.kind == "conditional" for e in step.within):
            return " (in a branch)", " It runs only in the branch of the cond that is taken."
        return "", ""
    known = [c for c in counts if c is not None]
    if len(known) == len(counts):
        total = 1
        for c in known:
            total *= c
        return (f" × {total} iterations",
                f" It is inside a loop: every device runs it {total} times.")
    return " (in a loop)", " It is inside a loop: every device runs it once per iteration."


def groups_text(c: CollectiveOp, devices: int) -> str:
    """``{0,1} {2,3} {4,5} {6,7}`` or ``all 8 devices``."""
    if len(c.groups) == 1 and len(c.groups[0]) == devices:
        return f"all {devices} devices"
    text = " ".join("{" + ",".join(map(str, g)) + "}" for g in c.groups[:LISTED])
    return text + (" …" if len(c.groups) > LISTED else "")


def over_text(c: CollectiveOp, devices: int) -> str:
    """``over mesh axis 'model'`` / ``within 4 groups of 2`` / ``across all 8 devices``."""
    if c.mesh_axes:
        axes = " and ".join(repr(a) for a in c.mesh_axes)
        return f"over mesh axis {axes}" if len(c.mesh_axes) == 1 else f"over mesh axes {axes}"
    if c.kind == "collective-permute":
        return "between pairs of devices"
    if len(c.groups) == 1:
        return f"across all {len(c.groups[0])} devices" if len(c.groups[0]) == devices \
            else f"within one group of {len(c.groups[0])}"
    sizes = sorted({len(g) for g in c.groups})
    return f"within {len(c.groups)} groups of {'/'.join(map(str, sizes))}"


def moved_pairs(c: CollectiveOp) -> list[list[int]]:
    """A permute's pairs that move data (a ``[k, k]`` pair keeps the block where it is)."""
    return [p for p in c.pairs if p[0] != p[1]]


def pairs_text(c: CollectiveOp) -> str:
    moved = moved_pairs(c)
    text = ", ".join(f"{a}→{b}" for a, b in moved[:8]) + (" …" if len(moved) > 8 else "")
    kept = [p[0] for p in c.pairs if p[0] == p[1]]
    if kept:
        text += f"; device{'s' if len(kept) > 1 else ''} {','.join(map(str, kept))} " \
                f"keep{'' if len(kept) > 1 else 's'} {'their' if len(kept) > 1 else 'its'} block"
    return text


def collective_title(step: Step, devices: int, claim: CollectiveClaim | None = None) -> str:
    """``pmean (line 37): an all-reduce over mesh axis 'batch'``: what the user wrote.

    Without a claim naming what the user called, the title names the HLO op alone.
    """
    c = step.collective
    assert c is not None  # a collective step
    over = over_text(c, devices)
    if c.origin == "partitioner":
        return f"XLA inserts {article(c.kind)} {over}"
    if claim is None or not claim.written:
        return f"{article(c.kind)[0].upper()}{article(c.kind)[1:]} {over}"
    parts = [f"{name} (line {line})" if line else name for name, line in written_parts(claim)]
    return f"{join(list(dict.fromkeys(parts)))}: {article(c.kind)} {over}"


def written_parts(claim: CollectiveClaim) -> list[tuple[str, int]]:
    """``[("pmean", 37), ...]``: each call a collective step implements, with its line."""
    names = claim.written.split(" and ") if claim.written else []
    lines = claim.lines if len(claim.lines) == len(names) else [0] * len(names)
    return list(zip(names, lines))


def written_words(claim: CollectiveClaim | None) -> str:
    """What the call the user wrote became in the jaxpr, when that is not the same name."""
    if claim is None or not claim.written:
        return ""
    if "pmean" in claim.written.split(" and ") and claim.divisor is not None:
        return (f" pmean is a psum followed by a division by {claim.divisor}: "
                f"the all-reduce sums, then each device divides.")
    if claim.primitive and claim.written in ("psum", "all_gather") and \
            claim.primitive != claim.written:
        return (f" (The jaxpr records this {claim.written} as {claim.primitive}"
                + (": the name under shard_map's check_vma." if claim.primitive.endswith(
                    "_invariant") else ".") + ")")
    return ""


def collective_action(step: Step, devices: int) -> str:
    """What the devices exchange, with the per-device shapes going in and out."""
    c = step.collective
    assert c is not None  # a collective step
    ins, outs = shapes(step.input_shapes), shapes(step.output_shapes)
    among = groups_text(c, devices)
    size = max((len(g) for g in c.groups), default=devices)
    dims = ", ".join(map(str, c.dimensions))
    if c.kind == "all-reduce":
        word = REDUCTION_WORDS.get(c.reduction, "combination")
        return (f"Every device sends its {ins} to the others of its group ({among}); each "
                f"ends with the {word} over its group: {outs}.")
    if c.kind == "all-gather":
        along = f" along dimension {dims}" if dims else ""
        return (f"Each device sends its {ins} to the others of its group ({among}); each "
                f"ends with the {size} pieces put together{along}: {outs}.")
    if c.kind == "reduce-scatter":
        word = REDUCTION_WORDS.get(c.reduction, "combination")
        return (f"The devices of each group ({among}) add up their {ins} piece by piece; "
                f"each ends with one slice of the {word}: {outs}.")
    if c.kind == "all-to-all":
        return (f"Each device cuts its {ins} into {size} chunks and sends chunk j to the "
                f"j-th device of its group ({among}); each ends with {outs}.")
    if c.kind == "collective-permute":
        return f"Each device sends its {ins} to one other device: {pairs_text(c)}."
    return f"The devices exchange {ins} ({among}); each ends with {outs}."


def processes_text(c: CollectiveOp, process_of: dict[int, int]) -> str:
    """A sentence when the exchange crosses from one JAX process to another ("" if not)."""
    spans = [len({process_of.get(d, 0) for d in g}) for g in c.groups]
    spans += [len({process_of.get(a, 0), process_of.get(b, 0)}) for a, b in c.pairs]
    if max(spans, default=1) <= 1:
        return ""
    return (f" The exchange crosses between processes: {max(spans)} JAX processes take part, "
            f"as hosts of a cluster would.")


def collective_origin(step: Step, function: str, claim: CollectiveClaim | None = None) -> str:
    """Where the collective came from: the call and line, or what asked the partitioner."""
    c = step.collective
    assert c is not None  # a collective step
    if c.origin == "partitioner":
        if claim is not None and claim.asked_by in LAYOUT_REQUESTS:
            at = f" on line {claim.asked_line}" if claim.asked_line is not None else ""
            return (f"Inserted by XLA's SPMD partitioner: the {claim.asked_by}{at} asks for "
                    f"another layout of the value, and the devices move their blocks to "
                    f"obey it; the jaxpr has no collective here.")
        why = c.why.rstrip(".").replace("so XLA's SPMD partitioner ", "so it ")
        return f"Inserted by XLA's SPMD partitioner: {why}." if why else \
            "Inserted by XLA's SPMD partitioner; the jaxpr has no collective here."
    if claim is None or not claim.written:
        return ""
    parts = written_parts(claim)
    calls = list(dict.fromkeys(f"{name} on line {line}" if line else name
                               for name, line in parts if name != "jax.grad"))
    grads = sorted({line for name, line in parts if name == "jax.grad" and line})
    text = f"The {join(calls)} of {function}." if calls else ""
    if len(grads) < len([n for n, _ in parts if n == "jax.grad"]) or grads:
        at = f" ({lines_text(grads)})" if grads else ""
        text += (f" jax.grad's backward pass{at} sums the gradient of a replicated argument "
                 f"over the devices.")
    return text.strip() + written_words(claim)


#: jaxpr primitives that ask for a layout (see :mod:`jaxviz.core.claims`).
LAYOUT_REQUESTS = ("sharding_constraint", "reshard", "device_put", "mesh_cast")


def placed_grids(grids: list[TileGrid], claims: StoryClaims | None) -> list[TileGrid]:
    """The inputs already laid out on the devices as the program wants them (every member)."""
    if claims is None:
        return []
    return [g for g in grids if all(
        (c := claims.array(m.name)) is not None and c.starts == "placed"
        for m in (g.members or [g]))]


def moved_from(g: TileGrid, claims: StoryClaims | None) -> str:
    """``now on device 3: moved at the call`` for an input passed as a jax.Array laid out
    otherwise than the program wants ("" for anything else)."""
    if claims is None or g.role != "input":
        return ""
    found = [claims.array(m.name) for m in (g.members or [g])]
    if not found or any(c is None or c.starts != "device" or not c.on for c in found):
        return ""
    on = sorted({d for c in found if c is not None for d in c.on})
    where = f"device {on[0]}" if len(on) == 1 else f"devices {join([str(d) for d in on], 6)}"
    return f"a jax.Array on {where}: moved at the call"


def starts_on_device(g: TileGrid, claims: StoryClaims | None) -> int | None:
    """The one device an input passed as a ``jax.Array`` lies on, whole, when the call
    starts (laid out otherwise than the program wants: JAX moves it at the call); None for
    an array on the host, placed as the program wants, or spread over several devices."""
    if claims is None or g.role != "input":
        return None
    found = [claims.array(m.name) for m in (g.members or [g])]
    if not found or any(c is None or c.starts != "device" for c in found):
        return None
    on = {d for c in found if c is not None for d in c.on}
    return next(iter(on)) if len(on) == 1 else None


def all_placed(grids: list[TileGrid], claims: StoryClaims | None) -> bool:
    """Every input is already laid out on the devices as the program wants it."""
    if claims is None or not grids:
        return False
    starts = [c.starts if (c := claims.array(m.name)) is not None else ""
              for g in grids for m in (g.members or [g])]
    return all(s == "placed" for s in starts)


def start_words(grids: list[TileGrid], claims: StoryClaims | None) -> tuple[str, str]:
    """(title, caption) for where the inputs are before the call; ``("", "")`` if unknown.

    Only what the claims say: an argument on the host, one already placed as the
    program wants it (nothing moves at the call), or a jax.Array JAX moves.
    """
    if claims is None:
        return "", ""
    found: dict[str, list[str]] = {}
    for g in grids:
        members = g.members or [g]
        kinds = {c.starts for m in members
                 if (c := claims.array(m.name)) is not None and c.role == "input"}
        if len(kinds) != 1 or "" in kinds:
            return "", ""
        name = f"{g.name} ({g.type_str})" if g.members else f"{g.name} {g.type_str}"
        found.setdefault(kinds.pop(), []).append(name)
    parts = []
    if "host" in found:
        verb = "lives" if len(found["host"]) == 1 and "(" not in found["host"][0] else "live"
        parts.append(f"{join(found['host'])} {verb} in host memory as "
                     f"{'a whole array' if verb == 'lives' else 'whole arrays'}")
    if "placed" in found:
        many = len(found["placed"]) > 1 or "(" in found["placed"][0]
        processes = max((a.processes for a in claims.arrays if a.role == "input"
                         and a.starts == "placed"), default=1)
        held = {d for g in grids for d in g.by_device}
        where = (f"already on the devices of {processes} processes, each process holding "
                 f"only its own blocks" if processes > 1 else
                 f"already on device {next(iter(held))}" if len(held) == 1 else
                 "already on the devices, laid out as the program wants")
        parts.append(f"{join(found['placed'])} {'are' if many else 'is'} {where}: nothing "
                     f"moves at the call")
    if "device" in found:
        many = len(found["device"]) > 1 or "(" in found["device"][0]
        on = {d for a in claims.arrays if a.role == "input" and a.starts == "device"
              for d in a.on}
        where = (f"on device {next(iter(on))}, not where the program wants "
                 f"{'them' if many else 'it'}" if len(on) == 1 else
                 "on devices, laid out otherwise than the program wants")
        parts.append(f"{join(found['device'])} {'are jax.Arrays' if many else 'is a jax.Array'}"
                     f" {where}: JAX moves {'them' if many else 'it'} at the call")
    if set(found) == {"host"}:
        title = "The arrays start on the host"
    elif set(found) == {"placed"}:
        held = {d for g in grids for d in g.by_device}
        title = (f"The arrays are already on device {next(iter(held))}" if len(held) == 1
                 else "The arrays are already on the devices")
    else:
        title = "Where the arrays are before the call"
    return title, "Before the call, " + "; ".join(parts) + "."


def holding_words(claim: ArrayClaim | None) -> str:
    """A sentence when the devices hold identical values in distinct blocks ("" if not)."""
    if claim is None or claim.holding != "equal_pieces":
        return ""
    return (f" Every device's block of {claim.name} holds the same values (the real run "
            f"compared them): identical copies, one per device.")


def array_words(g: TileGrid, devices: int) -> str:
    """``x f32[16,64] is split along axis 0 (over 'data') into 4 tiles of f32[4,64], ...``."""
    name = f"{g.name} ({g.type_str})" if g.members else f"{g.name} {g.type_str}"
    verb = "are" if g.members else "is"
    if g.replicated and devices > 1:
        return f"{name} {verb} replicated on all {devices}: every device holds a whole copy"
    if len(g.blocks) == 1:
        return f"{name} {verb} {g.describe()}"
    text = f"{name} {verb} {g.describe()}"
    text = text.replace(" tiles", f" tiles of {g.local_type_str}", 1)
    if g.shared and len(g.blocks) <= LISTED:
        text += " (" + " · ".join(holders_text(b.holders) for b in g.blocks) + ")"
    return text
