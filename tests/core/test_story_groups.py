"""The overview of a whole train step: its steps grouped by where they come from.

Generated N-layer GPT-style train steps (``tests/programs``), unrolled and
scanned, on a 2-D (4x2, FSDP x tensor parallel) and a 1-D (8, FSDP) mesh. The
groups are checked against JAX itself, read here without jaxviz's code:

* every step lies in exactly one innermost group, and the groups nest;
* every call stack a step is grouped by is one JAX recorded for an equation of
  ``jax.make_jaxpr(train_step)`` (``eqn.source_info``), and every group of a
  function call names a line that calls that function in the jaxpr's tracebacks;
* the forward / backward parts follow the name stack of the compiled HLO, read
  here with a regular expression of this test;
* the layers collapse: unrolled, the stretch of the 'block' calls is one group
  repeated N times (forward and backward); scanned, the loop running 'block'
  makes N iterations, the known_trip_count of a while loop in the compiled HLO.
"""

from __future__ import annotations

import re
from collections import Counter

import jax
import pytest
from jax._src import source_info_util
from jax.extend.core import jaxprs_in_params

from jaxviz import core
from jaxviz.model import Target, TraceRequest
from tests.programs import gpt_mesh, gpt_source, gpt_specs

# Not in the fast tier: compiles N-layer train steps.
pytestmark = pytest.mark.slow

FILE = "<editor:gpt_train.py>"

CASES = [(1, False, True), (2, True, True), (4, False, False), (4, True, False),
         (12, True, True),
         # 12 unrolled layers compile for minutes on two cores
         pytest.param((12, False, True), marks=pytest.mark.slow)]


def _case_id(case):
    layers, scanned, two_d = case
    return f"{layers}-{'scan' if scanned else 'unrolled'}-{'2d' if two_d else '1d'}"


@pytest.fixture(scope="module", params=CASES, ids=_case_id)
def traced(request):
    layers, scanned, two_d = request.param
    source = gpt_source(layers, scanned, (4, 2) if two_d else (8,))
    req = TraceRequest(target=Target(source, FILE, "train_step"), variants=["sharded"],
                       want=["jaxpr", "story", "hlo"], args="params, tokens, targets",
                       in_axes="None, None, None", mesh=gpt_mesh(two_d),
                       specs=gpt_specs(layers, scanned, two_d))
    result = core.trace_request(req)
    assert result.error is None, result.error
    vr = result.variants[0]
    assert vr.error is None, vr.error
    return request.param, source, result, vr


def _jaxpr_chains(source: str) -> set[tuple[tuple[str, int], ...]]:
    """Every user call stack (function, line), from train_step inward, of the jaxpr's equations.

    An equation of a nested jaxpr (a scan's body) records the frames from the body's
    function inward; the stack it runs under is its enclosing equation's plus those.
    """
    ns: dict = {}
    exec(compile(source, FILE, "exec"), ns)
    closed = jax.make_jaxpr(ns["train_step"])(ns["params"], ns["tokens"], ns["targets"])
    chains = set()

    def walk(jaxpr, outer: tuple[tuple[str, int], ...]):
        for eqn in jaxpr.eqns:
            frames = tuple((f.function_name, f.start_line)
                           for f in source_info_util.user_frames(eqn.source_info.traceback)
                           if f.file_name == FILE)[::-1]
            starts = [k for k, (fn, _) in enumerate(frames) if fn == "train_step"]
            chain = frames[starts[-1]:] if starts else outer + frames
            chains.add(chain)
            for sub in jaxprs_in_params(eqn.params):
                walk(sub, chain)

    walk(closed.jaxpr, ())
    return chains


def test_every_step_is_in_exactly_one_innermost_group_and_groups_nest(traced):
    _assert_nested(traced[3].storyboard)


def _assert_nested(sb):
    groups = sb.groups
    assert groups and groups[0].kind == "program"
    assert (groups[0].first, groups[0].last) == (0, len(sb.steps) - 1)
    for k, g in enumerate(groups[1:], 1):
        parent = groups[g.parent]
        assert g.parent < k and parent.first <= g.first <= g.last <= parent.last, g.name
    for k, step in enumerate(sb.steps):
        holding = [j for j, g in enumerate(groups) if g.first <= k <= g.last]
        # the groups holding a step are one chain, each inside the one before
        chain = sb.group_path(holding[-1])
        assert holding == chain, (k, [groups[j].name for j in holding])
        assert step.group == holding[-1], (k, step.group, holding)
    names = [g.name for g in groups]
    assert len(names) == len(set(names))


