"""A big program's views filled in steps (issue 28: no GUI-thread stall while it loads).

The compare layout of a train step (two variants of a few thousand jaxpr lines) is
diffed, laid out and put on screen in steps of a few milliseconds on the GUI thread
(:class:`jaxviz.ui.sliced.SlicedJob`), and a long jaxpr is lexed the same way. What
these tests hold: the event loop turns while that happens, and what ends up on screen
is whole -- every line of each side is a line of the jaxpr JAX printed for that variant,
and the layout shown is the one the diff computes at once; the pane's
text is JAX's jaxpr text and its colours are the ones Qt's own per-line pass gives.
"""

from __future__ import annotations

import functools

import pytest

from jaxviz.model import Target, TraceRequest
from tests.helpers.window import event_loop_turns

# Not in the fast tier: traces a train step with JAX.
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def train_step():
    from jaxviz import core
    from tests.programs import gpt_mesh, gpt_source, gpt_specs

    core.configure_devices(8)
    result = core.trace_request(TraceRequest(
        target=Target(gpt_source(2), "<editor:gpt_train.py>", "train_step"),
        variants=["plain", "sharded"], want=["jaxpr"], args="params, tokens, targets",
        in_axes="None, None, None", mesh=gpt_mesh(), specs=gpt_specs(2)))
    for vr in result.variants:
        assert vr.error is None, vr.error
    return result


def test_the_compare_layout_of_a_train_step_is_put_on_screen_in_steps(qtbot, train_step):
    from jaxviz.ui.compare.compare_view import BACKGROUND_CHARS, CompareView
    from jaxviz.views.compare.diff_layout import side_by_side
    from jaxviz.views.compare.jaxpr_diff import diff_variants

    left, right = train_step.variant("plain"), train_step.variant("sharded")
    assert max(len(left.jaxpr_text), len(right.jaxpr_text)) >= BACKGROUND_CHARS
    view = CompareView()
    qtbot.addWidget(view)
    view.resize(1280, 720)
    view.show()
    view.set_pair("plain", "sharded")
    ticks = event_loop_turns(qtbot, lambda: view.busy)
    view.show_result(train_step)
    assert view.busy and view.diff is None  # show_result returned before the work was done
    # what is coming is said in the first step (its paint paid by the steps' budget, not by
    # the turn the result came in)
    qtbot.waitUntil(lambda: "comparing plain and sharded" in view.error_text, timeout=5000)
    assert view.diff is None and view.calls["right"].text() == right.call
    assert view.banner.property("severity") == "info"  # work under way, not a fault
    qtbot.waitUntil(lambda: not view.busy, timeout=120000)
    assert view._job is not None and view._job.turns > 10 and len(ticks) > 5
    assert view.error_text == ""
    # what is shown is the diff computed at once, whole
    expected = side_by_side(diff_variants(left, right))
    assert [r.kind for r in view.diff.rows] == [r.kind for r in expected.diff.rows]
    for which, side in (("left", view.columns.left), ("right", view.columns.right)):
        shown = side.toPlainText().split("\n")
        assert shown == [line.text for line in expected.side(which)]
        assert side.document().blockCount() == len(expected.side(which))
        # every equation line shown is a line of the jaxpr JAX printed
        jaxpr = (left if which == "left" else right).jaxpr_text.split("\n")
        numbers = [line.jaxpr_line for line in expected.side(which) if line.jaxpr_line >= 0]
        assert len(set(numbers)) > 500
        for line in expected.side(which):
            if line.jaxpr_line >= 0:
                assert line.text.strip() == jaxpr[line.jaxpr_line].strip()
    # the changed tokens are on screen: one extra selection per changed span
    spans = sum(len(line.spans) for line in expected.side("right"))
    assert spans and len(view.columns.right._layers["tokens"]) == spans


