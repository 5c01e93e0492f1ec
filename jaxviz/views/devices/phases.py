"""The animation's phases, each with a caption in plain words (no Qt).

The phases follow the storyboard: the arrays on the host, their split and
transfer (from the tiles and their holders), then one phase per step of the
compiled program in program order -- compute runs and collectives with their
real groups and per-device shapes -- and the output as the program leaves it.
A vmap variant contrasts one batched computation with a Python loop of calls,
but only when such a loop could compute the same thing; otherwise it says why
it cannot.

Each :class:`~jaxviz.views.devices.scene.Phase` has a ``kind``, a short ``title``, a
``caption`` for the lecture and ``highlights``: the ``(variant, text_start,
text_end)`` line ranges of the variant's jaxpr text it corresponds to, so the
jaxpr panes can light them up.
"""

from __future__ import annotations

from jaxviz.model import Equation, VariantResult
from jaxviz.model.records import walk_equations
from jaxviz.model.storyboard import Step
from jaxviz.views.devices import words
from jaxviz.views.devices.scene import Highlight, Phase, Scene
from jaxviz.views.devices.tiles import TileGrid
from jaxviz.views.incremental import Steps, run_to_end

#: jaxpr primitives that name a mapped axis (a collective, or asking for the device index).
AXIS_PRIMITIVES = frozenset({
    "psum", "pmax", "pmin", "pmean", "psum_invariant", "all_gather", "all_gather_invariant",
    "ppermute", "pshuffle", "all_to_all", "psum_scatter", "reduce_scatter", "axis_index",
    "pbroadcast"})


#: Phases where a variant's difference from the others shows: its note goes there.
NOTE_PHASES = ("collective", "assemble", "result")


def build_phases(scene: Scene, vr: VariantResult) -> list[Phase]:
    """The phases of a scene, in order."""
    return run_to_end(phases_steps(scene, vr))


def phases_steps(scene: Scene, vr: VariantResult) -> Steps[list[Phase]]:
    """:func:`build_phases` in steps (one per storyboard step; see
    :mod:`jaxviz.views.incremental`)."""
    if scene.error or scene.story is None:
        return []
    equations = list(walk_equations(vr.equations))
    yield
    if scene.variant == "vmap" and scene.batch is not None:
        return _with_notes(scene, _vmap_phases(scene, equations))
    phases = yield from _device_phases(scene, equations)
    return _with_notes(scene, phases)


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


def _device_phases(scene: Scene, equations: list[Equation]) -> Steps[list[Phase]]:
    v, story = scene.variant, scene.story
    assert story is not None  # checked by build_phases
    everyone = [d.id for d in scene.devices]
    ins = scene.shown("input")
    first = [_line(v, _top_lambda_line(scene.jaxpr_text))]
    spec_lines = _container_lines(scene, equations, "in_specs=") or first
    names = [g.name for g in scene.inputs]
    claims = story.claims
    title, caption = words.start_words(ins, claims)
    nxt = f"Next: {scene.call or scene.function}."
    placed = words.all_placed(ins, claims)
    if placed:
        phases = [Phase("placed", title, f"{caption} {nxt}", first, 3.0, devices=everyone,
                        arrays=names)]
    else:
        phases = [Phase("host", title or "The arguments", f"{caption} {nxt}".strip(), first,
                        2.5, arrays=names)]
    # arrays already laid out as the program wants are neither split nor sent
    there = {g.key for g in words.placed_grids(ins, claims)}
    sent = [g for g in ins if g.key not in there]
    if placed:
        pass  # nothing is split or sent at the call
    elif scene.parallel:
        phases.append(Phase("split", "Split into tiles, as the shardings say",
                            _split_caption(scene, sent), spec_lines, 2.5, arrays=names))
        phases.append(Phase("transfer", f"The tiles travel to their {len(everyone)} devices",
                            _transfer_caption(scene, sent), spec_lines, 3.0,
                            devices=everyone, arrays=names))
    elif claims is not None and claims.program.num_partitions == 1:
        dev = everyone[0]
        moved = [g for g in ins if any(
            (c := claims.array(m.name)) is not None and c.starts != "placed"
            for m in (g.members or [g]))]
        if moved:
            verb = "is" if len(moved) == 1 and not moved[0].members else "are"
            phases.append(Phase("transfer", f"The arguments go to device {dev}",
                                f"{_names(moved)} {verb} copied whole to device {dev}: "
                                f"the compiled program has one partition, so one device "
                                f"does all the work.",
                                first, 2.5, devices=everyone, arrays=names))
    previous: Step | None = None
    computes = sum(s.kind == "compute" for s in story.steps)
    for k, step in enumerate(story.steps):
        marks = _eq_ranges(v, [equations[i] for i in step.equations if i < len(equations)])
        if step.collective is not None:
            title, caption = _collective_words(scene, step, k)
            phases.append(Phase("collective", title, caption, marks, 3.5, step=step,
                                step_index=k, devices=_acting(step, everyone)))
            previous = step
        else:
            title, caption = _compute_words(scene, step, previous, computes)
            phases.append(Phase("compute", title, caption, marks, 2.5,
                                compute_label=words.compute_label(step), step=step,
                                step_index=k, devices=everyone))
        yield
    out_lines = (_container_lines(scene, equations, "out_specs=")
                 + [_line(v, _last_line(scene.jaxpr_text))])
    phases.append(Phase("assemble", "The result, with its output sharding",
                        _assemble_caption(scene), out_lines, 3.0, devices=everyone,
                        arrays=[g.name for g in scene.outputs]))
    return phases


