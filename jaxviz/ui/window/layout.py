"""The window's remembered state: layout, zoom, full screen, panes, recent files, recovery.

A mixin for :class:`~jaxviz.ui.window.main_window.MainWindow`, kept apart so the
window module stays about wiring. Everything here is read from and written
to :class:`~jaxviz.ui.window.settings.Settings` (QSettings).

On the first run the window is sized and laid out for the screen it opens on
(:func:`~jaxviz.views.window.screen_fit.plan_window`: a projector-sized screen gets
a maximized window with two panes and the tool dock in view); a remembered
frame that no longer fits a screen is moved and shrunk back onto one when the
window is shown, and again whenever a screen is added, removed or resized
(:meth:`WindowStateMixin.keep_on_screen`).
"""

from __future__ import annotations

import time
from pathlib import Path

from PySide6.QtCore import QByteArray, QRect, Qt, QTimer
from PySide6.QtGui import QAction, QFont, QFontMetrics, QGuiApplication, QShowEvent
from PySide6.QtWidgets import QApplication, QWidget

from jaxviz.ui.theme import style
from jaxviz.ui.window.parts import WindowParts
from jaxviz.views.window.pane_layouts import TWO_PANES
from jaxviz.views.window.screen_fit import Rect, WindowPlan, fit_frame, plan_window

#: A window's frame beyond its content before the window manager has framed it (a title
#: bar and thin borders; the check after it is framed corrects any difference).
FRAME_ESTIMATE = (2, 32)
#: The characters a side panel (gallery, arguments) always has room for.
SIDE_COLUMNS = 18
#: A field's room for its placeholder, at most this share of a side panel's minimum (a
#: narrower panel scrolls rather than squeezing the field).
FIELD_SHARE = 1.45
#: When, after the window is shown, its frame is checked against the screens (ms).
SCREEN_CHECKS_MS = (0, 400, 1500)


def _rect(rect: QRect) -> Rect:
    return Rect(rect.x(), rect.y(), rect.width(), rect.height())


