"""Window features against the real engine: files, recovery, lecture basics, views, faults."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QTimer
from PySide6.QtWidgets import QApplication, QTableWidget

from jaxviz.ui.theme import style
from jaxviz.ui.window.main_window import MainWindow
from tests.helpers.window import JAX_MS, close, devices_tab, line_of, pixel, wait_for_panes

# Not in the fast tier: the window on the real engine.
pytestmark = pytest.mark.slow

SOURCE = '''import jax.numpy as jnp


def double(x):
    print("tracing double with", x.shape)
    return x * 2


JAXVIZ = {"function": "double", "args": "f32[4]", "variants": ["plain", "vmap"]}
'''


def _plain(win) -> str:
    return win.area.panes["plain"].jaxpr_view.toPlainText()


def test_an_opened_file_is_traced_and_re_traced_when_saved_elsewhere(qtbot, window, tmp_path):
    path = tmp_path / "lecture.py"
    path.write_text(SOURCE)
    window.open_target(f"{path}:double")
    window.retrace()  # F5: the user's say that the file may run (see test_trust)
    wait_for_panes(qtbot, window, lambda: "mul" in _plain(window))
    assert window.editor_panel.function.currentText() == "double"
    assert window.args_panel.edits["args"].text() == "f32[4]"   # its JAXVIZ settings
    assert "tracing double with (4,)" in window.tools.console.toPlainText()
    assert window.settings.recent_files()[0] == str(path)
    # Another editor saves the file: jaxviz reloads it and traces again.
    path.write_text(SOURCE.replace("x * 2", "x + 2"))
    wait_for_panes(qtbot, window, lambda: "add" in _plain(window))
    assert "x + 2" in window.editor.toPlainText() and not window.document.modified


def test_unsaved_edits_get_a_recovery_copy_quit_asks_and_save_writes(
        qtbot, window, tmp_path, no_modal_dialogs):
    path = tmp_path / "mine.py"
    path.write_text(SOURCE)
    window.open_file(str(path))
    wait_for_panes(qtbot, window)
    window.editor.textCursor().insertText("# my edit\n")
    recovery = window.document.recovery
    qtbot.waitUntil(lambda: bool(recovery.pending()), timeout=10_000)
    meta, text = recovery.pending()[0]
    assert meta["path"] == str(path) and text.startswith("# my edit")
    # Quitting asks first (the fixture answers "Discard").
    assert window.confirm_leave()
    assert any("unsaved edits" in q for q in no_modal_dialogs)
    assert recovery.pending() == []  # discarded on purpose: the copy goes too
    window.editor.textCursor().insertText("# again\n")
    assert window.save()
    saved = path.read_text()
    assert "# again\n" in saved and "# my edit\n" in saved and "def double" in saved
    assert not window.document.modified and "unsaved" not in window.editor_panel.file_label.text()


def test_zoom_reaches_every_text_and_is_remembered(qtbot, window, settings, shared_engine):
    before = window.editor.font().pointSize()
    window.zoom_by(2)
    assert window.editor.font().pointSize() == before + 2
    assert window.area.panes["vmap"].jaxpr_view.font().pointSize() == \
        style.BASE_CODE_POINTS + style.PANE_CODE_DELTA + 2
    assert settings.zoom == 2
    window.save_window_state()
    again = MainWindow(settings=settings, engine=shared_engine)
    qtbot.addWidget(again)
    assert again.editor.font().pointSize() == before + 2


def test_narrow_windows_show_the_panes_as_tabs(qtbot, window):
    window.area.set_visible_variants(["plain", "vmap"])
    window.resize(1600, 900)
    qtbot.waitUntil(lambda: window.area.effective_mode() == "side by side", timeout=5000)
    window.area.set_visible_variants(["plain", "vmap", "pmap", "sharded"])
    window.resize(1000, 700)
    qtbot.waitUntil(lambda: window.area.effective_mode() == "tabs", timeout=5000)
    assert window.area.in_tabs()
    assert window.area.tab_names() == ["plain", "vmap", "pmap", "sharded"]
    window.set_pane_layout("side by side")
    assert not window.area.in_tabs() and window.area.tab_names() == []
    assert all(window.area.is_shown(v) for v in ["plain", "vmap", "pmap", "sharded"])
    window.set_pane_layout("auto")
    window.area.set_variant_visible("vmap", False)
    assert "vmap" not in window.area.visible_variants
    assert not window.actions_by_name["pane_vmap"].isChecked()


def test_pmap_pane_folds_the_shared_jaxpr_and_marks_the_wrapper(qtbot, window):
    window.open_example("convolve")
    wait_for_panes(qtbot, window, lambda: window.router.details is not None)
    view = window.area.panes["pmap"].jaxpr_view
    text = view.toPlainText()
    assert text.startswith("let jaxpr = {")
    view.toggle_fold(0)
    assert not view.document().findBlockByNumber(3).isVisible()
    view.toggle_fold(0)
    assert view.document().findBlockByNumber(3).isVisible()
    kinds = {m.kind for m in view.marks}
    assert "wrapper" in kinds and "collective" not in kinds
    assert window.area.panes["vmap"].legend.text().count("gained the batch axis") == 1
    pane = window.area.panes["sharded"]
    # its compiled programs' views and cost table are made when first shown (memory)
    assert pane.program_views() == {} and not pane.findChildren(QTableWidget)
    pane.show_view("StableHLO")
    assert pane.stablehlo_view.toPlainText().startswith("module @")
    assert pane.stack.currentWidget() is pane.stablehlo_view
    assert pane.stablehlo_view.dimmed == pane.dimmed
    pane.show_view("cost")
    assert pane.cost_table.rowCount() >= 2


def test_collectives_are_marked_in_the_parallel_panes(qtbot, window):
    window.open_example("normalize")
    wait_for_panes(qtbot, window, lambda: window.router.details is not None)
    assert window.area.visible_variants == ["vmap", "pmap", "shard_map"]
    view = window.area.panes["pmap"].jaxpr_view
    collectives = [m for m in view.marks if m.kind == "collective"]
    assert collectives and "psum" in view.toPlainText().split("\n")[collectives[0].start]
    # The gutter paints the collective's glyph in its colour.
    view.scroll_to_line(collectives[0].start)
    rect = view.line_rect(collectives[0].start)
    gutter = view._gutter
    image = gutter.grab().toImage()
    red = style.MARK_COLOURS["collective"]
    assert any(close(image.pixelColor(x, y), red, 40)
               for x in range(gutter.width()) for y in range(rect.top(), rect.bottom()))


def test_a_crashing_function_restarts_the_engine_and_says_so(qtbot, window):
    window.document.new_untitled("import os\n\n\ndef f(x):\n    os.abort()\n")
    window.document.set_function("f")
    window.args_panel.set_values({"args": "f32[3]"})
    window.area.set_visible_variants(["plain"])
    window.retrace()
    wait_for_panes(qtbot, window, lambda: "crashed" in window.area.panes["plain"].error_text)
    assert "crashed" in window.status_text.text()
    assert "JAX engine crashed" in window.tools.console.toPlainText()
    qtbot.waitUntil(lambda: window.engine_label.text().startswith("JAX "), timeout=JAX_MS)
    assert "os.abort()" in window.editor.toPlainText()


def test_hovering_an_equation_lights_up_the_source_line(qtbot, window):
    window.open_example("convolve")
    wait_for_panes(qtbot, window)
    window.area.show_pane("vmap")  # at 1600 px four panes are tabs: hover the one shown
    view = window.area.panes["vmap"].jaxpr_view
    qtbot.waitUntil(view.isVisible)
    n = line_of(view.toPlainText(), "concatenate")
    rect = view.line_rect(n)
    qtbot.mouseMove(view.viewport(), QPoint(rect.width() // 2, rect.center().y()))
    qtbot.waitUntil(lambda: window.linking.active_line != 0, timeout=5000)
    line = window.linking.active_line
    assert "jnp.array(output)" in window.editor.toPlainText().split("\n")[line - 1]
    strong = style.link_colour(window.linking.index.colour_index(line), strong=True)
    erect = window.editor.line_rect(line - 1)
    vp = window.editor.viewport()
    assert close(pixel(vp, vp.width() - 8, erect.center().y()), strong)


def test_the_window_is_up_before_jax_and_the_status_bar_says_so(qtbot):
    from jaxviz.ui import app

    seen = {}

    def on_shown(win) -> None:
        seen.update(visible=win.isVisible(), label=win.engine_label.text(),
                    title=win.windowTitle())
        QTimer.singleShot(0, lambda: (win.close(), QApplication.instance().exit(0)))

    assert app.main(["--devices", "4", "example:convolve"], on_shown=on_shown) == 0
    assert seen == {"visible": True, "label": "starting JAX: 4 simulated CPU devices…",
                    "title": "convolve[*] — jaxviz"}


def test_the_window_traces_what_its_state_holds_and_its_widgets_follow_it(qtbot, window):
    window.document.new_untitled("def f(x, w):\n    return x * w\n")
    state = window.state
    assert (state.function, state.source) == ("f", window.editor.toPlainText())
    # What is typed goes into the state ...
    window.args_panel.edits["args"].clear()
    qtbot.keyClicks(window.args_panel.edits["args"], "f32[3], f32[3]")
    assert state.settings.args == "f32[3], f32[3]"
    window.area.set_visible_variants(["plain", "vmap"])
    assert state.visible_variants == ["plain", "vmap"]
    window.area.panes["vmap"].lineClicked.emit("vmap", 1)
    assert state.focused_variant == "vmap" and window.device_variant() == "vmap"
    # ... what is set in the state shows in the widgets ...
    state.set_setting("in_axes", "0, None")
    state.visible_variants = ["plain", "jit"]
    assert window.args_panel.edits["in_axes"].text() == "0, None"
    assert window.area.visible_variants == ["plain", "jit"]
    assert window.actions_by_name["pane_jit"].isChecked()
    assert not window.actions_by_name["pane_vmap"].isChecked()
    # ... and the request is the state's.
    req = window.build_request()
    assert req == state.to_request()
    assert (req.args, req.in_axes, req.variants) == ("f32[3], f32[3]", "0, None", ["plain", "jit"])
    state.function = ""
    assert window.build_request() is None
    assert "pick the function" in window.editor_panel.error.text()


def test_the_devices_tab_draws_the_storyboard_readable_at_1280x720(qtbot, window, tmp_path):
    view = devices_tab(qtbot, window, "data_parallel")
    details = window.router.details.variant(view.scene.variant)
    assert details.storyboard is not None and view.scene.story == details.storyboard
    lay = view.canvas.builder().lay
    assert lay.inputs[0].grid.name == "params" and lay.inputs[0].grid.members  # folded
    for place in lay.devices.values():  # no slivers: each device shows its tiles
        assert min(place.rect[2], place.rect[3]) >= 3 * lay.unit and place.detail >= 1
        assert len(place.minis) == 5  # params (folded), x, y, out[0], out[1]
    # One strip (lying across in the short tab), in mesh order, none overlapping.
    rects = [lay.devices[d].rect for d in details.storyboard.mesh.device_ids]
    assert len({r[1] for r in rects}) == 1
    assert all(a[0] + a[2] <= b[0] for a, b in zip(rects, rects[1:]))
    view.canvas.grab().save(str(tmp_path / "devices_tab.png"))


def test_in_tabs_the_variant_worked_on_comes_to_the_front(qtbot, window):
    """A projector-sized window shows the panes as tabs: stepping a variant (or picking it
    for the device view) brings its tab to the front, where its lit equation is."""
    window.set_pane_layout("tabs")
    window.area.set_visible_variants(["plain", "vmap", "pmap"])
    window.area.show_pane("vmap")
    assert window.area.front_variant() == "vmap"
    window.state.focused_variant = "pmap"
    assert window.area.front_variant() == "pmap" and window.area.is_shown("pmap")
    assert not window.area.is_shown("vmap")