def test_grouped_call_stacks_are_the_jaxprs_source_info(traced):
    _, source, _, vr = traced
    sb = vr.storyboard
    chains = _jaxpr_chains(source)
    called = {(chain[d][0], chain[d - 1][1]) for chain in chains for d in range(1, len(chain))}
    with_calls = [s for s in sb.steps if s.calls]
    assert len(with_calls) >= len(sb.steps) * 3 // 4
    for s in with_calls:
        assert tuple((c.function, c.line) for c in s.calls) in chains, s.calls
    for g in sb.groups:
        if g.kind == "call" or (g.kind == "repeat" and g.function and g.line):
            assert (g.function, g.line) in called, (g.name, g.function, g.line)
            lines = source.splitlines()
            assert re.search(rf"\b{re.escape(g.function.split('.')[-1])}\b|lambda",
                             lines[g.line - 1]), (g.name, lines[g.line - 1])


def test_parts_follow_the_name_stack_of_the_compiled_hlo(traced):
    _, _, _, vr = traced
    sb = vr.storyboard
    # this test's own reading of the HLO: every instruction's op_name, by name
    op_names = dict(re.findall(r'%([\w.\-]+) = .*?op_name="([^"]*)"', vr.hlo))
    for s in sb.steps:
        if s.collective is None:
            continue
        # a combined collective lists every op it serves, split by ':'
        pieces = op_names.get(s.hlo[0], "").split(":")
        backward = sum("transpose(" in p for p in pieces)
        forward = sum("jvp(" in p and "transpose(" not in p for p in pieces)
        if backward or forward:
            assert s.part == ("backward" if backward >= forward else "forward"), (s.hlo, pieces)
    # a compute step's part is that of instructions it runs (a fusion carries the op_name
    # of what it fused): the backward pass's steps that XLA runs early are such steps
    for s in sb.steps:
        named = [op_names[h] for h in s.hlo if h in op_names]
        if s.collective is not None or s.part not in ("forward", "backward") or not named:
            continue
        if s.part == "backward":
            assert any("transpose(" in n for n in named), (s.hlo, named)
        else:
            assert any("jvp(" in n and "transpose(" not in n for n in named), (s.hlo, named)
    parts = {s.part for s in sb.steps}
    assert {"forward", "backward", "update"} <= parts


def test_a_train_step_reads_forward_backward_update_and_says_what_xla_moved(traced):
    """XLA runs some backward-pass steps (those that need only the parameters) among the
    forward ones: the overview still reads forward pass, backward pass, update, once each,
    and each part's title counts the steps of the other parts that run in its stretch."""
    _, _, _, vr = traced
    sb = vr.storyboard
    groups = sb.groups
    parts = [g for g in groups if g.parent == 0 and g.kind == "part"]
    assert [g.name for g in parts] == ["forward", "backward", "update"]
    assert parts[0].first <= parts[0].last < parts[1].first <= parts[1].last < parts[2].first
    words = {"forward": "the forward pass", "backward": "the backward pass",
             "update": "the update"}
    for g in parts:
        others = Counter(sb.steps[k].part for k in range(g.first, g.last + 1)
                         if sb.steps[k].part and sb.steps[k].part != g.name)
        for part, n in others.items():
            assert f"{n} step{'s' if n != 1 else ''} of {words[part]}" in g.title, g.title
        if not others:
            assert "XLA runs" not in g.title, g.title
        # each step's own part is its own (the name stack's: see the test above)
        assert all(sb.steps[k].part in ("", g.name) or sb.steps[k].part in others
                   for k in range(g.first, g.last + 1))


def test_the_layers_collapse_to_the_layer_count(traced):
    (layers, scanned, _), _, _, vr = traced
    sb = vr.storyboard
    groups = sb.groups
    blocks = [g for g in groups if g.function == "block" and g.iteration is None]
    assert blocks
    forward = [g for g in blocks if "backward" not in g.name]
    backward = [g for g in blocks if g.name.startswith("backward")]
    assert forward
    if scanned:
        trips = [int(n) for n in re.findall(r'"known_trip_count":\{"n":"(\d+)"', vr.hlo)]
        assert layers in trips
        for part in (forward, backward):
            if not part:
                continue
            looped = []
            for g in part:
                loops = [groups[j] for j in sb.group_path(groups.index(g))
                         if groups[j].kind == "loop"]
                if loops:
                    assert [lp.trip_count for lp in loops] == [layers], g.name
                    assert loops[0].title.endswith(f"{layers} iterations")
                    looped.append(g)
            # the layers' work runs inside the loop: most of the part's block steps
            inside = sum(g.last - g.first + 1 for g in looped)
            assert looped and inside >= sum(g.last - g.first + 1 for g in part) / 2
    else:
        # the layers run one after another: a stretch of the block's steps repeated once
        # per layer (the forward pass always; the backward pass where its collectives
        # stay in the blocks)
        def of_block(g):
            return all(any(c.function == "block" for c in sb.steps[k].calls)
                       for k in range(g.first, g.last + 1))

        repeats = [g for g in groups if g.kind == "repeat" and of_block(g)]
        if layers == 1:
            assert not [g for g in repeats if g.function == "block"]
            return
        # the blocks' group repeated, or (XLA fusing every layer's compute into one step)
        # the runs of their parameters' collectives, one stretch a layer
        assert [g for g in repeats if "backward" not in g.name]
        for g in repeats:
            assert g.repeat == layers, g.title
            assert f"x{layers}" in g.title
            children = [c for c in groups if c.parent == groups.index(g)]
            assert [c.iteration for c in children] == list(range(1, layers + 1))
            _assert_alike(sb, g, children)


