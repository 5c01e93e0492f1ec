"""The window's menus, actions and keyboard shortcuts, in one table.

Every action is built here from :data:`SHORTCUTS`, so the Help ▸ Keyboard
shortcuts dialog and the menus can never disagree. The menus know the window
only through a name -> callable map of what each action does, and the window
state they show (which panes, which layout).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDockWidget, QMainWindow, QMenu

from jaxviz.model import VARIANTS, Example, variant_label
from jaxviz.ui.binding import follow
from jaxviz.ui.panes.area import LAYOUTS
from jaxviz.views.keys import key_label
from jaxviz.views.window.clicker_views import PRESENTER_KEYS
from jaxviz.views.window.pane_layouts import TWO_PANES
from jaxviz.views.window.window_state import WindowState

#: name -> (menu text, shortcuts, what it does)
SHORTCUTS: dict[str, tuple[str, list[str], str]] = {
    "new": ("&New", ["Ctrl+N"], "Start an untitled function"),
    "open": ("&Open…", ["Ctrl+O"], "Open a Python file and pick one of its functions"),
    "save": ("&Save", ["Ctrl+S"], "Save the editor's text"),
    "save_as": ("Save &As…", ["Ctrl+Shift+S"], "Save the editor's text under a new name"),
    "quit": ("&Quit", ["Ctrl+Q"], "Quit (asks about unsaved edits)"),
    "retrace": ("&Trace Now", ["F5", "Ctrl+Return"], "Trace again without waiting"),
    "run_once": ("Run &Once", ["Ctrl+R"], "Call the focused pane's variant once with real "
                                          "values; the Console shows what it printed (a "
                                          "shard_map body: each device's values) and returned"),
    "stop": ("&Stop", ["Esc"], "Stop a long trace (restarts the JAX engine)"),
    "restart": ("&Restart JAX Engine", ["Ctrl+Shift+R"], "Start a fresh JAX process"),
    "zoom_in": ("Zoom &In", ["Ctrl+=", "Ctrl++"], "Bigger text everywhere"),
    "zoom_out": ("Zoom &Out", ["Ctrl+-"], "Smaller text everywhere"),
    "zoom_reset": ("&Reset Zoom", ["Ctrl+0"], "Default text size"),
    "fullscreen": ("&Full Screen", ["F11"], "Full screen on and off"),
    "side_panels": ("Side &Panels", ["Ctrl+B"], "Hide or show the gallery and arguments "
                                                "(more room for the panes)"),
    "compare": ("&Compare Variants…", ["Ctrl+D"], "Compare two variants equation by equation "
                                                  "(pick them in its header; again: back to "
                                                  "the panes)"),
    "two_panes": ("T&wo Panes", ["Ctrl+Shift+2"], "Two variants side by side, wide (pick "
                                                  "them in View ▸ Two Panes; again: the "
                                                  "layout before)"),
    "max_devices": ("Maximize &Devices", ["F6"], "The device view fills the window (again "
                                                 "or Esc: the layout before)"),
    "max_timing": ("Maximize &Timing", ["F7"], "The timing view fills the window (again or "
                                               "Esc: the layout before)"),
    "undock_tools": ("&Undock Devices · Timing", ["Ctrl+Shift+U"], "The Console, Devices and "
                                                                   "Timing tabs in a window of "
                                                                   "their own (again: docked)"),
    "present": ("&Present", ["Shift+F5"], "The function full screen, one large view per step, "
                                          "for a clicker (Esc: back here; E: edit it here, "
                                          "then Shift+F5 again)"),
    "focus_editor": ("Go to &Editor", ["Ctrl+E"], "Put the cursor in the editor"),
    "focus_args": ("Go to &Arguments", ["Ctrl+L"], "Put the cursor in the argument spec"),
    "step_mode": ("Step &Mode", ["F9"], "Step through the focused pane's jaxpr with real "
                                        "values (on and off)"),
    "show_console": ("&Console", ["Ctrl+Shift+C"], "Show the Console tab (what the function "
                                                   "printed)"),
    "show_values": ("&Values", ["Ctrl+Shift+V"], "Show the Values tab (step mode)"),
    "show_devices": ("&Devices", ["Ctrl+Shift+D"], "Show the Devices tab (shards on devices)"),
    "show_timing": ("&Timing", ["Ctrl+Shift+T"], "Show the Timing tab (dispatch versus "
                                                 "completion)"),
    "step_next": ("&Next Step", ["F10"], "One step on, into nested jaxprs (in step mode the "
                                         "presenter keys too)"),
    "step_back": ("&Previous Step", ["Shift+F10"], "One step back"),
    "step_over": ("Step &Over", ["F8"], "Over a nested jaxpr, to where it ends"),
    "step_out": ("Step O&ut", ["Shift+F8"], "Out of the nested jaxpr the step is in"),
    "run_to_line": ("&Run to Cursor Line", ["Ctrl+F10"], "Step to the first equation of the "
                                                          "editor's cursor line"),
    "help_keys": ("&Keyboard Shortcuts", ["F1"], "This list"),
}
#: Ctrl+1..6 show or hide the built variants' panes, in pane order; Ctrl+7 the function
#: as written (it came later: the six keep the keys lectures learned).
_BUILT = [v for v in VARIANTS if v != "as_written"]
PANE_KEYS = {**{v: f"Ctrl+{n}" for n, v in enumerate(_BUILT, 1)},
             "as_written": f"Ctrl+{len(_BUILT) + 1}"}


#: What :func:`build_menus` calls besides the actions of :data:`SHORTCUTS`:
#: ``open_example(name)``, ``show_pane(variant, visible)``, ``pane_layout(mode)``.
#: ``two_panes_pick(left=..., right=...)``.
EXTRA_HANDLERS = ("open_example", "show_pane", "pane_layout", "two_panes_pick")


def _action(window: QMainWindow, name: str, slot: Callable[[], object]) -> QAction:
    text, keys, tip = SHORTCUTS[name]
    action = QAction(text, window)
    action.setShortcuts([QKeySequence(k) for k in keys])
    action.setStatusTip(tip)
    action.setToolTip(f"{tip} ({', '.join(keys)})")
    action.triggered.connect(lambda _checked=False: slot())
    window.addAction(action)  # shortcuts work in full screen without a menu bar too
    return action


def build_menus(window: QMainWindow, handlers: Mapping[str, Callable[..., object]],
                examples: Mapping[str, Example], state: WindowState,
                docks: Iterable[QDockWidget]) -> tuple[dict[str, QAction], QMenu]:
    """Create the menu bar; the actions call ``handlers`` and follow the window state.

    Args:
        window: the window whose menu bar (and shortcuts) these are.
        handlers: action name -> what it does: every key of :data:`SHORTCUTS`,
            plus :data:`EXTRA_HANDLERS`.
        examples: the gallery, by name, for the Examples menu.
        state: the window state: the pane and layout actions show (and follow)
            which panes are visible and how they are laid out.
        docks: the dock widgets the View menu shows and hides.

    Returns:
        The actions by name, and the (empty) Open Recent menu.

    Raises:
        KeyError: a handler is missing.
    """
    missing = [n for n in (*SHORTCUTS, *EXTRA_HANDLERS) if n not in handlers]
    if missing:
        raise KeyError(f"no handler for the actions {', '.join(missing)}")
    a: dict[str, QAction] = {}
    bar = window.menuBar()

    def add(menu: QMenu, *names: str) -> None:
        for name in names:
            a[name] = _action(window, name, handlers[name])
            menu.addAction(a[name])

    file_menu = bar.addMenu("&File")
    add(file_menu, "new", "open")
    recent_menu = QMenu("Open &Recent", window)
    file_menu.addMenu(recent_menu)
    file_menu.addSeparator()
    add(file_menu, "save", "save_as")
    file_menu.addSeparator()
    add(file_menu, "quit")

    examples_menu = bar.addMenu("&Examples")
    for n, (name, ex) in enumerate(examples.items(), 1):
        act = QAction(f"{n}. {name} — {ex.topic}", window)
        act.setStatusTip(ex.title)
        act.triggered.connect(lambda _=False, e=name: handlers["open_example"](e))
        examples_menu.addAction(act)

    view = bar.addMenu("&View")
    panes = view.addMenu("&Panes")
    for variant in VARIANTS:
        act = QAction(variant_label(variant), window, checkable=True)
        act.setShortcut(QKeySequence(PANE_KEYS[variant]))
        act.setChecked(variant in state.visible_variants)
        act.toggled.connect(lambda on, v=variant: handlers["show_pane"](v, on))
        window.addAction(act)
        panes.addAction(act)
        a[f"pane_{variant}"] = act
    layouts = view.addMenu("Pane &Layout")
    for mode in LAYOUTS:
        act = QAction(mode, window, checkable=True)
        act.setChecked(mode == state.pane_layout)
        act.triggered.connect(lambda _=False, m=mode: handlers["pane_layout"](m))
        layouts.addAction(act)
        a[f"layout_{mode}"] = act
    two = view.addMenu("T&wo Panes")
    add(two, "two_panes")
    for side in ("left", "right"):
        menu = two.addMenu(f"&{side.title()} Pane")
        for variant in VARIANTS:
            act = QAction(variant_label(variant), window, checkable=True)
            act.triggered.connect(lambda _=False, s=side, v=variant:
                                  handlers["two_panes_pick"](**{s: v}))
            menu.addAction(act)
            a[f"two_{side}_{variant}"] = act
    add(view, "compare")
    view.addSeparator()
    add(view, "max_devices", "max_timing", "undock_tools")
    view.addSeparator()
    add(view, "present")
    view.addSeparator()
    add(view, "zoom_in", "zoom_out", "zoom_reset", "fullscreen")
    view.addSeparator()
    add(view, "side_panels")
    for dock in docks:
        view.addAction(dock.toggleViewAction())
    view.addSeparator()
    add(view, "show_console", "show_values", "show_devices", "show_timing")
    view.addSeparator()
    add(view, "focus_editor", "focus_args")

    run = bar.addMenu("&Run")
    add(run, "retrace", "run_once", "stop", "restart")

    step = bar.addMenu("S&tep")
    add(step, "step_mode")
    step.addSeparator()
    add(step, "step_next", "step_back", "step_over", "step_out", "run_to_line")

    help_menu = bar.addMenu("&Help")
    add(help_menu, "help_keys")
    _follow_state(a, state)
    return a, recent_menu


def _follow_state(actions: dict[str, QAction], state: WindowState) -> None:
    """Tick the pane and layout actions as the state changes (without triggering them)."""

    def panes(visible: list[str]) -> None:
        for variant in VARIANTS:
            act = actions[f"pane_{variant}"]
            act.blockSignals(True)
            act.setChecked(variant in visible)
            act.blockSignals(False)

    def layout(mode: str) -> None:
        for name in LAYOUTS:
            actions[f"layout_{name}"].setChecked(name == mode)
        actions["two_panes"].setChecked(mode == TWO_PANES)

    def two(pair: tuple[str, str]) -> None:
        for side, chosen in zip(("left", "right"), pair):
            for variant in VARIANTS:
                actions[f"two_{side}_{variant}"].setChecked(variant == chosen)

    actions["two_panes"].setCheckable(True)
    owner = actions["two_panes"]
    layout(state.pane_layout)
    two(state.two_panes)
    follow(state, "visible_variants", panes, owner)
    follow(state, "pane_layout", layout, owner)
    follow(state, "two_panes", two, owner)


def shortcuts_html() -> str:
    """The shortcut table for the help dialog."""
    rows = [f"<tr><td><b>{', '.join(keys)}</b></td><td>{text.replace('&', '').rstrip('…')}"
            f"</td><td>{tip}</td></tr>" for text, keys, tip in SHORTCUTS.values()]
    rows.append(f"<tr><td><b>Ctrl+1 … {PANE_KEYS['as_written']}</b></td><td>Panes</td><td>"
                "Show or hide " + ", ".join(variant_label(v) for v in sorted(
                    VARIANTS, key=lambda v: PANE_KEYS[v])) + "</td></tr>")
    rows.append("<tr><td><b>" + ", ".join(map(key_label, PRESENTER_KEYS))
                + "</b></td><td>Presenter keys"
                "</td><td>Step what is shown (step mode, else the Devices tab's animation), "
                "whatever has the keyboard; a text field being typed in keeps Right, Left "
                "and Space</td></tr>")
    rows.append("<tr><td><b>hover / click</b></td><td>Linking</td><td>An equation lights up "
                "its source line and its siblings in every pane; a source line its "
                "equations</td></tr>")
    return "<table cellpadding=4>" + "".join(rows) + "</table>"
