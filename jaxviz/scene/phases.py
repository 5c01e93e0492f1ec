"""The animation's phases, each with a caption in plain words (no Qt).

Each :class:`~jaxviz.scene.scene.Phase` says what happens (``kind``), a short ``title``, a
one- or two-sentence ``caption`` for the lecture, and ``highlights``: the
``(variant, text_start, text_end)`` line ranges of the variant's jaxpr text
that the phase corresponds to, so the jaxpr panes can highlight them.
"""

from __future__ import annotations

import re

from jaxviz.model import Equation
from jaxviz.scene.program import COLLECTIVE_KINDS, Collective, Segment
from jaxviz.scene.scene import Highlight, Phase, Scene
from jaxviz.scene.tiles import TileGrid

REDUCE_WORDS = {"psum": "sum", "psum_invariant": "sum", "pmean": "mean", "pmax": "maximum",
                "pmin": "minimum"}


#: Phases where a variant's difference from the others shows: its note goes there.
NOTE_PHASES = ("collective", "assemble", "result")


def build_phases(scene: Scene) -> list[Phase]:
    """The phases of a scene, in order."""
    if scene.error:
        return []
    if scene.variant == "vmap" and scene.batch is not None:
        return _with_notes(scene, _vmap_phases(scene))
    return _with_notes(scene, _device_phases(scene))


def _with_notes(scene: Scene, phases: list[Phase]) -> list[Phase]:
    """The notes that say the variant differs, on the phases where the difference shows."""
    text = " ".join(f"⚠ {n.line()}." for n in scene.notes if n.differs)
    if text:
        for phase in phases:
            if phase.kind in NOTE_PHASES:
                phase.note = text
                phase.caption = f"{phase.caption} {text}"
    return phases


# --------------------------------------------------------------------------- #
# pmap / sharded / shard_map (and plain / jit on one device)
# --------------------------------------------------------------------------- #


def _device_phases(scene: Scene) -> list[Phase]:
    v = scene.variant
    n = len(scene.devices)
    ins = _names(scene.inputs)
    first_line = [(v, *_line_range(scene.jaxpr_text, _top_lambda_line(scene.jaxpr_text)))]
    spec_lines = _container_lines(scene, "in_specs=") or first_line
    live = "lives in host memory as a whole array" if len(scene.inputs) == 1 else \
        "live in host memory as whole arrays"
    phases = [Phase("host", "The arrays start on the host",
                    f"Before the call, {ins} {live}. "
                    f"Next: {scene.call or scene.function}.", first_line, 2.5)]
    if scene.parallel:
        phases.append(Phase("split", "Split along the partitioned axes",
                            _split_caption(scene), spec_lines, 2.5))
        phases.append(Phase("transfer", f"Shards travel to their {n} devices",
                            _transfer_caption(scene), spec_lines, 3.0))
    else:
        dev = scene.devices[0].id
        phases.append(Phase("transfer", f"The arguments go to device {dev}",
                            f"{ins} are copied whole to device {dev}: nothing is split, "
                            f"one device does all the work.", first_line, 2.5))
    steps = scene.program.steps or [Segment([])]
    seg_no = sum(isinstance(s, Segment) for s in steps)
    seen_collective = None
    for k, step in enumerate(steps):
        if isinstance(step, Segment):
            label = _segment_label(scene, steps, k)
            phases.append(Phase("compute", *_compute_words(scene, step, seg_no, seen_collective,
                                                           label),
                                _eq_ranges(v, step.equations), 2.5, compute_label=label))
        else:
            seen_collective = step
            phases.append(Phase("collective", *_collective_words(scene, step),
                                _eq_ranges(v, step.equations), 3.5, collective=step))
    out_lines = (_container_lines(scene, "out_specs=") +
                 [(v, *_line_range(scene.jaxpr_text, _last_line(scene.jaxpr_text)))])
    phases.append(Phase("assemble", "The result, with its output sharding",
                        _assemble_caption(scene), out_lines, 3.0))
    return phases


