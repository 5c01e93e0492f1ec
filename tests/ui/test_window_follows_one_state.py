"""One window, one truth (issue 16): every view follows the function on screen.

Each test is one finding of a lecture walkthrough, on the real engine: a change
(typing, undo, open, Save As, switching example) updates every view that depends
on it, or marks the view as belonging to an earlier state.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QTextCursor
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QFileDialog

from jaxviz.ui.theme import style
from jaxviz.views.panes.link_index import LinkIndex
from tests.helpers.window import JAX_MS, close, devices_tab, flush_events, pixel, wait_for_panes

# Not in the fast tier: the window on the real engine.
pytestmark = pytest.mark.slow


def _open(qtbot, win, example: str) -> None:
    win.open_example(example)
    wait_for_panes(qtbot, win, lambda: win.router.result is not None
                   and win.router.details is not None
                   and win.router.details.function == win.state.function)


def _type_at_end_of_line(win, line: int, text: str) -> None:
    editor = win.editor
    cursor = QTextCursor(editor.document().findBlockByNumber(line - 1))
    cursor.movePosition(QTextCursor.MoveOperation.EndOfBlock)
    editor.setTextCursor(cursor)
    editor.setFocus()
    QTest.keyClicks(editor, text)


def test_undo_back_to_valid_code_clears_the_error(qtbot, window):
    _open(qtbot, window, "psum_ones")
    line = 1 + window.state.source.split("\n").index("    return lax.psum(x, axis_name='i')")
    _type_at_end_of_line(window, line, "x")
    qtbot.waitUntil(lambda: window.editor.error_line == line, timeout=JAX_MS)
    assert window._status_is_error and window.area.panes["pmap"].dimmed
    window.editor.undo()
    assert not window.document.modified
    qtbot.waitUntil(lambda: window.editor.error_line == 0 and not window._status_is_error
                    and not window.area.panes["pmap"].dimmed
                    and not window.area.filling, timeout=JAX_MS)  # the tabs behind too
    assert window.editor_panel.error.isHidden()
    assert all(not window.area.panes[v].error_text for v in window.state.visible_variants)


def test_a_runtime_error_marks_its_line_in_the_editor(qtbot, window):
    window.new_file()
    source = ("import jax.numpy as jnp\n\n\ndef f(x):\n    y = x * 2\n"
              "    return y.reshape(7)\n")
    window.editor.setPlainText(source)
    window.state.set_setting("args", "f32[8]")
    window.retrace()
    qtbot.waitUntil(lambda: window.editor.error_line == 6, timeout=JAX_MS)
    assert "reshape" in window.editor_panel.error.text() or "7" in \
        window.editor_panel.error.text()


def test_the_panes_an_example_declares_are_shown(qtbot, window):
    for name, variants in (("jit_composition", ["plain", "jit", "sharded"]),
                           ("async_dispatch", ["plain", "jit"])):
        window.open_example(name)
        qtbot.waitUntil(lambda: not window.opening)  # laid out in the turn after the paint
        assert window.state.visible_variants == variants
        assert window.area.visible_variants == variants


def test_the_device_view_starts_a_new_example_at_its_first_phase(qtbot, window):
    view = devices_tab(qtbot, window, "convolve", (1600, 950))
    view.seek(len(view.phases) - 1)
    assert window.state.device_phase == len(view.phases) - 1
    assert window.linking.phase_lines  # the last phase lights its jaxpr lines
    _open(qtbot, window, "normalize")
    qtbot.waitUntil(lambda: view.result is not None
                    and view.result.function == "normalize", timeout=JAX_MS)
    assert view.current_phase == 0 and window.state.device_phase == 0
    # Leaving the Devices tab takes the phase's lights off the panes; coming back brings them.
    view.seek(3)
    assert window.linking.phase_lines
    window.tools.setCurrentWidget(window.tools.console)
    assert window.linking.phase_lines == {}
    window.tools.setCurrentWidget(window.tools.devices)
    assert window.linking.phase_lines == {
        v: list(range(a, b + 1)) for v, a, b in view.phases[3].highlights}


def test_the_hlo_view_and_its_scroll_start_over_with_the_next_example(qtbot, window):
    _open(qtbot, window, "convolve")
    pane = window.area.panes["pmap"]
    pane.view_picker.setCurrentIndex(2)
    pane.view_picker.activated.emit(2)  # the user's pick
    assert window.state.pane_view("pmap") == "HLO" and pane.shown_view() == "HLO"
    pane.hlo_view.verticalScrollBar().setValue(pane.hlo_view.verticalScrollBar().maximum())
    _open(qtbot, window, "normalize")
    assert window.state.pane_views == {}
    assert pane.shown_view() == "jaxpr"
    assert pane.hlo_view.verticalScrollBar().value() == 0


def test_open_shows_the_files_explanation_and_panes_and_save_as_its_title(
        qtbot, window, tmp_path, monkeypatch):
    _open(qtbot, window, "convolve")
    assert "convolution" in window.gallery.title.text()  # its title (the body: convolve)
    path = tmp_path / "scale.py"
    path.write_text('"""Scaling a vector: my own lecture file."""\nimport jax.numpy as jnp\n\n'
                    'JAXVIZ = {"function": "scale", "args": "f32[8]", '
                    '"variants": ["plain", "jit"]}\n\n\ndef scale(x):\n    return 2 * x\n')
    window.open_file(str(path))
    text = window.gallery.title.text() + window.gallery.explanation.toPlainText()
    assert "my own lecture file" in text and "convolution" not in text
    assert window.state.visible_variants == ["plain", "jit"]
    # Save As: the title names the new file, not the example it came from.
    _open(qtbot, window, "convolve")
    target = tmp_path / "mine.py"
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        lambda *a, **k: (str(target), "Python files (*.py)"))
    assert window.save_as()
    assert window.windowTitle().startswith("mine.py") and "convolve" not in \
        window.windowTitle()
    assert window.gallery.list.currentItem() is None or not \
        window.gallery.list.currentItem().isSelected()
    assert window.gallery.title.text() == "mine.py"


def test_a_timing_run_of_another_function_is_marked(qtbot, window):
    from tests.helpers.timing_view import configure

    window.open_example("async_dispatch")
    wait_for_panes(qtbot, window, lambda: window.router.result is not None)
    window.tools.setCurrentWidget(window.tools.timing)
    view = window.tools.timing.view
    configure(view, ["jit"], runs=2, warmup=0, pipeline=0)
    view.controls.run_button.click()
    qtbot.waitUntil(lambda: not view.running, timeout=2 * JAX_MS)
    assert window.state.timing_of == "matmul"
    assert not view.info_label.text().startswith("⚠")
    _open(qtbot, window, "convolve")
    assert view.info_label.text() == "⚠ recording of matmul — Run to measure convolve"
    assert view.info_label.isVisible()
    window.open_example("async_dispatch")  # back: the run is this function's again
    assert view.info_label.text().startswith("Measured ")


def test_the_plot_tab_and_the_export_button_stay_put(qtbot, window):
    """A run does not switch the plot tab; a banner does not move the Export button."""
    from tests.helpers.timing_view import configure

    window.open_example("async_dispatch")
    wait_for_panes(qtbot, window, lambda: window.router.result is not None)
    window.tools.setCurrentWidget(window.tools.timing)
    view = window.tools.timing.view
    qtbot.waitUntil(lambda: view.export_bar.isVisible())
    view.plots.show_kind("variants")
    configure(view, ["jit"], runs=2, warmup=0, pipeline=2)
    before = view.export_bar.mapTo(window, view.export_bar.rect().topLeft())
    plots_before = view.plots.geometry()
    view.controls.run_button.click()
    qtbot.waitUntil(lambda: not view.running, timeout=2 * JAX_MS)
    assert view.plots.current_kind() == "variants"
    view.banner.show_message("Copied the variants plot (1280×720) to the clipboard.", "info")
    flush_events()
    assert not view.banner.isHidden()
    assert view.export_bar.mapTo(window, view.export_bar.rect().topLeft()) == before
    assert view.plots.geometry() == plots_before
    view.banner.show_message("A much longer message " * 20, "error")
    flush_events()
    assert view.plots.geometry() == plots_before


def _device_keys_window(qtbot, window):
    view = devices_tab(qtbot, window, "convolve", (1600, 950))
    view.seek(0)
    return view


def test_page_down_steps_the_animation_wherever_the_focus_is(qtbot, window):
    view = _device_keys_window(qtbot, window)
    window.activateWindow()
    args = window.args_panel.edits["args"]
    for widget in (window.gallery.list, window.editor, args, window.tools.tabBar()):
        widget.setFocus()
        qtbot.waitUntil(lambda w=widget: w.hasFocus())
        phase = view.current_phase
        row = window.gallery.list.currentRow()
        text = window.editor.toPlainText()
        QTest.keyClick(widget, Qt.Key.Key_PageDown)
        assert view.current_phase == phase + 1, widget
        assert window.gallery.list.currentRow() == row and window.editor.toPlainText() == text
        QTest.keyClick(widget, Qt.Key.Key_PageUp)
        assert view.current_phase == phase, widget
    # The arrows too, except in a text field being typed in (they move its cursor).
    window.gallery.list.setFocus()
    QTest.keyClick(window.gallery.list, Qt.Key.Key_Right)
    assert view.current_phase == 1
    window.editor.setFocus()
    QTest.keyClick(window.editor, Qt.Key.Key_Right)
    assert view.current_phase == 1
    # Another tab shown: the keys are the widgets' own again.
    window.tools.setCurrentWidget(window.tools.console)
    window.editor.setFocus()
    position = window.editor.textCursor().position()
    QTest.keyClick(window.editor, Qt.Key.Key_PageDown)
    assert view.current_phase == 1 and window.editor.textCursor().position() != position


def test_the_first_right_after_clicking_the_devices_tab_steps(qtbot, window):
    view = _device_keys_window(qtbot, window)
    window.tools.setCurrentWidget(window.tools.console)
    bar = window.tools.tabBar()
    index = window.tools.indexOf(window.tools.devices)
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(index).center())
    assert window.tools.currentWidget() is window.tools.devices
    target = window.focusWidget() or window
    QTest.keyClick(target, Qt.Key.Key_Right)
    assert view.current_phase == 1
    assert window.tools.currentWidget() is window.tools.devices  # the tab bar kept its tab


def test_tab_reaches_the_device_view_and_its_player(qtbot, window):
    view = _device_keys_window(qtbot, window)
    window.editor.setFocus()
    seen = []
    for _ in range(200):
        window.focusNextChild()
        flush_events(1)
        seen.append(window.focusWidget())
    controls = view.controls
    for widget in (view, controls.play_button, controls.forward_button, controls.back_button,
                   controls.export_button):
        assert widget in seen, widget


def test_each_tool_tab_has_a_shortcut(qtbot, window):
    for key, widget in ((Qt.Key.Key_D, window.tools.devices), (Qt.Key.Key_T, window.tools.timing),
                        (Qt.Key.Key_C, window.tools.console)):
        QTest.keyClick(window, key, Qt.KeyboardModifier.ControlModifier
                       | Qt.KeyboardModifier.ShiftModifier)
        assert window.tools.currentWidget() is widget


def test_the_shortcut_list_fits_a_1366x768_screen(qtbot, window):
    from PySide6.QtCore import QRect

    dialog = window.show_shortcuts()
    qtbot.addWidget(dialog)
    screen = QRect(0, 0, 1366, 768)
    size = dialog.fit_to(screen)
    assert size.width() <= 1366 and size.height() <= 768 - 40  # room for a title bar
    assert screen.contains(dialog.geometry())
    button = dialog.close_button
    assert dialog.rect().contains(button.geometry().translated(
        button.parentWidget().mapTo(dialog, button.pos()) - button.pos()))
    text = dialog.text.toPlainText()
    assert "Ctrl+Shift+D" in text and "PageDown" in text
    assert dialog.text.verticalScrollBar().maximum() > 0  # the rest scrolls


def _text_px(widget) -> int:
    from PySide6.QtGui import QFontInfo

    return QFontInfo(widget.font()).pixelSize()


def test_zoom_enlarges_the_text_of_every_view(qtbot, window):
    view = devices_tab(qtbot, window, "convolve", (1600, 950))
    window.tools.setCurrentWidget(window.tools.timing)
    timing = window.tools.timing.view
    window.tools.setCurrentWidget(window.tools.devices)
    window.set_zoom(0)

    def sizes() -> dict[str, float]:
        return {
            "editor": _text_px(window.editor),
            "pane": _text_px(window.area.panes["pmap"].jaxpr_view),
            "explanation": _text_px(window.gallery.explanation),
            "arguments": _text_px(window.args_panel.edits["args"]),
            "device view": view.canvas.builder().lay.unit,
            "timing plots": timing.plots.plot_style().base_px,
            "dialog": _text_px(window.show_shortcuts().text),
        }

    before = sizes()
    zoom_in = window.actions_by_name["zoom_in"]
    assert "Ctrl+=" in [k.toString() for k in zoom_in.shortcuts()]
    zoom_in.trigger()
    zoom_in.trigger()
    flush_events()
    after = sizes()
    grown = {name: after[name] / before[name] for name in before}
    assert all(ratio > 1.1 for ratio in grown.values()), (before, after)
    assert window.state.zoom == 2 and window.settings.zoom == 2
    window.set_zoom(0)


def test_the_zoom_keys_work_whatever_widget_has_the_focus(qtbot, window):
    """Ctrl+= and Ctrl++ as key presses (not the action triggered), to the focused widget.
    Shortcuts need the window active; offscreen it is once activated. (Ctrl+Shift+=, the
    keys pressed for Ctrl++ on a US keyboard, needs the X keymap: test_real_screen.)"""
    from PySide6.QtWidgets import QApplication

    window.set_zoom(0)
    for other in QApplication.topLevelWidgets():  # a dialog left open would take the keys
        if other is not window and other.isWindow() and other.isVisible():
            other.close()
    window.show()
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    ctrl = Qt.KeyboardModifier.ControlModifier
    focused = (window.editor, window.args_panel.edits["args"],
               window.area.panes["plain"].jaxpr_view, window.gallery.list)
    for widget in focused:
        widget.setFocus()
        qtbot.waitUntil(widget.hasFocus)
        for key in (Qt.Key.Key_Equal, Qt.Key.Key_Plus):
            zoom = window.state.zoom
            QTest.keyClick(widget, key, ctrl)
            assert window.state.zoom == zoom + 1, (type(widget).__name__, key)
        QTest.keyClick(widget, Qt.Key.Key_Minus, ctrl)
        QTest.keyClick(widget, Qt.Key.Key_Minus, ctrl)
        assert window.state.zoom == 0
    assert window.args_panel.edits["args"].text() == window.state.settings.args  # no "="


def test_hlo_views_hide_jaxvizs_own_frames(qtbot, window):
    _open(qtbot, window, "convolve")
    details = window.router.details
    user_file = Path(window.state.filename).name
    for vr in details.variants:
        for text in (vr.stablehlo, vr.hlo):
            assert "jaxviz/" not in text, vr.variant
    assert any(f'source_file="{user_file}"' in vr.hlo for vr in details.variants)
    pane = window.area.panes["pmap"]
    pane.show_view("HLO")
    assert pane.hlo_view.toPlainText().startswith("HloModule")
    assert "FileNames" not in pane.hlo_view.toPlainText()


def test_runs_per_device_counts_agree_across_variants(qtbot, window):
    """pmap and shard_map both run one shard_map body per device: one ▣ each, as many as
    the shard_map equations JAX printed (the shard_map variant's jit only places inputs)."""
    from jaxviz.views.compare.changes import marks_for, summary

    _open(qtbot, window, "normalize")
    result = window.router.result
    for variant in ("pmap", "shard_map"):
        text = result.variant(variant).jaxpr_text
        assert summary(marks_for(result, variant)).get("wrapper") == text.count("shard_map["), \
            variant
        assert "runs per device ×1" in window.area.panes[variant].legend.text()


def test_the_timing_axes_labels_are_not_clipped(qtbot, window):
    window.resize(1366, 768)
    window.open_example("async_dispatch")
    wait_for_panes(qtbot, window, lambda: window.router.result is not None)
    window.tools.setCurrentWidget(window.tools.timing)
    view = window.tools.timing.view
    qtbot.waitUntil(view.isVisible)
    for kind in ("dispatch_vs_complete", "sweep"):
        view.plots.show_kind(kind)
        flush_events()
        axis = view.plots.figures[kind].plot.getAxis("left")
        label = axis.label.boundingRect().width()  # drawn turned by 90 degrees
        assert label <= axis.size().height(), (kind, label, axis.labelText)


def _breaks_mid_word(browser) -> list[str]:
    """Lines of a text view that end inside a word (the layout's own line breaks)."""
    bad = []
    block = browser.document().begin()
    while block.isValid():
        layout, text = block.layout(), block.text()
        for n in range(layout.lineCount() - 1):
            line = layout.lineAt(n)
            end = line.textStart() + line.textLength()
            if 0 < end < len(text) and text[end - 1] not in " -—/" and text[end] != " ":
                bad.append(text[line.textStart():end])
        block = block.next()
    return bad


def test_the_side_panels_are_readable_at_1366x768(qtbot, window):
    from PySide6.QtWidgets import QLabel

    from jaxviz.views.window.screen_fit import Rect, plan_window

    plan = plan_window(Rect(0, 0, 1366, 768 - 32))
    window.resize(1366, 768 - 32)
    window.open_example("tensor_parallel")  # "NamedSharding" in its explanation
    for dock in (window.docks["Gallery"], window.docks["Arguments"]):
        dock.show()
    window.resizeDocks([window.docks["Gallery"]], [plan.side_width], Qt.Orientation.Horizontal)
    wait_for_panes(qtbot, window, lambda: window.router.result is not None)
    flush_events()
    gallery = window.gallery.list
    viewport = gallery.viewport().rect()
    shown = [r for r in range(gallery.count())
             if viewport.contains(gallery.visualItemRect(gallery.item(r)))]
    assert len(shown) >= 5, len(shown)
    assert _breaks_mid_word(window.gallery.explanation) == []
    for name, edit in window.args_panel.edits.items():
        text = edit.text() or edit.placeholderText()
        room = edit.width() - 48  # the clear button and the fault's icon
        assert edit.fontMetrics().horizontalAdvance(text) <= room or len(text) > 20, \
            (name, text, edit.width())
    label = window.editor_panel.file_label  # whole, or cut with "…", never mid-word bare
    shown = QLabel.text(label)
    assert shown == "example: tensor_parallel" or shown.endswith("…"), shown


def test_hovering_an_equation_shows_no_pane_wide_tooltip(qtbot, window):
    """The variant's explanation is the title's tooltip; over the equations none covers
    the neighbouring lines."""
    pane = window.area.panes["vmap"]
    assert pane.toolTip() == "" and pane.jaxpr_view.toolTip() == ""
    assert "batch" in pane.title.toolTip()


def _panes_show_the_state(win) -> None:
    """Every pane on screen, the links and the device view show ``win.state``'s result."""
    result = win.state.result
    assert result is not None and result.function == win.state.function
    for variant in win.state.shown_variants():
        pane = win.area.panes[variant]
        assert pane.result is result.variant(variant)
        assert pane.jaxpr_view.toPlainText() == result.variant(variant).jaxpr_text
    assert win.linking.index is not None
    assert win.linking.index.refs("plain") == LinkIndex(result).refs("plain")
    view = win.tools.devices.view
    if view is not None and win.state.details is not None:
        assert view.result is win.state.details


def test_the_window_state_holds_the_result_the_panes_show(qtbot, window):
    """The current result is part of the window's one state: after a trace the panes,
    the links and the device view show ``state.result``; switching example or undoing
    to other valid code replaces it."""
    seen: list[object] = []
    window.state.events.result.connect(seen.append)
    _open(qtbot, window, "psum_ones")
    _panes_show_the_state(window)
    psum = window.state.result
    assert seen[-1] is psum and window.router.result is psum
    window.tools.setCurrentWidget(window.tools.devices)
    qtbot.waitUntil(lambda: window.tools.devices.view is not None, timeout=JAX_MS)
    _panes_show_the_state(window)

    _open(qtbot, window, "convolve")
    assert window.state.result is not psum and window.state.result.function == "convolve"
    _panes_show_the_state(window)
    convolve = window.state.result

    line = 1 + next(n for n, text in enumerate(window.state.source.split("\n"))
                    if text.strip().startswith("return "))
    _type_at_end_of_line(window, line, " * 2")
    wait_for_panes(qtbot, window, lambda: window.state.result is not convolve
                   and window.state.details is not None
                   and window.state.details.function == "convolve"
                   and window.state.details is not convolve)
    doubled = window.state.result
    assert doubled.variant("plain").jaxpr_text != convolve.variant("plain").jaxpr_text
    _panes_show_the_state(window)
    window.editor.undo()
    wait_for_panes(qtbot, window, lambda: window.state.result is not doubled)
    assert window.state.result.variant("plain").jaxpr_text == \
        convolve.variant("plain").jaxpr_text
    _panes_show_the_state(window)


def test_hlo_lines_from_the_users_file_are_linked_to_the_editor(qtbot, window):
    """An HLO instruction that keeps a location in the user's file lights that line in
    the editor when hovered (sticks when clicked); clicking the editor line lights
    every HLO instruction from it."""
    _open(qtbot, window, "convolve")
    window.area.show_pane("plain")
    pane = window.area.panes["plain"]
    pane.show_view("HLO")
    view = pane.hlo_view
    qtbot.waitUntil(view.isVisible)
    name = Path(window.state.filename).name
    located = {n: int(m.group(1)) for n, text in enumerate(view.toPlainText().split("\n"))
               if (m := re.search(rf'source_file="{re.escape(name)}" source_line=(\d+)',
                                  text))}
    assert located, "the compiled program keeps no location in the user's file"
    n, line = next(iter(located.items()))
    source = window.editor.toPlainText().split("\n")
    assert source[line - 1].strip() and not source[line - 1].strip().startswith("#")
    strong = style.link_colour(window.linking.index.colour_index(line), strong=True)

    view.scroll_to_line(n)
    rect = view.line_rect(n)
    qtbot.mouseMove(view.viewport(), QPoint(rect.width() // 2, rect.center().y()))
    qtbot.waitUntil(lambda: window.linking.active_line == line, timeout=5000)
    erect = window.editor.line_rect(line - 1)
    vp = window.editor.viewport()
    assert close(pixel(vp, vp.width() - 8, erect.center().y()), strong)
    assert view.line_background("active", n) == strong

    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton,
                     pos=QPoint(rect.width() // 2, rect.center().y()))
    assert window.linking.selected_line == line  # clicking sticks
    window.linking.select_source_line(0)

    # the other way: click the source line, every HLO instruction from it is lit
    window.editor.reveal_line(line)
    erect = window.editor.line_rect(line - 1)
    qtbot.mouseClick(vp, Qt.MouseButton.LeftButton, pos=QPoint(vp.width() // 2,
                                                            erect.center().y()))
    assert window.linking.selected_line == line
    from_line = [k for k, v in located.items() if v == line]
    assert all(view.line_background("active", k) == strong for k in from_line)
    others = [k for k, v in located.items() if v != line]
    assert all(view.line_background("active", k) is None for k in others)


@pytest.mark.parametrize("size", [(1920, 1050), (1280, 690)])
def test_an_example_gets_a_tab_for_every_variant_it_declares_when_its_panes_are_tabs(
        qtbot, make_window, size):
    """convolve declares six variants and batched_matmul five: where even the panes a window
    of this size opens with would be tabs, every declared variant gets its tab (a tab costs
    no room); a projector-sized window keeps two panes side by side."""
    from jaxviz.model import list_examples

    declared = {ex.name: ex.variants for ex in list_examples()}
    win = make_window(*size)
    for name in ("convolve", "batched_matmul"):
        win.open_example(name)
        qtbot.waitUntil(lambda: not win.opening)
        shown = win.state.visible_variants
        assert win.area.visible_variants == shown
        if win.area.effective_mode() == "tabs":
            assert sorted(shown) == sorted(declared[name]), (name, shown)
        else:
            assert len(shown) == 2 and set(shown) <= set(declared[name])
    if size[0] >= 1920:  # on a large screen the four panes it used to open with are tabs
        assert win.area.effective_mode() == "tabs"