def _acting(step: Step, everyone: list[int]) -> list[int]:
    c = step.collective
    if c is None:
        return everyone
    if c.kind == "collective-permute":
        return sorted({d for p in words.moved_pairs(c) for d in p})
    return sorted({d for g in c.groups for d in g}) or everyone


def _split_caption(scene: Scene, ins: list[TileGrid]) -> str:
    n = len(scene.devices)
    parts = [words.array_words(g, n) for g in ins[:3]]
    if len(ins) > 3:
        parts.append(f"{len(ins) - 3} more arrays likewise")
    return "; ".join(parts) + "."


def _transfer_caption(scene: Scene, ins: list[TileGrid]) -> str:
    first = scene.devices[0].id
    held = [f"{g.name} ({g.type_str})" if g.members else f"{g.name} {g.local_type_str}"
            for g in ins if first in g.by_device]
    text = (f"Each device receives only its own tiles: device {first} gets "
            f"{words.join(held)}, and so on.")
    sent = {g.key for g in ins}
    there = [g for g in scene.shown("input") if g.key not in sent]
    if there:
        text += (f" {words.join([g.name for g in there])} "
                 f"{'is' if len(there) == 1 and not there[0].members else 'are'} already "
                 f"there.")
    if any(g.replicated for g in ins):
        text += " A replicated array is copied whole to every device."
    elif any(g.shared for g in ins):
        text += " A tile held by several devices is copied whole to each of them."
    return text


def _compute_words(scene: Scene, step: Step, after: Step | None,
                   computes: int) -> tuple[str, str]:
    label = words.compute_label(step) or "no values in or out"
    suffix, loop = words.loop_words(step)
    lines = words.lines_text(step.source_lines)
    eqs = f" Equations: {words.primitives_text(step)}" + (f" ({lines})." if lines else ".")
    claims = scene.story.claims if scene.story is not None else None
    if not scene.parallel:
        dev = scene.devices[0].id
        how = ""
        if claims is not None:
            how = (" op by op, each primitive dispatched on its own"
                   if not claims.program.one_program else " as one compiled XLA program")
        return (f"Device {dev} computes{suffix}",
                f"Device {dev} runs {scene.function}{how}: {label}.{loop}{eqs}")
    n = len(scene.devices)
    if claims is not None and not claims.program.one_program:
        title = "The devices compute on their tiles" if after is None else \
            "Each device goes on alone"
        text = (f"Without jax.jit JAX dispatches each primitive on its own; as the program "
                f"jax.jit would compile, each of the {n} devices works on its own tiles: "
                f"{label}.")
    elif after is None and computes == 1:
        title = "Every device runs the same program on its own tiles"
        text = (f"All {n} devices run one compiled program at the same time, each on its own "
                f"tiles, without talking to each other: {label}.")
    elif after is None:
        title = "Every device computes on its own tiles"
        text = f"Each of the {n} devices works on its own tiles: {label}."
    else:
        assert after.collective is not None  # ``after`` is a collective step
        title = f"After the {after.collective.kind}: each device goes on alone"
        text = f"With the exchanged values in hand, every device continues on its own: {label}."
    if scene.global_program:
        text += (" (The jaxpr is the global program; XLA's SPMD partitioner made this "
                 "per-device one.)")
    return title + suffix, f"{text}{loop}{eqs}"