def _split_caption(scene: Scene) -> str:
    parts = []
    copies = [a.name for a in scene.inputs if a.replicated]
    if copies:
        verb = "is" if len(copies) == 1 else "are"
        parts.append(f"{_join(copies)} {verb} not split: every device gets a whole copy")
    for a in scene.inputs:
        if a.replicated:
            continue
        axes = _spec_axes(a.spec)
        cuts = []
        for axis in a.partitioned:
            mesh_axis = axes[axis] if axis < len(axes) and axes[axis] else None
            cuts.append(f"axis {axis}" + (f" (over mesh axis {mesh_axis})" if mesh_axis else ""))
        text = (f"{a.name} {a.type_str} is cut along {' and '.join(cuts)} into "
                f"{len(a.blocks)} tiles of {a.local_type_str}")
        if a.partially_replicated:
            text += f"; {len(a.blocks[0].holders)} devices share each tile"
        parts.append(text)
    return "; ".join(parts) + "."


def _transfer_caption(scene: Scene) -> str:
    first = scene.devices[0].id
    held = [f"{a.name} {a.local_type_str}" for a in scene.inputs]
    text = (f"Each device receives only its own tiles: device {first} gets "
            f"{_join(held)}, and so on.")
    if any(a.replicated for a in scene.inputs):
        text += " Replicated arguments are copied to every device."
    elif any(a.partially_replicated for a in scene.inputs):
        text += " A shared tile is copied to each device that shares it."
    return text


def _segment_label(scene: Scene, steps: list[Segment | Collective], k: int) -> str:
    """Local shapes going into and out of compute segment ``k``."""
    prev = steps[k - 1] if k > 0 else None
    nxt = steps[k + 1] if k + 1 < len(steps) else None
    local = scene.program.local or not scene.parallel
    if prev is None:
        ins = [a.local_type_str for a in scene.inputs]
    elif local and prev.equations:
        ins = [o.type_str for eq in prev.equations if eq.primitive in COLLECTIVE_KINDS
               for o in eq.outputs]
    else:
        ins = _hlo_types(prev)
    if nxt is None:
        outs = [a.local_type_str for a in scene.outputs]
    elif local and nxt.equations:
        outs = [i.type_str for eq in nxt.equations if eq.primitive in COLLECTIVE_KINDS
                for i in eq.inputs if not i.literal]
    else:
        outs = _hlo_types(nxt)
    if not ins and not outs:
        return ""
    return f"{', '.join(_short_list(ins))} → {', '.join(_short_list(outs))}"


def _compute_words(scene: Scene, step: Segment, segments: int, after: Collective | None,
                   label: str) -> tuple[str, str]:
    prims = _primitive_list(step.equations)
    n = len(scene.devices)
    if not scene.parallel:
        dev = scene.devices[0].id
        how = ("as one compiled XLA program" if scene.variant != "plain"
               else "op by op, each primitive dispatched on its own")
        return (f"Device {dev} computes", f"Device {dev} runs {scene.function} {how}: "
                f"{label}. Equations: {prims}.")
    if after is None and segments == 1:
        title = "Every device runs the same program on its shard"
        text = (f"All {n} devices run one compiled program at the same time, each on its own "
                f"data, without talking to each other: {label}.")
    elif after is None:
        title = "Every device computes on its own shard"
        text = f"Each of the {n} devices works on its own data up to the first exchange: {label}."
    else:
        title = f"After the {after.name}: each device goes on alone"
        text = f"With the exchanged values in hand, every device continues on its own: {label}."
    if not scene.program.local and scene.variant == "sharded":
        text += " (The jaxpr is the global program; XLA's partitioner made the per-device one.)"
    return title, f"{text} Equations: {prims}."


