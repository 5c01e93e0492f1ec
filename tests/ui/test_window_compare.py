"""The compare layout in the window, against the real JAX engine.

What a lecturer checks, one test each: the layout for convolve plain -> vmap
shows every row of the diff exactly once, in order, each side's lines being the
variant's own jaxpr lines; the bands join the rows they pair (their ends are the
rows' rectangles, their pixels the band colour); the batch axis inside a type is
drawn in the batch colour (pixels under the ``8`` JAX printed); a row clicked
lights its source line in the editor and a source line hovered lights its rows;
the vmap pane's gutter marks are what the diff says; a variant no pane shows is
traced when picked; Close gives back the panes, the editor's width and the side
panels; a user's own file compares as an example does; and on every gallery
example, each pane's Compare button shows its variant against the base.
"""

from __future__ import annotations

import re

import pytest
from PySide6.QtCore import QPoint, Qt

from jaxviz.model import list_examples
from jaxviz.ui.compare.diff_columns import diff_colour
from jaxviz.ui.theme import style
from jaxviz.views import palette
from jaxviz.views.compare.jaxpr_diff import diff_variants
from jaxviz.views.panes.link_index import walk
from tests.helpers.window import close, flush_events, line_of, pixel, wait_for_panes

# Not in the fast tier: the window on the real engine.
pytestmark = pytest.mark.slow


def _open(qtbot, win, example: str = "convolve") -> None:
    win.open_example(example)
    wait_for_panes(qtbot, win, lambda: win.router.result is not None
                   and win.state.function == win.router.result.function)


def _compare(qtbot, win, left: str, right: str):
    win.state.compared = (left, right)
    view = win.area.compare
    wait_for_panes(qtbot, win, lambda: view.diff is not None
                   and (view.diff.left, view.diff.right) == (left, right))
    flush_events()  # laid out as the next paint shows it
    return view


def _equations(vr):
    return [eqn for _path, eqn in walk(vr.equations)]


def test_convolve_plain_vmap_shows_every_row_once_in_order(qtbot, window):
    _open(qtbot, window)
    pane = window.area.panes["vmap"]
    qtbot.mouseClick(pane.compare_button, Qt.MouseButton.LeftButton)  # the pane's own button
    view = window.area.compare
    wait_for_panes(qtbot, window, lambda: view.diff is not None)
    assert window.area.comparing and window.area.currentWidget() is view
    assert (view.diff.left, view.diff.right) == ("plain", "vmap")
    result = window.router.result
    plain, vmap = result.variant("plain"), result.variant("vmap")
    diff = diff_variants(plain, vmap)
    assert view.summary.text() == diff.summary == \
        "10 equations gained the batch axis, 0 added, 0 removed"
    for which, vr in (("left", plain), ("right", vmap)):
        side_view = getattr(view.columns, which)
        shown = side_view.toPlainText().split("\n")
        rows = [line.row for line in side_view.lines]
        assert len(shown) == len(rows)
        # Rows appear in the diff's order, each in one run of lines, none twice ...
        order = [r for n, r in enumerate(rows) if r >= 0 and (n == 0 or rows[n - 1] != r)]
        assert order == [r for r, row in enumerate(diff.rows) if getattr(row, which)]
        # ... every equation of the variant once, and its lines are JAX's own lines.
        assert len(order) == len(_equations(vr))
        text = vr.jaxpr_text.split("\n")
        for r in order:
            side = getattr(diff.rows[r], which)
            mine = [shown[n].strip() for n, row in enumerate(rows) if row == r]
            assert mine == [text[n].strip() for n in side.text_lines]
    # Both sides are as long (filler pads the shorter), so rows stay level.
    assert view.columns.left.blockCount() == view.columns.right.blockCount()


