"""The window's menus, actions and keyboard shortcuts, in one table.

Every action is built here from :data:`SHORTCUTS`, so the Help ▸ Keyboard
shortcuts dialog and the menus can never disagree.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu

from jaxviz.model import VARIANTS
from jaxviz.ui.panes.area import LAYOUTS

if TYPE_CHECKING:
    from jaxviz.ui.window.main_window import MainWindow

#: name -> (menu text, shortcuts, what it does)
SHORTCUTS: dict[str, tuple[str, list[str], str]] = {
    "new": ("&New", ["Ctrl+N"], "Start an untitled function"),
    "open": ("&Open…", ["Ctrl+O"], "Open a Python file and pick one of its functions"),
    "save": ("&Save", ["Ctrl+S"], "Save the editor's text"),
    "save_as": ("Save &As…", ["Ctrl+Shift+S"], "Save the editor's text under a new name"),
    "quit": ("&Quit", ["Ctrl+Q"], "Quit (asks about unsaved edits)"),
    "retrace": ("&Trace Now", ["F5", "Ctrl+Return"], "Trace again without waiting"),
    "stop": ("&Stop", ["Esc"], "Stop a long trace (restarts the JAX engine)"),
    "restart": ("&Restart JAX Engine", ["Ctrl+Shift+R"], "Start a fresh JAX process"),
    "zoom_in": ("Zoom &In", ["Ctrl+=", "Ctrl++"], "Bigger text everywhere"),
    "zoom_out": ("Zoom &Out", ["Ctrl+-"], "Smaller text everywhere"),
    "zoom_reset": ("&Reset Zoom", ["Ctrl+0"], "Default text size"),
    "fullscreen": ("&Full Screen", ["F11"], "Full screen on and off"),
    "side_panels": ("Side &Panels", ["Ctrl+B"], "Hide or show the gallery and arguments "
                                                "(more room for the panes)"),
    "focus_editor": ("Go to &Editor", ["Ctrl+E"], "Put the cursor in the editor"),
    "focus_args": ("Go to &Arguments", ["Ctrl+L"], "Put the cursor in the argument spec"),
    "help_keys": ("&Keyboard Shortcuts", ["F1"], "This list"),
}
#: Ctrl+1..6 show or hide the panes, in pane order.
PANE_KEYS = {v: f"Ctrl+{n}" for n, v in enumerate(VARIANTS, 1)}


def _action(window: MainWindow, name: str, slot) -> QAction:
    text, keys, tip = SHORTCUTS[name]
    action = QAction(text, window)
    action.setShortcuts([QKeySequence(k) for k in keys])
    action.setStatusTip(tip)
    action.setToolTip(f"{tip} ({', '.join(keys)})")
    action.triggered.connect(slot)
    window.addAction(action)  # shortcuts work in full screen without a menu bar too
    return action


def build_menus(window: MainWindow) -> dict[str, QAction]:
    """Create the menu bar and return the actions by name."""
    a: dict[str, QAction] = {}
    bar = window.menuBar()

    file_menu = bar.addMenu("&File")
    for name, slot in (("new", window.new_file), ("open", window.open_file_dialog)):
        a[name] = _action(window, name, slot)
        file_menu.addAction(a[name])
    window.recent_menu = QMenu("Open &Recent", window)
    file_menu.addMenu(window.recent_menu)
    file_menu.addSeparator()
    for name, slot in (("save", window.save), ("save_as", window.save_as)):
        a[name] = _action(window, name, slot)
        file_menu.addAction(a[name])
    file_menu.addSeparator()
    a["quit"] = _action(window, "quit", window.close)
    file_menu.addAction(a["quit"])

    examples = bar.addMenu("&Examples")
    for n, (name, ex) in enumerate(window.gallery.examples.items(), 1):
        act = QAction(f"{n}. {name} — {ex.topic}", window)
        act.setStatusTip(ex.title)
        act.triggered.connect(lambda _=False, e=name: window.open_example(e))
        examples.addAction(act)

    view = bar.addMenu("&View")
    panes = view.addMenu("&Panes")
    for variant in VARIANTS:
        act = QAction(variant, window, checkable=True)
        act.setShortcut(QKeySequence(PANE_KEYS[variant]))
        act.setChecked(variant in window.area.visible_variants)
        act.toggled.connect(lambda on, v=variant: window.area.set_variant_visible(v, on))
        window.addAction(act)
        panes.addAction(act)
        a[f"pane_{variant}"] = act
    layouts = view.addMenu("Pane &Layout")
    for mode in LAYOUTS:
        act = QAction(mode, window, checkable=True)
        act.setChecked(mode == window.area.layout_mode)
        act.triggered.connect(lambda _=False, m=mode: window.set_pane_layout(m))
        layouts.addAction(act)
        a[f"layout_{mode}"] = act
    view.addSeparator()
    for name, slot in (("zoom_in", lambda: window.zoom_by(1)),
                       ("zoom_out", lambda: window.zoom_by(-1)),
                       ("zoom_reset", lambda: window.set_zoom(0)),
                       ("fullscreen", window.toggle_full_screen)):
        a[name] = _action(window, name, slot)
        view.addAction(a[name])
    view.addSeparator()
    a["side_panels"] = _action(window, "side_panels", window.toggle_side_panels)
    view.addAction(a["side_panels"])
    for dock in window.docks.values():
        view.addAction(dock.toggleViewAction())
    view.addSeparator()
    for name, slot in (("focus_editor", lambda: window.editor.setFocus()),
                       ("focus_args", lambda: window.args_panel.edits["args"].setFocus())):
        a[name] = _action(window, name, slot)
        view.addAction(a[name])

    run = bar.addMenu("&Run")
    for name, slot in (("retrace", window.retrace), ("stop", window.stop_or_leave),
                       ("restart", window.restart_engine)):
        a[name] = _action(window, name, slot)
        run.addAction(a[name])

    help_menu = bar.addMenu("&Help")
    a["help_keys"] = _action(window, "help_keys", window.show_shortcuts)
    help_menu.addAction(a["help_keys"])
    return a


def shortcuts_html() -> str:
    """The shortcut table for the help dialog."""
    rows = [f"<tr><td><b>{', '.join(keys)}</b></td><td>{text.replace('&', '').rstrip('…')}"
            f"</td><td>{tip}</td></tr>" for text, keys, tip in SHORTCUTS.values()]
    rows.append("<tr><td><b>Ctrl+1 … Ctrl+6</b></td><td>Panes</td><td>Show or hide "
                + ", ".join(VARIANTS) + "</td></tr>")
    rows.append("<tr><td><b>hover / click</b></td><td>Linking</td><td>An equation lights up "
                "its source line and its siblings in every pane; a source line its "
                "equations</td></tr>")
    return "<table cellpadding=4>" + "".join(rows) + "</table>"