def _collective_words(scene: Scene, c: Collective) -> tuple[str, str]:
    size = max((len(g) for g in c.groups), default=len(scene.devices))
    ngroups = len(c.groups)
    over = f"over mesh axis {_join(c.axes)}" if c.axes else "across the devices"
    groups = "" if ngroups <= 1 else f" ({ngroups} groups of {size}, one per row of the mesh)"
    if not scene.parallel:
        dev = scene.devices[0].id
        axes = c.equations[0].params.get("axes", "") if c.equations else ""
        where = f" (axes={axes})" if axes else ""
        return (f"{c.name} over the batch axis, inside one program",
                f"Under vmap, the collective {c.name} becomes an operation along the batch "
                f"axis of one array{where}: no data leaves device {dev}, no device talks to "
                f"another.")
    if c.inserted:
        hlo = c.hlo[0]
        groups_text = " ".join("{" + ",".join(map(str, g)) + "}" for g in hlo.groups[:6])
        if len(hlo.groups) > 6:
            groups_text += " …"
        return (f"XLA inserted an {c.kind}",
                f"The split layout leaves each device with a partial {hlo.primitive or 'result'}, "
                f"so the partitioner added an {c.kind} of {hlo.type} between devices "
                f"{groups_text}. It is in the compiled HLO, not in the jaxpr.")
    prim = c.primitives[0]
    if c.kind == "all-reduce":
        word = REDUCE_WORDS.get(prim, "combination")
        return (f"{c.name}: an all-reduce {over}",
                f"Every device sends its value to the others and every device ends up with the "
                f"{word} over all {size}{groups}. This is where the devices talk to each other.")
    if c.kind == "all-gather":
        return (f"{c.name}: every device collects every piece",
                f"Each device sends its piece to the others {over}{groups}; afterwards every "
                f"device holds all {size} pieces, stacked in device order.")
    if c.kind == "collective-permute":
        pairs = ", ".join(f"{a}→{b}" for a, b in c.pairs[:8]) + (" …" if len(c.pairs) > 8 else "")
        return (f"{c.name}: each device passes its data on",
                f"Each device sends its data to exactly one other device {over}: {pairs}.")
    if c.kind == "all-to-all":
        return (f"{c.name}: everyone swaps chunks with everyone",
                f"Each device cuts its data into {size} chunks and sends chunk j to device j "
                f"{over}{groups}; afterwards each holds one chunk from every device.")
    return (f"{c.name}: a reduce-scatter {over}",
            f"Device j receives chunk j from every device and sums them{groups}: each ends "
            f"with one summed chunk, a 1/{size} of the total.")


def _assemble_caption(scene: Scene) -> str:
    parts = []
    for a in scene.outputs:
        if len(a.by_device) == 1:
            parts.append(f"{a.name} {a.type_str} is one array on device "
                         f"{next(iter(a.by_device))}")
        elif a.replicated:
            parts.append(f"{a.name} {a.type_str} is replicated: every device holds the same "
                         f"full copy")
        else:
            parts.append(f"{a.name} {a.type_str} stays on the devices, sharded "
                         f"{a.spec or ''}: each holds a {a.local_type_str} tile")
    text = "; ".join(parts) + "."
    if scene.parallel:
        text += " It is still one jax.Array: np.asarray(out) would gather it to the host."
    return text


# --------------------------------------------------------------------------- #
# vmap: one program on the whole batch, versus a Python loop
# --------------------------------------------------------------------------- #


def _vmap_phases(scene: Scene) -> list[Phase]:
    v = scene.variant
    b = scene.batch
    assert b is not None  # only a batched scene has these phases
    dev = scene.devices[0].id
    axes = "(" + ", ".join("None" if a is None else str(a) for a in b.in_axes) + ")"
    one_in = [_drop_axis(g.dtype, g.shape, ax) for g, ax in zip(scene.inputs, b.in_axes)]
    one_out = [_drop_axis(g.dtype, g.shape, 0 if g.shape and g.shape[0] == b.size else None)
               for g in scene.outputs]
    per_call = f"{', '.join(one_in)} → {', '.join(one_out)}"
    whole = (f"{', '.join(g.type_str for g in scene.inputs)} → "
             f"{', '.join(g.type_str for g in scene.outputs)}")
    first_line = [(v, *_line_range(scene.jaxpr_text, _top_lambda_line(scene.jaxpr_text)))]
    every = _eq_ranges(v, [eq for s in scene.program.steps if isinstance(s, Segment)
                           for eq in s.equations])
    batched = [g for g, ax in zip(scene.inputs, b.in_axes) if ax is not None]
    shared = [g.name for g, ax in zip(scene.inputs, b.in_axes) if ax is None]
    verb = "stacks" if len(batched) == 1 else "stack"
    host = (f"{_names(batched)} {verb} {b.size} examples (in_axes={axes})"
            + (f"; {_join(shared)} (in_axes None) {'is' if len(shared) == 1 else 'are'} "
               f"shared by every example" if shared else "")
            + f". {scene.function} itself is written for one example: {per_call}.")
    phases = [
        Phase("host", f"A batch of {b.size} examples on the host", host, first_line, 2.5),
        Phase("loop", "Without vmap: a Python loop",
              f"A Python loop would call {scene.function} {b.size} times, one example after "
              f"another: {b.size} separate calls, each {per_call}.", [], 4.5,
              compute_label=per_call),
        Phase("vectorized", "With vmap: one program for the whole batch",
              f"jax.vmap rewrites every equation to carry the batch axis, so device {dev} runs "
              f"ONE program on all {b.size} examples at once: {whole}. No loop, no extra "
              f"devices.", every, 3.0, compute_label=whole),
    ]
    for step in scene.program.collectives:
        phases.append(Phase("collective", *_collective_words(scene, step),
                            _eq_ranges(v, step.equations), 3.0, collective=step))
    out_lines = [(v, *_line_range(scene.jaxpr_text, _last_line(scene.jaxpr_text)))]
    phases.append(Phase("result", "One batched result",
                        f"{_names(scene.outputs)}: one array on device {dev}, row k is example "
                        f"k's result. To spread the batch over devices, use pmap or sharding.",
                        out_lines, 2.5))
    return phases


