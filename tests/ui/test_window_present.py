"""Presenting from the window, maximized and undocked tool views, the two-pane layout.

Against the real JAX engine (the window's own, shared by the presentation): Present
(Shift+F5) opens a full-screen presentation of the window's function, traced from
the editor's text with the window's arguments, starting on the slide of what the
window shows; Esc comes back with the window state and the editor's text exactly
as they were; E drops into the window's editor and Present again comes back to the
same slide with the edited text traced. F6 / F7 make the device / timing view
cover the window's central area and the same key or Esc gives back the layout
(every dock's geometry, the tab, the panes' splitter) exactly; Undock floats the
tool dock. The two-pane layout shows exactly the two chosen variants side by side,
each at least ~45% of the pane area's width, and the choice is remembered.
"""

from __future__ import annotations

from dataclasses import fields

import pytest
from PySide6.QtCore import QRect, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QToolButton

from jaxviz.model import VARIANTS
from jaxviz.views.window.pane_layouts import TWO_PANES
from tests.helpers.window import JAX_MS, devices_tab, wait_for_panes

# Not in the fast tier: the window on the real engine.
pytestmark = pytest.mark.slow


def _state(win) -> dict:
    return {f.name: getattr(win.state, f.name) for f in fields(win.state)}


def _open(qtbot, win, example: str) -> None:
    win.open_example(example)
    wait_for_panes(qtbot, win, lambda: win.router.result is not None
                   and win.state.function == win.router.result.function)


def _jaxpr(pane) -> str:
    result = getattr(pane, "result", None)
    return result.jaxpr_text if result is not None else ""


def _layout(win) -> dict:
    """What "the layout exactly" means: every dock's visibility, floating and geometry,
    the tool tab shown, the central page, the editor/panes splitter."""
    docks = {name: (d.isVisible(), d.isFloating(), d.geometry().getRect())
             for name, d in win.docks.items()}
    return {"docks": docks, "tab": win.tools.currentIndex(),
            "tabs": [win.tools.tabText(i) for i in range(win.tools.count())],
            "maximized": win.maximizer.panel.isVisible(),
            "splitter": win.splitter.sizes(), "area": win.area.geometry().getRect()}


def _settled(qtbot, win, layout: dict) -> None:
    """The window's layout becomes ``layout`` (once Qt has laid it out)."""
    try:
        qtbot.waitUntil(lambda: _layout(win) == layout, timeout=3000)
    except Exception:
        assert _layout(win) == layout  # says what differs


def _press(qtbot, widget, key, modifier=Qt.KeyboardModifier.NoModifier) -> None:
    qtbot.keyClick(widget, key, modifier)


def _loaded(qtbot, presentation) -> None:
    qtbot.waitUntil(lambda: bool(presentation.slides), timeout=JAX_MS)


# --------------------------------------------------------------------------- present


def test_present_shows_the_windows_function_and_esc_gives_the_window_back(qtbot, window):
    _open(qtbot, window, "convolve")
    window.state.set_setting("args", "f32[7], f32[3]")  # the window's own arguments
    window.session.trace_now()
    wait_for_panes(qtbot, window, lambda: "f32[7]" in _jaxpr(window.area.panes["plain"]))
    window.editor.setFocus()
    before, text = _state(window), window.editor.toPlainText()
    layout = _layout(window)

    _press(qtbot, window, Qt.Key.Key_F5, Qt.KeyboardModifier.ShiftModifier)
    presentation = window.presentation.presentation
    assert presentation is not None
    qtbot.waitUntil(presentation.isFullScreen)
    qtbot.waitUntil(lambda: presentation.geometry() == window.screen().geometry())
    _loaded(qtbot, presentation)
    views = [s.view for s in presentation.slides]
    assert views[:3] == ["title", "source", "jaxpr"] and "diff" in views and "timing" not in views
    assert presentation.index == 1  # nothing clicked in the window: the source
    jaxpr = next(s for s in presentation.slides if s.view == "jaxpr")
    # traced from the window's arguments (f32[7]), not the example's own
    assert jaxpr.data.result.variant("plain").jaxpr_text == \
        _jaxpr(window.area.panes["plain"])
    assert "f32[7]" in "\n".join(jaxpr.lines)

    presentation.setFocus()
    _press(qtbot, presentation, Qt.Key.Key_Right)
    assert presentation.index == 2
    _press(qtbot, presentation, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: window.presentation.presentation is None)
    assert _state(window) == before
    assert window.editor.toPlainText() == text
    assert _layout(window) == layout
    qtbot.waitUntil(lambda: QApplication.focusWidget() is window.editor)