def _assert_alike(sb, g, children):
    """The repetitions are alike: the same kinds of collectives in each; the last one may
    lack some of its last ones when the title says so. (Steps of another part of the train
    step that XLA runs among them are not theirs.)"""
    part = g.name.split("/")[0]
    kinds = [[sb.steps[k].collective.kind for k in range(c.first, c.last + 1)
              if sb.steps[k].collective and sb.steps[k].part in ("", part)] for c in children]
    assert all(k == kinds[0] for k in kinds[:-1]), g.title
    if kinds[-1] != kinds[0]:
        assert g.title.endswith("(the last one shorter)"), g.title
        assert kinds[0][:len(kinds[-1])] == kinds[-1], g.title


@pytest.fixture(scope="module")
def own_unrolled():
    """The 12-layer train step of tests/programs/gpt_train_step.py, unrolled, sharded FSDP x
    tensor parallel: a user's own file, where XLA runs each layer's parameter gathers and
    the backward pass's parameter-only steps among the forward pass's."""
    from jaxviz.model.sources import resolve_target
    from tests.programs import gpt_train_step as gpt

    target, _ = resolve_target(f"{gpt.__file__}:train_step_unrolled")
    req = TraceRequest(target=target, args=gpt.args_text(scanned=False), variants=["sharded"],
                       mesh=gpt.MESH_TEXT, specs=gpt.specs_text(scanned=False),
                       want=["jaxpr", "story"])
    result = core.trace_request(req)
    assert result.error is None, result.error
    vr = result.variants[0]
    assert vr.error is None, vr.error
    layers = len(eval(gpt.args_text(scanned=False), vars(gpt))[0]["layers"])
    return layers, vr.storyboard


def test_an_own_unrolled_train_steps_layers_read_as_repeats_of_the_layer_count(own_unrolled):
    """Most of the forward pass's steps that run 'block' read as 'block x12' (the last
    repetition shorter where XLA fused its last step with other work), and the backward
    pass's as well; the steps before and after the repetitions stay beside them."""
    layers, sb = own_unrolled
    _assert_nested(sb)
    groups = sb.groups
    for part in ("forward", "backward"):
        top = next(g for g in groups if g.parent == 0 and g.name == part)
        in_block = {k for k in range(top.first, top.last + 1)
                    if any(c.function == "block" for c in sb.steps[k].calls)}
        repeats = [(j, r) for j, r in enumerate(groups) if r.kind == "repeat"
                   and r.function == "block" and r.name.startswith(part + "/")]
        assert repeats, part
        repeated = set()
        for j, r in repeats:
            assert r.repeat == layers and f"x{layers}" in r.title, r.title
            children = [c for c in groups if c.parent == j]
            assert [c.iteration for c in children] == list(range(1, layers + 1))
            _assert_alike(sb, r, children)
            repeated |= set(range(r.first, r.last + 1))
        assert 3 * len(in_block & repeated) >= 2 * len(in_block), part


# --------------------------------------------------------------------------- #
# The device view's overview and strip, over the same programs
# --------------------------------------------------------------------------- #

_DTYPE_BYTES = {"f32": 4, "s32": 4, "u32": 4, "bf16": 2, "f16": 2, "pred": 1, "s8": 1, "u8": 1,
                "f64": 8, "s64": 8}


def _hlo_result_bytes(hlo: str, name: str) -> int | None:
    """This test's reading: the bytes of instruction ``name``'s result type in the HLO text."""
    m = re.search(rf"%{re.escape(name)} = (\w+)\[([\d,]*)\]", hlo)
    if m is None:
        return None
    n = 1
    for d in filter(None, m.group(2).split(",")):
        n *= int(d)
    return n * _DTYPE_BYTES[m.group(1)]