# --------------------------------------------------------------------------- #
# helpers
# --------------------------------------------------------------------------- #


def _names(grids: list[TileGrid]) -> str:
    return _join([f"{g.name} {g.type_str}" for g in grids])


def _join(items: list[str]) -> str:
    items = list(items)
    if len(items) > 4:
        items = items[:3] + [f"{len(items) - 3} more"]
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _short_list(types: list[str], limit: int = 4) -> list[str]:
    return types if len(types) <= limit else types[:limit - 1] + ["…"]


def _drop_axis(dtype: str, shape: list[int], axis: int | None) -> str:
    dims = list(shape) if axis is None else shape[:axis] + shape[axis + 1:]
    return f"{dtype}[{','.join(map(str, dims))}]"


def _hlo_types(c: Segment | Collective | None) -> list[str]:
    if isinstance(c, Collective) and c.hlo:
        return [c.hlo[0].type]
    return []


def _primitive_list(equations: list[Equation]) -> str:
    names: list[str] = []
    for eq in equations:
        if eq.primitive not in names:
            names.append(eq.primitive)
    if not names:
        return "none"
    return ", ".join(names[:5]) + (", …" if len(names) > 5 else "")


def _spec_axes(spec: str | None) -> list[str | None]:
    """Mesh axis names per array axis from ``P('data', None)`` text."""
    if not spec:
        return []
    inner = spec.strip()
    inner = inner[2:-1] if inner.startswith("P(") and inner.endswith(")") else inner
    parts, depth, cur = [], 0, ""
    for ch in inner:
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        depth += ch == "("
        depth -= ch == ")"
        cur += ch
    if cur.strip():
        parts.append(cur)
    out: list[str | None] = []
    for p in parts:
        names = re.findall(r"'([^']*)'", p)
        out.append(" x ".join(names) if names else None)
    return out


def _eq_ranges(variant: str, equations: list[Equation]) -> list[Highlight]:
    """Line ranges of equations, contiguous ones merged."""
    spans = sorted((eq.text_start, eq.text_end) for eq in equations
                   if eq.text_start is not None and eq.text_end is not None)
    merged: list[list[int]] = []
    for s, e in spans:
        if merged and s <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], e)
        else:
            merged.append([s, e])
    return [(variant, s, e) for s, e in merged]


def _top_lambda_line(text: str) -> int:
    for i, line in enumerate(text.splitlines()):
        if line.startswith("{ lambda"):
            return i
    return 0


def _last_line(text: str) -> int:
    return max(len(text.splitlines()) - 1, 0)


def _line_range(text: str, line: int) -> tuple[int, int]:
    return line, line


def _container_lines(scene: Scene, needle: str) -> list[Highlight]:
    eq = scene.program.container
    if eq is None or eq.text_start is None or eq.text_end is None:
        return []
    lines = scene.jaxpr_text.splitlines()
    for i in range(eq.text_start, min(eq.text_end + 1, len(lines))):
        if needle in lines[i]:
            return [(scene.variant, i, i)]
    return []