def _collective_words(scene: Scene, step: Step, index: int) -> tuple[str, str]:
    """A collective step's title and caption; ``index``: its place in the storyboard's
    steps (looking it up compared whole steps field by field: seconds on a train step)."""
    n = len(scene.devices)
    suffix, loop = words.loop_words(step)
    assert step.collective is not None  # a collective step
    across = words.processes_text(step.collective, {d.id: d.process for d in scene.devices})
    claims = scene.story.claims if scene.story is not None else None
    claim = claims.collective(index) if claims is not None else None
    origin = words.collective_origin(step, scene.function, claim)
    return (words.collective_title(step, n, claim) + suffix,
            f"{origin} {words.collective_action(step, n)}{across}{loop}".strip())


def _assemble_caption(scene: Scene) -> str:
    parts = []
    n = len(scene.devices)
    claims = scene.story.claims if scene.story is not None else None
    same = []
    for g in scene.shown("output"):
        name = f"{g.name} ({g.type_str})" if g.members else f"{g.name} {g.type_str}"
        if len(g.by_device) == 1:
            parts.append(f"{name} is one array on device {next(iter(g.by_device))}")
        elif g.replicated:
            parts.append(f"{name} is replicated on all {n}: every device holds the same "
                         f"whole copy")
        else:
            parts.append(f"{name} stays on the devices, {g.describe()}: each device holds "
                         f"{words.article(g.local_type_str)} block")
        for m in g.members or [g]:
            said = words.holding_words(claims.array(m.name) if claims is not None else None)
            if said:
                same.append(said)
    text = "; ".join(parts) + "." + "".join(same[:3])
    if scene.parallel and len(scene.processes) > 1:
        text += (f" It is one global jax.Array over {len(scene.processes)} processes: each "
                 f"process holds only its own blocks (addressable_shards), and no process "
                 f"holds the whole array.")
    elif scene.parallel:
        text += " It is still one jax.Array: np.asarray(out) would gather it to the host."
    return text


# --------------------------------------------------------------------------- #
# vmap: one computation on the whole batch, versus a Python loop (when one could)
# --------------------------------------------------------------------------- #


def _vmap_phases(scene: Scene, equations: list[Equation]) -> list[Phase]:
    v, b, story = scene.variant, scene.batch, scene.story
    assert b is not None and story is not None  # only a batched scene has these phases
    dev = scene.devices[0].id
    ins, outs = scene.shown("input"), scene.shown("output")
    one_in = [_drop_axis(g, scene.batch_axis(g)) for g in ins]
    one_out = [_drop_axis(g, scene.batch_axis(g)) for g in outs]
    per_call = f"{', '.join(one_in)} → {', '.join(one_out)}"
    whole = f"{', '.join(map(_typed, ins))} → {', '.join(map(_typed, outs))}"
    first = [_line(v, _top_lambda_line(scene.jaxpr_text))]
    every = _eq_ranges(v, [eq for eq in equations if not eq.subjaxprs])
    batched = [f"{g.name} (batch axis {scene.batch_axis(g)})" for g in ins
               if scene.batch_axis(g) is not None]
    shared = [g.name for g in ins if scene.batch_axis(g) is None]
    verb = "stacks" if len(batched) == 1 else "stack"
    host = (f"{words.join(batched)} {verb} {b.size} examples"
            + (f"; {words.join(shared)} {'is' if len(shared) == 1 else 'are'} shared by every "
               f"example" if shared else "")
            + f". {scene.function} itself is written for one example: {per_call}.")
    names = [g.name for g in scene.inputs]
    # where the batch is comes from the claims (arguments as passed), not the variant
    where_title, where = words.start_words(ins, story.claims)
    on_host = where_title == "The arrays start on the host" or not where
    if not on_host:
        host += f" {where}"
    phases = [Phase("host", f"A batch of {b.size} examples" + (" on the host" if on_host
                                                               else ""), host, first, 2.5,
                    arrays=names)]
    if b.loop_blocker:
        phases.append(Phase(
            "no_loop", "Without vmap: no Python loop can do this",
            f"A loop calling {scene.function} on one example at a time cannot compute this: "
            f"{b.loop_blocker}. Under vmap the collective runs over the whole batch at once.",
            _eq_ranges(v, [eq for eq in equations if eq.primitive in AXIS_PRIMITIVES]), 4.0))
    else:
        phases.append(Phase(
            "loop", "Without vmap: a Python loop",
            f"A Python loop could call {scene.function} {b.size} times, one example after "
            f"another: {b.size} separate calls, each {per_call}. It computes the same "
            f"result, one call at a time.", [], 4.5, compute_label=per_call,
            devices=[dev], arrays=names))
    if scene.one_program:
        how = (f"so device {dev} runs ONE compiled program on all {b.size} examples at once: "
               f"{whole}.")
        title = "With vmap: one program for the whole batch"
    else:
        how = (f"and without jax.jit JAX runs it op by op over the whole batch on device {dev}: "
               f"each primitive is dispatched once, on all {b.size} examples at once: {whole}.")
        title = "With vmap: op by op over the whole batch"
    caption = f"jax.vmap rewrites every equation to carry the batch axis, {how}"
    axis_ops = [eq for eq in equations if eq.primitive in AXIS_PRIMITIVES]
    if axis_ops and not story.collectives:
        prims = words.join(list(dict.fromkeys(eq.primitive for eq in axis_ops)))
        caption += (f" The {prims} becomes an operation along the batch axis of one array: "
                    f"no data leaves device {dev}.")
    phases.append(Phase("vectorized", title, caption, every, 3.0, compute_label=whole,
                        devices=[dev], arrays=names))
    for k, step in enumerate(story.steps):
        if step.collective is not None:
            t, c = _collective_words(scene, step, k)
            phases.append(Phase("collective", t, c, _eq_ranges(
                v, [equations[i] for i in step.equations if i < len(equations)]), 3.0,
                step=step, step_index=k, devices=_acting(step, [dev])))
    phases.append(Phase("result", "One batched result",
                        f"{_names(outs)}: {_batched_where(scene, outs, dev)}. To spread the "
                        f"batch over devices, use pmap or sharding.",
                        [_line(v, _last_line(scene.jaxpr_text))], 2.5, devices=[dev],
                        arrays=[g.name for g in scene.outputs]))
    return phases