def test_every_phase_is_in_exactly_one_innermost_overview_row(traced):
    from jaxviz.views.devices import build_scene
    from jaxviz.views.devices.overview import build_overview, innermost_row

    _, _, result, vr = traced
    scene = build_scene(result, "sharded")
    rows = build_overview(scene)
    groups = vr.storyboard.groups
    for k, phase in enumerate(scene.phases):
        spanning = [r for r, row in enumerate(rows) if row.first <= k <= row.last]
        assert spanning, k
        deepest = max(rows[r].depth for r in spanning)
        assert [r for r in spanning if rows[r].depth == deepest] == [innermost_row(rows, k)]
        # the rows spanning a phase are one chain of parents
        for r in spanning:
            parent = rows[r].parent
            assert parent is None or parent in spanning
        if phase.step_index is not None:
            step = vr.storyboard.steps[phase.step_index]
            assert rows[innermost_row(rows, k)].name == groups[step.group].name
        else:
            assert rows[innermost_row(rows, k)].kind == "arrays"


def test_the_strip_marks_every_phase_sized_by_the_bytes_the_hlo_moves(traced):
    from jaxviz.views.devices import build_scene
    from jaxviz.views.devices.overview import build_overview
    from jaxviz.views.devices.strip import strip_layout

    _, _, result, vr = traced
    scene = build_scene(result, "sharded")
    strip = strip_layout(scene, build_overview(scene), 1200.0)
    assert [m.phase for m in strip.marks] == list(range(len(scene.phases)))
    checked = 0
    for m in strip.marks:
        step = scene.phases[m.phase].step
        if step is None or step.collective is None:
            assert m.bytes == 0
            continue
        assert m.kind == step.collective.kind
        if step.collective.kind in ("all-gather", "all-reduce") and not step.hlo[0].endswith(
                "-start"):
            expected = _hlo_result_bytes(vr.hlo, step.hlo[0])
            if expected is not None:
                assert m.bytes == expected, (step.hlo, m.bytes, expected)
                checked += 1
    assert checked >= 4
    sized = sorted((m.bytes, m.height) for m in strip.marks if m.bytes)
    assert all(a[1] <= b[1] for a, b in zip(sized, sized[1:]))  # more bytes, taller mark
    assert strip.phase_at(strip.x_of(len(scene.phases) // 2)) == len(scene.phases) // 2


def test_the_presentation_has_one_device_slide_per_group(traced):
    from jaxviz.views.devices import build_scene
    from jaxviz.views.devices.overview import build_overview
    from jaxviz.views.present.deck import FunctionData, _device_slides
    from jaxviz.views.present.lecture import LectureStep

    (layers, scanned, _), _, result, _ = traced
    if (layers, scanned) != (2, True):
        pytest.skip("one program is enough")
    scene = build_scene(result, "sharded")
    rows = build_overview(scene)
    top = [r for r in rows if r.depth == 1 or (r.depth == 0 and r.kind == "arrays")]
    step = LectureStep(view="device", target="x.py:train_step", variant="sharded")
    slides = _device_slides(step, FunctionData(key="k", target_text="", result=result),
                            "sharded", "train step")
    assert [s.phase for s in slides] == [r.first for r in top]
    assert all(r.title in s.caption for r, s in zip(top, slides))


def test_the_device_view_strip_and_tree_jump_to_phases(traced, qtbot):

    from PySide6.QtCore import QPoint, Qt

    from jaxviz.ui.devices import DeviceView
    from jaxviz.ui.devices.overview import PAD
    from jaxviz.views import palette

    (layers, scanned, _), _, result, _ = traced
    if (layers, scanned) != (2, True):
        pytest.skip("one program is enough")
    view = DeviceView()
    qtbot.addWidget(view)
    view.resize(1280, 720)
    view.show()
    view.set_result(result, "sharded")
    qtbot.waitExposed(view)
    assert view.strip.isVisible() and view.tree.isVisible()
    strip = view.strip.strip()
    assert strip is not None and len(strip.marks) == len(view.phases)
    # a click on a collective's mark shows that phase
    mark = next(m for m in strip.marks if m.bytes)
    x = int(PAD + strip.x_of(mark.phase))
    qtbot.mouseClick(view.strip, Qt.MouseButton.LeftButton, pos=QPoint(x, 10))
    assert view.current_phase == mark.phase
    # the mark is drawn in its kind's colour at its foot (left of the cursor at its centre)
    assert strip.slot > 6
    image = view.strip.grab().toImage()
    foot = image.pixelColor(int(PAD + mark.x + 1), PAD + 30 - 1).name()
    assert foot.lower() == palette.STRIP_COLOURS[mark.kind].lower()
    # a click on a group's row shows its first phase
    k = next(i for i, r in enumerate(view.overview) if r.depth == 1 and r.first > 3)
    view.tree.itemClicked.emit(view.tree.items[k], 0)
    assert view.current_phase == view.overview[k].first
    assert view.show_group(view.overview[k].name) and view.current_phase == view.overview[k].first
    # a row too long for the tree is elided; its hover text says it whole, and its name
    for item, row in zip(view.tree.items, view.overview):
        tip = item.toolTip(0)
        assert tip.startswith(row.title) and tip.endswith(f"(group {row.name})"), tip