def test_bands_join_the_rows_they_pair(qtbot, window):
    _open(qtbot, window)
    view = _compare(qtbot, window, "plain", "vmap")
    columns, gutter = view.columns, view.columns.gutter
    bands = gutter.bands()
    assert bands
    for band in bands:
        block = columns.diff_layout.blocks[band.block]
        [row] = block.rows  # plain -> vmap pairs every equation: one row per block
        for which in ("left", "right"):
            rect = columns.row_rect(row, which)
            top = rect.top() - gutter.y()
            assert (getattr(band, f"{which}_top"), getattr(band, f"{which}_bottom")) == \
                (top, top + rect.height()), (row, which)
    # Inside a band, the gutter is the band's colour (the batch axis: every pair here).
    first = bands[0]
    y = (first.left_top + first.left_bottom) // 2
    assert close(pixel(gutter, gutter.width() // 2, y),
                 diff_colour("batch", palette.DIFF_BAND_MIX))


def test_the_batch_axis_in_a_type_is_drawn_in_the_batch_colour(qtbot, window):
    _open(qtbot, window)
    view = _compare(qtbot, window, "plain", "vmap")
    batch = window.router.result.variant("vmap").invars[0].shape[0]
    right = view.columns.right
    text = right.toPlainText().split("\n")
    n = line_of(right.toPlainText(), "slice[")
    # The first slice's output type as JAX printed it, e.g. c:i32[8,3]: where the 8 is.
    match = re.search(r":i32\[(\d+),", text[n])
    assert match and int(match.group(1)) == batch
    rect = right.span_rect(n, match.start(1), match.end(1))
    highlight = diff_colour("batch", palette.DIFF_TOKEN_MIX)
    assert close(pixel(right.viewport(), rect.left() + 1, rect.top() + 1), highlight)
    # The name before it did not change: no highlight there.
    name = right.span_rect(n, 0, 1)
    assert not close(pixel(right.viewport(), name.left() + 1, name.top() + 1), highlight)
    # The plain side's type has no batch axis: nothing of its type is highlighted.
    left = view.columns.left
    m = line_of(left.toPlainText(), "slice[")
    typed = left.span_rect(m, left.toPlainText().split("\n")[m].index("[") + 1,
                           left.toPlainText().split("\n")[m].index("]"))
    assert not close(pixel(left.viewport(), typed.left() + 1, typed.top() + 1), highlight)


def test_a_row_clicked_lights_its_source_line_and_a_source_line_its_rows(qtbot, window):
    _open(qtbot, window)
    view = _compare(qtbot, window, "plain", "vmap")
    right = view.columns.right
    n = line_of(right.toPlainText(), "dot_general")
    rect = right.line_rect(n)
    qtbot.mouseClick(right.viewport(), Qt.MouseButton.LeftButton,
                     pos=QPoint(rect.width() // 2, rect.center().y()))
    source = window.editor.toPlainText()
    dot_line = line_of(source, "jnp.dot(") + 1
    assert window.editor.active_line == dot_line
    strong = style.link_colour(window.linking.index.colour_index(dot_line), strong=True)
    erect = window.editor.line_rect(dot_line - 1)
    vp = window.editor.viewport()
    assert close(pixel(vp, vp.width() - 10, erect.center().y()), strong)
    assert "dot_general" in view.note.text() and "gained the batch axis" in view.note.text()
    # Every row from that line is lit on both sides, and only those.
    for side in (view.columns.left, view.columns.right):
        for k, line in enumerate(side.lines):
            lit = side.line_background("active", k) is not None
            from_dot = line.row >= 0 and view.source_line(line.row, side.which) == dot_line
            assert lit == from_dot, (side.which, k)
    # Hovering a row lights its source line too (while the mouse is there).
    left = view.columns.left
    k = line_of(left.toPlainText(), "concatenate")
    krect = left.line_rect(k)
    qtbot.mouseMove(left.viewport(), QPoint(krect.width() // 2, krect.center().y()))
    ret_line = line_of(source, "return jnp.array") + 1
    qtbot.waitUntil(lambda: window.linking.active_line == ret_line, timeout=5000)
    assert "concatenate" in view.note.text()
    # The other way: hovering the return line in the editor lights its rows (concatenate).
    ret = line_of(source, "return jnp.array")
    erect = window.editor.line_rect(ret)
    qtbot.mouseMove(window.editor.viewport(), QPoint(200, erect.center().y()))
    qtbot.waitUntil(lambda: window.linking.active_line == ret + 1, timeout=5000)
    left = view.columns.left
    concat = line_of(left.toPlainText(), "concatenate")
    assert left.line_background("active", concat) is not None
    assert left.line_background("active", line_of(left.toPlainText(), "dot_general")) is None


def test_the_vmap_panes_marks_are_what_the_diff_says(qtbot, window):
    _open(qtbot, window)
    result = window.router.result
    plain, vmap = result.variant("plain"), result.variant("vmap")
    marks = window.area.panes["vmap"].jaxpr_view.marks
    left_eqns, right_eqns = _equations(plain), _equations(vmap)
    expected = []
    for row in diff_variants(plain, vmap).rows:
        if row.right is None:
            continue
        mine = right_eqns[row.right.order]
        if row.left is None:
            expected.append(("new", row.right.text_lines[0]))
        elif any(len(a.shape) > len(b.shape)  # read off the equations' own shapes
                 for a, b in zip(mine.outputs, left_eqns[row.left.order].outputs)):
            expected.append(("batched", row.right.text_lines[0]))
    assert [(m.kind, m.start) for m in marks] == expected
    assert len(expected) == 10  # every equation of convolve gains the batch axis


def test_a_variant_no_pane_shows_is_traced_when_picked(qtbot, window):
    _open(qtbot, window)
    # the user hides the jit pane (View > Panes)
    window.state.visible_variants = [v for v in window.state.visible_variants if v != "jit"]
    assert "jit" not in window.area.visible_variants
    view = _compare(qtbot, window, "plain", "vmap")
    view.pickers["right"].setCurrentText("jit")  # as the user picks it
    wait_for_panes(qtbot, window, lambda: view.diff is not None and view.diff.right == "jit")
    assert window.state.compared == ("plain", "jit")
    jit = window.router.result.variant("jit")
    assert jit.ok and view.summary.text() == diff_variants(
        window.router.result.variant("plain"), jit).summary
    assert not view.error_text


def test_close_gives_back_the_panes_the_editor_and_the_side_panels(qtbot, window):
    window.resize(1280, 720)
    _open(qtbot, window)
    flush_events()
    before = window.splitter.sizes()
    side = [window.docks[n].isVisible() for n in ("Gallery", "Arguments")]
    tools = window.docks["Console · Devices · Timing"]
    assert tools.isVisible()
    tools_height = tools.height()
    window.actions_by_name["compare"].trigger()  # View > Compare Variants (Ctrl+D)
    view = window.area.compare
    wait_for_panes(qtbot, window, lambda: view.diff is not None)
    qtbot.waitUntil(lambda: not tools.isVisible())
    flush_events()
    # At 1280 wide the sides get room (the side panels step aside): each shows at least
    # 35 characters of jaxpr, and longer lines scroll sideways together.
    assert not any(window.docks[n].isVisible() for n in ("Gallery", "Arguments"))
    left, right = view.columns.left, view.columns.right
    # ... and height (the console tabs step aside): 24 lines of jaxpr one above the other.
    assert not tools.isVisible()
    assert left.viewport().height() / left.fontMetrics().lineSpacing() >= 24
    assert "console tabs hidden meanwhile" in window.status_text.text()
    assert left.viewport().width() / left.fontMetrics().horizontalAdvance("m") >= 35
    right.horizontalScrollBar().setValue(right.horizontalScrollBar().maximum())
    assert left.horizontalScrollBar().value() == min(right.horizontalScrollBar().maximum(),
                                                     left.horizontalScrollBar().maximum()) > 0
    qtbot.mouseClick(view.close_button, Qt.MouseButton.LeftButton)
    assert not window.area.comparing and window.state.compared is None
    assert window.area.currentWidget() is not view
    assert window.splitter.sizes() == before
    assert [window.docks[n].isVisible() for n in ("Gallery", "Arguments")] == side
    qtbot.waitUntil(tools.isVisible)
    flush_events()
    assert abs(tools.height() - tools_height) <= 2
    # While comparing, a tab of theirs asked for (step mode's Values, the device view)
    # brings the console tabs back.
    window.actions_by_name["compare"].trigger()
    assert window.area.comparing and not tools.isVisible()
    window.tools.setCurrentWidget(window.tools.devices)
    assert tools.isVisible() and window.area.comparing


def test_a_user_file_compares_like_an_example(qtbot, window, tmp_path):
    path = tmp_path / "scale.py"
    path.write_text("import jax.numpy as jnp\n\n\ndef scale(x, w):\n"
                    "    y = jnp.sin(x)\n    return jnp.dot(y, w)\n")
    window.open_file(str(path), "scale")
    window.args_panel.edits["args"].clear()
    qtbot.keyClicks(window.args_panel.edits["args"], "f32[3], f32[3]")  # as typed
    window.retrace()  # a file opened from disk runs when the user says so (Trace, F5)
    wait_for_panes(qtbot, window, lambda: window.router.result is not None
                   and window.router.result.function == "scale"
                   and window.router.result.variant("vmap").ok)
    view = _compare(qtbot, window, "plain", "vmap")
    result = window.router.result
    assert view.summary.text() == diff_variants(result.variant("plain"),
                                                result.variant("vmap")).summary
    # sin (line 5) and dot (line 6) both gained the batch axis; their chips say where.
    assert view.summary.text().startswith("2 equations gained the batch axis")
    assert sorted(set(view.columns.right.chips.values())) == [5, 6]


def test_quitting_while_comparing_remembers_the_layout_without_the_comparison(make_window,
                                                                             qtbot):
    win = make_window(1280, 720)
    _open(qtbot, win)
    before = win.splitter.sizes()
    _compare(qtbot, win, "plain", "vmap")
    assert not win.docks["Gallery"].isVisible()  # made room at 1280 wide
    win.close()
    again = make_window(1280, 720)  # the same settings: what the first one remembered
    assert again.docks["Gallery"].isVisible() and again.docks["Arguments"].isVisible()
    assert again.splitter.sizes() == before
    assert not again.area.comparing


def test_a_variant_that_failed_says_so_over_the_last_diff(qtbot, window):
    _open(qtbot, window, "normalize")  # plain cannot bind the psum's axis name
    assert not window.router.result.variant("plain").ok
    window.actions_by_name["compare"].trigger()
    view = window.area.compare
    wait_for_panes(qtbot, window, lambda: view.diff is not None)
    assert (view.diff.left, view.diff.right) == ("vmap", "pmap")  # the base is vmap then
    shown = view.columns.right.toPlainText()
    view.pickers["left"].setCurrentText("plain")
    wait_for_panes(qtbot, window, lambda: bool(view.error_text))
    assert view.error_text.startswith("⚠ plain failed to trace:")
    assert view.columns.right.toPlainText() == shown and view.columns.right.dimmed


@pytest.mark.parametrize("example", [ex.name for ex in list_examples()])
def test_every_gallery_example_compares_each_variant_with_its_base(qtbot, window, example):
    """Each pane's Compare button, on every example with all its declared variants shown:
    the diff JAX's traces give, every equation of both sides once, sides level, no error."""
    _open(qtbot, window, example)
    declared = next(ex.variants for ex in list_examples() if ex.name == example)
    window.state.visible_variants = list(declared)
    wait_for_panes(qtbot, window, lambda: window.router.result is not None and all(
        v in [vr.variant for vr in window.router.result.variants] for v in declared))
    result = window.router.result
    base = "plain" if result.variant("plain").ok else "vmap"  # plain cannot bind an axis
    view = window.area.compare
    for variant in declared:
        if variant == base:
            continue
        qtbot.mouseClick(window.area.panes[variant].compare_button, Qt.MouseButton.LeftButton)
        wait_for_panes(qtbot, window, lambda pair=(base, variant): view.diff is not None
                       and (view.diff.left, view.diff.right) == pair)
        assert not view.error_text, (variant, view.error_text)
        left, right = result.variant(base), result.variant(variant)
        assert view.summary.text() == diff_variants(left, right).summary
        assert view.columns.left.blockCount() == view.columns.right.blockCount()
        for which, vr in (("left", left), ("right", right)):
            rows = [line.row for line in getattr(view.columns, which).lines]
            runs = [r for n, r in enumerate(rows) if r >= 0 and (n == 0 or rows[n - 1] != r)]
            assert len(runs) == len(set(runs)) == len(_equations(vr)), (variant, which)
        qtbot.mouseClick(view.close_button, Qt.MouseButton.LeftButton)
        assert not window.area.comparing