def _batched_where(scene: Scene, outs: list[TileGrid], dev: int) -> str:
    """Where each output holds example k (vmap's out_axes, as JAX placed the batch)."""
    axes = [scene.batch_axis(g) for g in outs]
    one = f"one array on device {dev}" if len(outs) == 1 else f"arrays on device {dev}"
    if all(a == 0 for a in axes):
        return f"{one}, row k is example k's result"
    parts = []
    for g, a in zip(outs, axes):
        parts.append(f"{g.name}: row k is example k's result" if a == 0 else
                     f"{g.name}: slice k along axis {a} is example k's result" if a is not None else
                     f"{g.name} is one value for every example (out_axes None)")
    return f"{one}; {'; '.join(parts)}"


# --------------------------------------------------------------------------- #
# helpers
# --------------------------------------------------------------------------- #


def _names(grids: list[TileGrid]) -> str:
    return words.join([f"{g.name} ({g.type_str})" if g.members else f"{g.name} {g.type_str}"
                       for g in grids])


def _typed(g: TileGrid) -> str:
    """``f32[8,784]``, or ``params (4 arrays)`` for a folded pytree group."""
    return f"{g.name} ({g.type_str})" if g.members else g.type_str


def _drop_axis(g: TileGrid, axis: int | None) -> str:
    if g.members:
        return g.name
    dims = list(g.shape) if axis is None else g.shape[:axis] + g.shape[axis + 1:]
    return f"{g.dtype}[{','.join(map(str, dims))}]"


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


def _line(variant: str, line: int) -> Highlight:
    return variant, line, line


def _top_lambda_line(text: str) -> int:
    for i, line in enumerate(text.splitlines()):
        if line.startswith("{ lambda"):
            return i
    return 0


def _last_line(text: str) -> int:
    return max(len(text.splitlines()) - 1, 0)


def _container_lines(scene: Scene, equations: list[Equation], needle: str) -> list[Highlight]:
    """The ``in_specs=``/``out_specs=`` line of the variant's shard_map equation."""
    eq = next((e for e in equations if e.primitive == "shard_map"), None)
    if eq is None or eq.text_start is None or eq.text_end is None:
        return []
    lines = scene.jaxpr_text.splitlines()
    for i in range(eq.text_start, min(eq.text_end + 1, len(lines))):
        if needle in lines[i]:
            return [(scene.variant, i, i)]
    return []