class WindowStateMixin(WindowParts):
    """Zoom, full screen, window layout, pane choice, recent files and crash recovery."""

    zoom = 0
    #: Whether the window's frame is sized and placed (:meth:`place`, once).
    _placed = False
    #: The layout planned for the screen the window opened on.
    plan: WindowPlan

    # ---------------------------------------------------------------- zoom
    def set_zoom(self, zoom: int) -> None:
        """Resize every text in the window (Ctrl+= / Ctrl+-); remembered. The zoom is the
        window state's (:attr:`WindowState.zoom`): every view follows it."""
        zoom = max(style.MIN_ZOOM, min(style.MAX_ZOOM, int(zoom)))
        self.state.zoom = zoom
        self._apply_zoom(zoom)  # (again: a view built since follows too)
        self.set_status(f"zoom {zoom:+d}" if zoom else "zoom reset")

    def _apply_zoom(self, zoom: int) -> None:
        """One text scale for every view: editor, panes, console, values, arguments,
        gallery and explanation, device view, timing plots, dialogs (the app font)."""
        old = self.zoom
        self.zoom = zoom
        self.settings.zoom = zoom
        app = QApplication.instance()
        if isinstance(app, QApplication):
            # A widget with a style sheet of its own (a banner, a tab bar) keeps the font it
            # was polished with (Qt: "do not use setFont with style sheets"), and a pane's
            # title has its own (bold): each is scaled from its own font.
            widgets = [self, *self.findChildren(QWidget)]
            fonts = [QFont(w.font()) for w in widgets]
            app.setFont(style.ui_font(zoom))
            style.scale_fonts(widgets, fonts, style.text_scale(zoom) / style.text_scale(old))
        self.editor.set_zoom(zoom)
        self.area.set_zoom(zoom)
        self.tools.set_zoom(zoom)
        self.args_panel.set_zoom(zoom)
        self.fit_side_panels()

    def fit_side_panels(self) -> None:
        """The gallery and the arguments keep room for :data:`SIDE_COLUMNS` characters of
        the unzoomed text: never squeezed to a few letters, and zoomed in on a small
        screen the window still fits it (the fields then wrap under their labels)."""
        width = QFontMetrics(style.ui_font(0)).averageCharWidth() * SIDE_COLUMNS
        for panel in (self.gallery, self.args_panel):
            panel.setMinimumWidth(width)
        self.args_panel.fit_fields(round(width * FIELD_SHARE))

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
        """The device and timing views need room: give the tool tabs ~55% of the height once
        (and show them, if the compare layout had put them away)."""
        dock = self.docks["Console · Devices · Timing"]
        if not dock.isVisible() and not dock.isFloating():
            dock.show()
        if getattr(self, "_tools_grown", False) or dock.isFloating():
            return
        self._tools_grown = True
        if dock.height() < 0.5 * self.height():
            self.resizeDocks([dock], [int(0.55 * self.height())], Qt.Orientation.Vertical)

    def set_pane_layout(self, mode: str) -> None:
        """``auto``, ``side by side``, ``tabs`` or ``two panes`` (the panes and the menu
        follow the state)."""
        self.state.pane_layout = mode

    def _on_pane_layout(self, mode: str) -> None:
        self.area.set_layout_mode(mode)
        self.settings.pane_layout = mode
        if mode != TWO_PANES:
            self._panes_before_two = mode
        else:
            self.session.schedule()  # a variant of the two not traced yet is traced now

    def toggle_two_panes(self) -> None:
        """Two chosen variants, wide, side by side (again: the layout before)."""
        if self.state.pane_layout == TWO_PANES:
            self.set_pane_layout(getattr(self, "_panes_before_two", "auto"))
        else:
            self.set_pane_layout(TWO_PANES)

    def _on_two_panes(self, pair: tuple[str, str]) -> None:
        self.area.set_two_panes(*pair)
        self.settings.two_panes = pair
        if self.state.pane_layout == TWO_PANES:
            self.session.schedule()  # a variant not traced yet is traced now

    # ------------------------------------------------------- save / restore
    def place(self) -> None:
        """Size and place the window: as remembered, else as planned for this screen
        (:func:`~jaxviz.views.window.screen_fit.plan_window`). The window's first stage:
        its frame is placed, and painted, before its parts are built; once only."""
        if self._placed:
            return
        self._placed = True
        geometry, state, _splitter = self.settings.window()
        self.plan = plan_window(_rect(self._available_geometry()))
        self._planned: WindowPlan | None = None
        self._as_planned = geometry is None or state is None
        if geometry is not None and state is not None:
            self.restoreGeometry(geometry)
        else:
            self._frame_as_planned(self.plan)

    def restore_window_state(self) -> None:
        """The remembered layout, or on the first run the one planned for this screen."""
        from jaxviz.model import VARIANTS
        from jaxviz.views.window.window_state import pane_order

        self.place()
        _geometry, state, splitter = self.settings.window()
        self._arrange(state, splitter)
        if self.isVisible():
            # built into a shown frame: the new docks' first layout, on the next turn, sizes
            # them from their contents (a gallery half the screen wide), so again after it
            QTimer.singleShot(0, self, lambda: self._arrange(state, splitter))
        variants = self.settings.visible_variants
        if variants:
            self.state.visible_variants = pane_order(variants)
        two = self.settings.two_panes
        if two is not None and all(v in VARIANTS for v in two) and two[0] != two[1]:
            self.state.two_panes = two
        self.set_pane_layout(self.settings.pane_layout)
        zoom = self.settings.zoom
        if zoom:
            self.set_zoom(zoom)
        self.recent_files_changed(self.settings.recent_files())
        self._watch_screens()
        if self.isVisible():  # built after the first paint: its docks are laid out now
            self._check_screen_soon()

    def _arrange(self, state: QByteArray | None, splitter: QByteArray | None) -> None:
        """The docks and the editor's share: as remembered, else as planned."""
        if self._as_planned:
            self._docks_as_planned(self.plan)
        elif state is not None:
            self.restoreState(state)
        if splitter is not None:
            self.splitter.restoreState(splitter)
        elif self._planned is None:
            self._split_editor(self.plan.editor_share)

    def apply_plan(self, plan: WindowPlan) -> None:
        """Size and place the window, and lay its docks out, as ``plan`` says (again once
        the window is shown: a window manager maximizes it after it is shown)."""
        self._frame_as_planned(plan)
        self._docks_as_planned(plan)

    def _frame_as_planned(self, plan: WindowPlan) -> None:
        self.setWindowState(self.windowState() & ~Qt.WindowState.WindowMaximized)
        self.resize(plan.frame.width - FRAME_ESTIMATE[0], plan.frame.height - FRAME_ESTIMATE[1])
        self.move(plan.frame.x, plan.frame.y)
        if plan.maximized:
            self.setWindowState(self.windowState() | Qt.WindowState.WindowMaximized)

    def _docks_as_planned(self, plan: WindowPlan) -> None:
        for dock in (self.docks["Gallery"], self.docks["Arguments"]):
            dock.setVisible(plan.side_panels)
        self._lay_out_docks(plan)
        self._planned = plan
        if plan.projector:
            self.set_status("projector layout: Ctrl+B shows the gallery and the arguments")

    def _lay_out_docks(self, plan: WindowPlan) -> None:
        gallery, args = self.docks["Gallery"], self.docks["Arguments"]
        height = self.height()
        self.resizeDocks([gallery, args], [round(height * plan.gallery_height / plan.frame.height),
                                           height], Qt.Orientation.Vertical)
        self.resizeDocks([gallery], [plan.side_width], Qt.Orientation.Horizontal)
        self.resizeDocks([self.docks["Console · Devices · Timing"]],
                         [round(height * plan.tools_height / plan.frame.height)],
                         Qt.Orientation.Vertical)
        self._split_editor(plan.editor_share)

    def _split_editor(self, share: float | None) -> None:
        """The editor as wide as ``share`` of the room beside it, else as its text needs."""
        room = self.splitter.width() if self.splitter.isVisible() else \
            self.width() - (self.plan.side_width if self.plan.side_panels else 0)
        if share is not None:
            editor = round(share * room)
        else:
            editor = self.editor.fontMetrics().horizontalAdvance("m") * 54 + \
                self.editor.gutter_width()
        self.splitter.setSizes([editor, max(400, room - editor)])

    # ------------------------------------------------------ on the screen
    def _available_geometry(self) -> QRect:
        screen = self.screen() or QGuiApplication.primaryScreen()
        return screen.availableGeometry()

    def keep_on_screen(self) -> bool:
        """Move (and shrink) the window back onto a screen if its frame is not inside one
        (remembered geometry from a larger screen, a projector unplugged); True if it moved.
        A maximized or full-screen window is the window manager's to place."""
        if not self.isVisible() or self.windowState() & (Qt.WindowState.WindowMaximized
                                                         | Qt.WindowState.WindowFullScreen):
            return False
        frame = _rect(self.frameGeometry())
        extra = (frame.width - self.width(), frame.height - self.height())
        smallest = self.minimumSizeHint().expandedTo(self.minimumSize())
        fitted = fit_frame(frame, [_rect(s.availableGeometry()) for s in QGuiApplication.screens()],
                           (smallest.width() + extra[0], smallest.height() + extra[1]))
        if fitted == frame:
            return False
        self.resize(fitted.width - extra[0], fitted.height - extra[1])
        self.move(fitted.x, fitted.y)
        return True

    def _watch_screens(self) -> None:
        """Check the window's place after it is shown and framed, and whenever screens change."""
        app = QGuiApplication.instance()
        if isinstance(app, QGuiApplication):
            app.screenAdded.connect(self._screens_changed)
            app.screenRemoved.connect(self._screens_changed)
            for screen in app.screens():
                screen.availableGeometryChanged.connect(self._screens_changed)

    def _screens_changed(self, *_args: object) -> None:
        app = QGuiApplication.instance()
        if isinstance(app, QGuiApplication):
            for screen in app.screens():  # a new screen's changes count too (connected once)
                screen.availableGeometryChanged.connect(
                    self._screens_changed, Qt.ConnectionType.UniqueConnection)
        QTimer.singleShot(0, self, self.keep_on_screen)

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802
        super().showEvent(event)
        if not event.spontaneous():
            self._check_screen_soon()

    def _check_screen_soon(self) -> None:
        """The window manager frames (and maximizes) the window after it is shown: its
        place is checked then, a few times."""
        for n, delay in enumerate(SCREEN_CHECKS_MS, 1):
            last = n == len(SCREEN_CHECKS_MS)
            QTimer.singleShot(delay, self, lambda last=last: self._after_shown(last))

    def _after_shown(self, last: bool) -> None:
        """A first window planned maximized gets its docks laid out again at the size the
        window manager gave it (until the last check); any window is kept on screen."""
        if not self.built:  # its frame only: the parts' checks come when they are built
            self.keep_on_screen()
            return
        if self._planned is not None and self._planned.maximized and self.isMaximized():
            self._lay_out_docks(self._planned)
        if last:
            self._planned = None
        self.keep_on_screen()

    def save_window_state(self) -> None:
        # the splitter saves the sizes last asked of it; what the window shows may differ
        # (a dock widened into it squeezes the editor when the panes are at their minimum):
        # the window comes back as it was left, not as it was last asked to be
        self.splitter.setSizes(self.splitter.sizes())
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