def test_present_starts_at_the_device_views_phase(qtbot, window):
    view = devices_tab(qtbot, window, "data_parallel", (1600, 950))
    view.step(1)
    view.step(1)
    phase, variant = view.current_phase, window.tools.device_variant.currentData()
    presentation = window.presentation.present()
    _loaded(qtbot, presentation)
    slide = presentation.slide
    assert (slide.view, slide.variant, slide.phase) == ("device", variant, phase)
    presentation.close()
    window.presentation._back()


def test_e_edits_in_the_window_and_present_comes_back_to_the_same_slide_retraced(
        qtbot, window):
    _open(qtbot, window, "convolve")
    presentation = window.presentation.present()
    _loaded(qtbot, presentation)
    presentation.setFocus()
    assert presentation.index == 1  # the source
    _press(qtbot, presentation, Qt.Key.Key_Right)
    assert presentation.slide.view == "jaxpr"
    _press(qtbot, presentation, Qt.Key.Key_E)
    qtbot.waitUntil(lambda: window.presentation.presentation is None)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is window.editor)
    edited = window.editor.toPlainText().replace("return jnp.array(output)",
                                                 "return jnp.array(output) * 2")
    assert edited != window.editor.toPlainText()
    window.editor.setPlainText(edited)

    again = window.presentation.present()
    _loaded(qtbot, again)
    assert again.index == 2 and again.slide.view == "jaxpr"
    assert "mul" in "\n".join(again.slide.lines)  # the edited function, traced again
    again.close()
    window.presentation._back()


def test_present_of_a_function_that_cannot_run_says_why(qtbot, window):
    _open(qtbot, window, "convolve")
    window.editor.setPlainText(window.editor.toPlainText().replace("def convolve(x, w):",
                                                                   "def convolve(x, w:"))
    assert window.presentation.present() is None
    assert window.status_text.text().startswith("cannot present: SyntaxError")


# --------------------------------------------------------------------------- maximize


@pytest.mark.parametrize(("key", "view_name"), [(Qt.Key.Key_F6, "devices"),
                                                (Qt.Key.Key_F7, "timing")])
def test_the_maximize_key_fills_the_central_area_and_gives_the_layout_back(
        qtbot, window, key, view_name):
    _open(qtbot, window, "data_parallel")
    layout = _layout(window)
    _press(qtbot, window, key)
    assert window.state.maximized == view_name
    page = getattr(window.tools, view_name)
    qtbot.waitUntil(lambda: page.view is not None and page.isVisible())
    inside = QRect(0, window.menuBar().geometry().bottom() + 1, window.width(),
                   window.statusBar().geometry().top() - window.menuBar().geometry().bottom() - 1)
    qtbot.waitUntil(lambda: QRect(page.mapTo(window, page.rect().topLeft()), page.size())
                    == inside)
    # over the central area and every dock: nothing else of the window shows
    assert inside.contains(window.centralWidget().geometry())
    for dock in window.docks.values():
        assert inside.contains(dock.geometry())
    assert window.childAt(inside.center()) is not None
    assert page.isAncestorOf(window.childAt(inside.center())) or \
        window.childAt(inside.center()) is page
    _press(qtbot, window, key)  # the same key again
    _settled(qtbot, window, layout)
    _press(qtbot, window, key)
    _press(qtbot, window, Qt.Key.Key_Escape)  # or Esc
    assert window.state.maximized == ""
    _settled(qtbot, window, layout)


def test_the_maximized_device_view_keeps_animating_the_windows_result(qtbot, window):
    view = devices_tab(qtbot, window, "data_parallel", (1280, 720))
    docked = view.scroller.viewport().size()  # (the canvas in it may be taller: it scrolls)
    window.maximizer.toggle("devices")
    qtbot.waitUntil(lambda: view.scroller.viewport().height() > docked.height())
    assert view.scroller.viewport().width() >= docked.width()
    phases = len(view.phases)
    assert phases > 1
    view.step(1)
    assert view.current_phase == 1
    window.maximizer.toggle("devices")
    assert window.tools.currentWidget() is window.tools.devices


def test_undock_floats_the_tool_dock_and_docks_it_again(qtbot, window):
    dock = window.docks["Console · Devices · Timing"]
    window.actions_by_name["undock_tools"].trigger()
    qtbot.waitUntil(dock.isFloating)
    assert dock.isVisible()
    button = window.tools.cornerWidget(Qt.Corner.TopRightCorner).findChild(
        QToolButton, "undock_tools")
    assert button is not None
    button.click()
    qtbot.waitUntil(lambda: not dock.isFloating())


# --------------------------------------------------------------------------- two panes