def test_the_bands_drawn_once_are_drawn_again_when_they_move(qtbot, train_step):
    from jaxviz.ui.compare.compare_view import CompareView

    view = CompareView()
    qtbot.addWidget(view)
    view.resize(1280, 720)
    view.show()
    view.set_pair("plain", "sharded")
    view.show_result(train_step)
    qtbot.waitUntil(lambda: not view.busy and view.diff is not None, timeout=120000)
    gutter, bar = view.columns.gutter, view.columns.right.verticalScrollBar()
    seen = []
    for value in (0, bar.maximum() // 3, bar.maximum() // 3 + 7, 0):
        bar.setValue(value)
        qtbot.wait(20)
        kept = gutter.grab().toImage()  # what the gutter shows (drawn again or kept)
        bands = gutter.bands()
        gutter._drawn = None  # drawn from scratch: the same picture
        assert gutter.grab().toImage() == kept, value
        seen.append((tuple(bands), kept))
    assert seen[0][0] != seen[1][0] != seen[2][0]  # the bands moved with the rows
    assert seen[0][0] == seen[3][0] and seen[0][1] == seen[3][1]


def test_a_newer_result_cancels_the_comparison_under_way(qtbot, train_step):
    from jaxviz.ui.compare.compare_view import CompareView

    view = CompareView()
    qtbot.addWidget(view)
    view.set_pair("plain", "sharded")
    view.show_result(train_step)
    first = view._job
    qtbot.wait(30)
    view.set_pair("sharded", "plain")  # asks again, the other way round
    assert first is not None and not first.busy  # cancelled, never shown
    qtbot.waitUntil(lambda: not view.busy, timeout=120000)
    assert (view.diff.left, view.diff.right) == ("sharded", "plain")
    sharded = train_step.variant("sharded").jaxpr_text.split("\n")
    shown = view.columns.left.lines  # the sharded variant's lines, now on the left
    assert view.columns.left.toPlainText() == "\n".join(line.text for line in shown)
    assert all(line.text.strip() == sharded[line.jaxpr_line].strip()
               for line in shown if line.jaxpr_line >= 0)


def test_a_train_step_jaxpr_goes_into_a_pane_whole_and_is_coloured_in_steps(qtbot, train_step):
    from jaxviz.ui.text.code_view import CodeView
    from jaxviz.ui.text.highlighters import LONG_LINES, jaxpr_highlighter, lexers

    lexers().make("jaxpr")
    text = train_step.variant("sharded").jaxpr_text
    assert text.count("\n") > LONG_LINES
    chunked, plain = CodeView(jaxpr_highlighter), CodeView(jaxpr_highlighter)
    plain.highlighter.chunked = False  # Qt's own highlighting of every line, at once
    for view in (chunked, plain):
        qtbot.addWidget(view)
    ticks = event_loop_turns(qtbot, lambda: chunked.highlighter.lexing)
    chunked.set_text(text)
    assert chunked.highlighter.lexing
    qtbot.waitUntil(lambda: chunked.highlighter._job is not None, timeout=10000)
    job = chunked.highlighter._job  # (started on the next turn)
    qtbot.waitUntil(lambda: not chunked.highlighter.lexing, timeout=120000)
    assert job is not None and job.turns > 1 and len(ticks) > 1
    assert chunked.toPlainText() == text  # JAX's jaxpr text, whole
    plain.set_text(text)

    def formats(view, n):
        return [(r.start, r.length, r.format.foreground().color().name())
                for r in view.document().findBlockByNumber(n).layout().formats()]

    last = text.count("\n")
    for n in (0, last // 3, last // 2, last):
        assert formats(chunked, n) == formats(plain, n)
    assert any(formats(chunked, n) for n in range(last // 2, last // 2 + 20))


@pytest.fixture(scope="module")
def train_step_story():
    from jaxviz import core
    from tests.programs import gpt_mesh, gpt_source, gpt_specs

    core.configure_devices(8)
    result = core.trace_request(TraceRequest(
        target=Target(gpt_source(1), "<editor:gpt_train.py>", "train_step"),
        variants=["sharded"], want=["jaxpr", "story"], args="params, tokens, targets",
        in_axes="None, None, None", mesh=gpt_mesh(), specs=gpt_specs(1)))
    vr = result.variant("sharded")
    assert vr.error is None and vr.storyboard is not None
    return result


def test_a_big_storyboard_becomes_the_device_view_in_steps(qtbot, train_step_story,
                                                            monkeypatch):
    from jaxviz.ui.devices import view as view_module
    from jaxviz.ui.sliced import SlicedJob
    from jaxviz.views.devices import build_scene

    steps = train_step_story.variant("sharded").storyboard.steps
    monkeypatch.setattr(view_module, "STEPPED_SCENE", 20)  # a 1-layer step is big enough
    # ... in slices of 0.5 ms (a quiet machine builds its scene within one 6 ms slice)
    monkeypatch.setattr(view_module, "SlicedJob", functools.partial(SlicedJob, slice_ms=0.5))
    assert len(steps) >= 20
    view = view_module.DeviceView()
    qtbot.addWidget(view)
    view.resize(1280, 720)
    view.show()
    ticks = event_loop_turns(qtbot, lambda: view.busy)
    shown: list[tuple[str, bool, bool]] = []  # each scene shown: its message, busy, phases
    show = view._show

    def recorded(*args, **kwargs):
        out = show(*args, **kwargs)
        shown.append((view.scene.error or "", view.busy, bool(view.phases)))
        return out

    monkeypatch.setattr(view, "_show", recorded)
    view.set_result(train_step_story, "sharded")
    assert view.busy and not view.phases  # set_result returned before the scene was built
    job = view._scene_job
    # what is coming is said in the job's first step (its paint paid by the steps' budget,
    # not by the turn the result came in); recorded as shown (a quick machine builds the
    # scene between two looks of a wait)
    assert "Preparing the" not in (view.scene.error or "")
    qtbot.waitUntil(lambda: any("Preparing the" in said for said, _, _ in shown), timeout=5000)
    said = next(entry for entry in shown if "Preparing the" in entry[0])
    assert said[1] and not said[2]  # still busy, no phases yet
    qtbot.waitUntil(lambda: not view.busy and bool(view.phases), timeout=60000)
    assert job is not None and job.turns > 1 and len(ticks) >= 1
    # the scene shown is the one built at once: a phase per storyboard step, in its order
    whole = build_scene(train_step_story, "sharded")
    assert [(p.kind, p.title, p.caption) for p in view.phases] == \
        [(p.kind, p.title, p.caption) for p in whole.phases]
    assert [p.step_index for p in view.phases if p.step_index is not None] == \
        list(range(len(steps)))
    assert sum(p.kind == "collective" for p in view.phases) == \
        sum(s.collective is not None for s in steps)


def test_a_big_programs_group_tree_made_in_steps_is_its_overview(qtbot, train_step_story,
                                                                 monkeypatch):
    from jaxviz.ui.devices import view as view_module
    from jaxviz.ui.devices.overview import GroupTree
    from jaxviz.views.devices import build_scene
    from jaxviz.views.devices.overview import build_overview

    monkeypatch.setattr(view_module, "STEPPED_SCENE", 20)  # a 1-layer step is big enough
    view = view_module.DeviceView()
    qtbot.addWidget(view)
    view.resize(1280, 720)
    view.show()
    made: list[int] = []  # the items made per step, ahead of the scene's arrival
    steps = GroupTree.items_steps

    def counted(rows, per_step=40):
        made.append(len(rows))
        return (yield from steps(rows, per_step=5))

    monkeypatch.setattr(GroupTree, "items_steps", staticmethod(counted))
    view.set_result(train_step_story, "sharded")
    qtbot.waitUntil(lambda: not view.busy and bool(view.phases), timeout=60000)
    tree = view.tree
    assert tree.isVisible() and made == [len(view.overview)]
    # the groups shown are the scene's overview (the groups of the storyboard's phases,
    # tested against the program in tests/core/test_story_groups.py), in order, nested
    rows = build_overview(build_scene(train_step_story, "sharded"))
    assert [(r.title, r.first, r.last, r.parent) for r in view.overview] == \
        [(r.title, r.first, r.last, r.parent) for r in rows]

    def shown(item, depth=0):
        yield depth, item.text(0), item.text(1), item.isExpanded()
        for k in range(item.childCount()):
            yield from shown(item.child(k), depth + 1)

    stepped = [row for k in range(tree.topLevelItemCount())
               for row in shown(tree.topLevelItem(k))]
    at_once = GroupTree()
    qtbot.addWidget(at_once)
    at_once.set_rows(rows)
    expected = [row for k in range(at_once.topLevelItemCount())
                for row in shown(at_once.topLevelItem(k))]
    assert stepped == expected and len(stepped) == len(rows)
    assert [d for d, *_ in stepped] == [r.depth for r in rows]
    assert all(text1 == f"{r.first + 1}–{r.last + 1}"
               for (_d, _t, text1, _e), r in zip(stepped, rows))


def test_the_next_phase_drawn_ahead_while_playing_is_the_phase_drawn_at_once(
        qtbot, train_step_story):
    from jaxviz.ui.devices.view import DeviceView
    from jaxviz.views.incremental import run_to_end

    view = DeviceView()
    qtbot.addWidget(view)
    view.resize(1280, 720)
    view.show()
    view.set_result(train_step_story, "sharded")
    qtbot.waitUntil(lambda: bool(view.phases), timeout=60000)
    k = next(n for n, p in enumerate(view.phases) if p.kind == "collective")
    view.set_speed(0.05)  # slow: the next phase is drawn ahead long before it starts
    view.seek(k, 0.0)
    view.play()
    canvas = view.canvas
    qtbot.waitUntil(lambda: k + 1 in canvas._static and canvas._prefetching == -1,
                    timeout=30000)
    assert view.current_phase == k  # drawn ahead, not when shown
    ahead = canvas._static[k + 1].toImage()
    at_once = run_to_end(canvas._layer_steps(canvas.builder(), k + 1)).toImage()
    view.pause()
    assert ahead.size() == at_once.size() and ahead == at_once
    # and the layer is the phase's own: its caption's first words are drawn in it
    assert ahead != canvas._static[k].toImage()


def test_a_caption_too_long_for_its_band_keeps_as_many_words_as_fit(qapp):
    from PySide6.QtCore import QRectF, Qt
    from PySide6.QtGui import QFontMetricsF

    from jaxviz.ui.devices.painter import ItemPainter
    from jaxviz.views.devices.items import Text

    words = [f"word{n}" for n in range(400)]
    text = Text((0, 0, 300, 60), " ".join(words), 14.0, "#000000", wrap=True)
    painter = ItemPainter()
    font, shown = painter._fit(text, 300, 60)
    metrics = QFontMetricsF(font)

    def height(s: str) -> float:
        return metrics.boundingRect(QRectF(0, 0, 300, 1e6), int(Qt.TextFlag.TextWordWrap),
                                    s).height()

    kept = shown.removesuffix(" …").split()
    assert shown.endswith(" …") and kept == words[:len(kept)] and len(kept) > 5
    assert height(shown) <= 60  # Qt's own measure: it fits
    assert height(" ".join(words[:len(kept) + 1]) + " …") > 60  # and one more word does not


def test_the_gutter_of_a_folded_train_step_pane_lists_the_lines_qt_shows(qtbot, train_step):
    """The gutter skips folded regions whole (not block by block); the lines it lists are
    still every shown block Qt lays out in the viewport, from the top, at Qt's heights."""
    from jaxviz.ui.panes.jaxpr_pane import JaxprPane

    vr = train_step.variant("sharded")
    pane = JaxprPane("sharded")
    qtbot.addWidget(pane)
    pane.resize(700, 900)
    pane.show()
    pane.show_result(vr, [])
    qtbot.waitUntil(lambda: not pane.filling, timeout=20000)  # (a big jaxpr: in steps)
    view = pane.jaxpr_view
    assert view._folded  # a big jaxpr opens folded
    for value in (0, view.verticalScrollBar().maximum() // 2, view.verticalScrollBar().maximum()):
        view.verticalScrollBar().setValue(value)
        qtbot.wait(10)
        brute = []
        block, offset = view.firstVisibleBlock(), view.contentOffset()
        while block.isValid():
            geo = view.blockBoundingGeometry(block).translated(offset)
            if block.isVisible():
                if geo.top() > view.viewport().height():
                    break
                brute.append((block.blockNumber(), int(geo.top()), int(geo.bottom())))
            block = block.next()
        assert list(view.visible_lines()) == brute and brute
