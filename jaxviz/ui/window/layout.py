"""The window's remembered state: layout, zoom, full screen, panes, recent files, recovery.

A mixin for :class:`~jaxviz.ui.window.main_window.MainWindow`, kept apart so the
window module stays about wiring. Everything here is read from and written
to :class:`~jaxviz.ui.window.settings.Settings` (QSettings).
"""

from __future__ import annotations

import time
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QApplication

from jaxviz.model import VARIANTS
from jaxviz.ui.theme import style
from jaxviz.ui.window.parts import WindowParts


class WindowStateMixin(WindowParts):
    """Zoom, full screen, window layout, pane choice, recent files and crash recovery."""

    zoom = 0

    # ---------------------------------------------------------------- zoom
    def set_zoom(self, zoom: int) -> None:
        """Resize every text in the window (Ctrl+= / Ctrl+-); remembered."""
        zoom = max(style.MIN_ZOOM, min(style.MAX_ZOOM, int(zoom)))
        self.zoom = zoom
        self.settings.zoom = zoom
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.setFont(style.ui_font(zoom))
        self.editor.set_zoom(zoom)
        self.area.set_zoom(zoom)
        self.tools.console.set_zoom(zoom)
        if self.tools.values.view is not None:
            self.tools.values.view.set_zoom(zoom)
        self.args_panel.set_zoom(zoom)
        self.set_status(f"zoom {zoom:+d}" if zoom else "zoom reset")

    def zoom_by(self, step: int) -> None:
        self.set_zoom(self.zoom + step)

    def toggle_full_screen(self) -> None:
        if self.isFullScreen():
            self.showMaximized() if getattr(self, "_was_maximized", False) else self.showNormal()
        else:
            self._was_maximized = self.isMaximized()
            self.showFullScreen()

    def toggle_side_panels(self) -> None:
        """Ctrl+B: hide the gallery and arguments (or show them again)."""
        side = [self.docks["Gallery"], self.docks["Arguments"]]
        show = not any(d.isVisible() for d in side)
        for dock in side:
            dock.setVisible(show)

    def grow_tools(self) -> None:
        """The device and timing views need room: give the tool tabs ~55% of the height once."""
        dock = self.docks["Console · Devices · Timing"]
        if getattr(self, "_tools_grown", False) or dock.isFloating():
            return
        self._tools_grown = True
        if dock.height() < 0.5 * self.height():
            self.resizeDocks([dock], [int(0.55 * self.height())], Qt.Orientation.Vertical)

    def set_pane_layout(self, mode: str) -> None:
        """``auto``, ``side by side`` or ``tabs`` (the panes and the menu follow the state)."""
        self.state.pane_layout = mode

    def _on_pane_layout(self, mode: str) -> None:
        self.area.set_layout_mode(mode)
        self.settings.pane_layout = mode

    # ------------------------------------------------------- save / restore
    def restore_window_state(self) -> None:
        geometry, state, splitter = self.settings.window()
        if geometry is None:
            self.resize(1600, 950)
        else:
            self.restoreGeometry(geometry)
        if state is not None:
            self.restoreState(state)
        else:
            self.resizeDocks([self.docks["Gallery"], self.docks["Arguments"]], [330, 470],
                             Qt.Orientation.Vertical)
            self.resizeDocks([self.docks["Gallery"]], [250], Qt.Orientation.Horizontal)
            self.resizeDocks([self.docks["Console · Devices · Timing"]], [120],
                             Qt.Orientation.Vertical)
        if splitter is not None:
            self.splitter.restoreState(splitter)
        else:
            editor = self.editor.fontMetrics().horizontalAdvance("m") * 54 + \
                self.editor.gutter_width()
            self.splitter.setSizes([editor, max(400, self.width() - editor)])
        variants = self.settings.visible_variants
        if variants:
            self.state.visible_variants = [v for v in VARIANTS if v in variants] or ["plain"]
        self.set_pane_layout(self.settings.pane_layout)
        zoom = self.settings.zoom
        if zoom:
            self.set_zoom(zoom)
        self.recent_files_changed(self.settings.recent_files())

    def save_window_state(self) -> None:
        self.settings.save_window(self.saveGeometry(), self.saveState(),
                                  self.splitter.saveState())
        self.settings.visible_variants = self.state.visible_variants
        self.settings.sync()

    # --------------------------------------------------------- recent files
    def recent_files_changed(self, files: list[str]) -> None:
        menu = self.recent_menu
        menu.clear()
        for path in files:
            action = QAction(path, self)
            action.triggered.connect(lambda _=False, p=path: self.open_file(p))
            action.setEnabled(Path(path).exists())
            menu.addAction(action)
        if files:
            menu.addSeparator()
            clear = QAction("Clear the list", self)
            clear.triggered.connect(self._clear_recent_files)
            menu.addAction(clear)
        menu.setEnabled(bool(files))

    def _clear_recent_files(self) -> None:
        self.settings.clear_recent_files()
        self.recent_files_changed([])

    # ------------------------------------------------------------- recovery
    def offer_recovery(self) -> bool:
        """If an earlier run left unsaved text behind, offer it back. True if there was some."""
        pending = self.document.recovery.pending()
        if not pending:
            return False
        meta, text = pending[0]
        what = meta.get("path") or (f"example {meta['example']}" if meta.get("example")
                                    else "untitled text")
        when = time.strftime("%d %b %H:%M", time.localtime(float(meta.get("saved", 0))))
        recovery = self.document.recovery

        def restore() -> None:
            self.document.restore(meta, text)
            recovery.discard(meta.get("key", ""))
            self.session.trace_now()

        self.editor_panel.notice.ask(
            f"Unsaved edits to {what} from {when} were recovered after jaxviz ended "
            f"unexpectedly.",
            [("Restore them", restore),
             ("Discard", lambda: recovery.discard(meta.get("key", "")))])
        return True