def test_two_panes_show_the_two_chosen_variants_wide_and_are_remembered(
        qtbot, make_window):
    win = make_window(1280, 720)
    _open(qtbot, win, "data_parallel")
    win.state.visible_variants = ["plain", "vmap", "pmap", "sharded"]
    win.actions_by_name["two_panes"].trigger()
    win.actions_by_name["two_left_pmap"].trigger()
    win.actions_by_name["two_right_sharded"].trigger()
    wait_for_panes(qtbot, win, lambda: _jaxpr(win.area.panes["sharded"]) != "")
    assert win.state.pane_layout == TWO_PANES and win.state.two_panes == ("pmap", "sharded")
    shown = [v for v in VARIANTS if win.area.panes[v].isVisible()]
    assert sorted(shown) == ["pmap", "sharded"]
    left, right = win.area.panes["pmap"], win.area.panes["sharded"]
    assert left.mapTo(win.area, left.rect().topLeft()).x() < \
        right.mapTo(win.area, right.rect().topLeft()).x()
    for pane in (left, right):
        assert pane.width() >= 0.45 * win.area.width()
    assert win.state.visible_variants == ["plain", "vmap", "pmap", "sharded"]  # kept
    win.close()

    again = make_window(1280, 720)
    assert again.state.pane_layout == TWO_PANES and again.state.two_panes == ("pmap", "sharded")
    assert again.area.shown_variants() == ["pmap", "sharded"]
    again.toggle_two_panes()
    assert again.state.pane_layout == "auto"


def test_the_presenter_keys_step_the_maximized_device_view_and_a_tool_key_puts_it_back(
        qtbot, window):
    window.resize(1280, 720)
    window.open_example("data_parallel")
    wait_for_panes(qtbot, window, lambda: window.router.details is not None)
    window.tools.setCurrentWidget(window.tools.console)  # the Devices tab never shown
    window.actions_by_name["max_devices"].trigger()
    qtbot.waitUntil(lambda: window.tools.devices.view is not None
                    and len(window.tools.devices.view.phases) > 1, timeout=JAX_MS)
    view = window.tools.devices.view
    qtbot.waitUntil(view.isVisible)
    assert view.current_phase == 0
    window.activateWindow()
    view.setFocus()
    qtbot.waitUntil(view.hasFocus)
    QTest.keyClick(view, Qt.Key.Key_Right)  # the clicker
    assert view.current_phase == 1
    QTest.keyClick(view, Qt.Key.Key_PageUp)
    assert view.current_phase == 0
    window.actions_by_name["show_console"].trigger()  # Ctrl+Shift+C: back in its tab first
    assert window.state.maximized == ""
    assert window.tools.currentWidget() is window.tools.console
    assert window.tools.indexOf(window.tools.devices) >= 0


def test_present_starts_on_the_device_views_plain_variant_with_its_phases(qtbot, window):
    """Shift+F5 with the Devices tab up on the plain variant (its pane clicked): the deck
    animates that variant, every phase of it, and starts on the phase on screen (main
    left plain out and animated the first parallel variant instead, starting elsewhere)."""
    devices_tab(qtbot, window, "convolve", (1600, 950))
    tools = window.tools
    window.state.focused_variant = "plain"
    qtbot.waitUntil(lambda: tools.devices.view is not None and bool(tools.devices.view.phases)
                    and tools.devices.view.scene.variant == "plain", timeout=JAX_MS)
    view = tools.devices.view
    assert len(view.phases) >= 2
    view.step(1)
    phase, count = view.current_phase, len(view.phases)
    presentation = window.presentation.present()
    _loaded(qtbot, presentation)
    slide = presentation.slide
    assert (slide.view, slide.variant, slide.phase) == ("device", "plain", phase)
    phases = [s.phase for s in presentation.slides if s.view == "device" and s.variant == "plain"]
    assert phases == list(range(count))  # every phase of the variant on screen
    presentation.close()
    window.presentation._back()


def test_present_includes_the_jaxpr_of_the_pane_last_clicked(qtbot, window):
    """A pane clicked (the focused variant) whose jaxpr the function's steps would not show
    (jit: neither the first jaxpr nor a parallel program) gets its slide, started on."""
    _open(qtbot, window, "convolve")
    window.state.set_variant_visible("jit", True)  # Ctrl+2
    window.session.trace_now()
    wait_for_panes(qtbot, window, lambda: "jit" in window.area.panes
                   and bool(_jaxpr(window.area.panes["jit"])))
    assert "jit" in window.state.shown_variants()
    window.state.focused_variant = "jit"
    presentation = window.presentation.present()
    _loaded(qtbot, presentation)
    slide = presentation.slide
    assert (slide.view, slide.variant) == ("jaxpr", "jit"), (slide.view, slide.variant)
    presentation.close()
    window.presentation._back()
