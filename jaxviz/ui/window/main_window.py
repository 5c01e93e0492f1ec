"""The main window: gallery and arguments on the left, the editor and the jaxpr panes
side by side, the console, device and timing views in tabs underneath.

The window never waits for JAX: it is shown before the engine process has
started, requests go out through a :class:`~jaxviz.ui.window.session.TraceSession`
and results come back as Qt signals.

What the window shows lives in one :class:`~jaxviz.views.window.window_state.WindowState`
(:attr:`MainWindow.state`, followed with :func:`~jaxviz.ui.binding.follow`): the
document writes its text and function into it, the arguments panel its
fields, the panes which are visible; the trace request is derived from it
alone, and the views follow it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QCloseEvent, QFont
from PySide6.QtWidgets import QLabel, QWidget

from jaxviz.ui.text.plain import plain
from jaxviz.ui.text.steady_label import SteadyLabel
from jaxviz.ui.theme import style
from jaxviz.ui.window.files import WindowFilesMixin
from jaxviz.ui.window.layout import WindowStateMixin
from jaxviz.ui.window.settings import RememberedSettings

if TYPE_CHECKING:  # the parts are imported by the methods that build them (see build)
    from jaxviz.model import TraceRequest, TraceResult, VariantResult
    from jaxviz.model.engine import EngineEvent
    from jaxviz.ui.panes.jaxpr_pane import JaxprPane
    from jaxviz.ui.qt_engine import QtEngine
    from jaxviz.ui.window.shortcuts_dialog import ShortcutsDialog


class MainWindow(WindowFilesMixin, WindowStateMixin):
    """jaxviz's main window. ``engine`` defaults to a real engine process."""

    #: The jaxpr panes in view show a new result (or its error): each pane's is put in a
    #: turn of the event loop of its own, after the turn the result came in.
    panesUpdated = Signal()
    #: A result came whose panes in view have not all shown it yet.
    _panes_awaited = False
    #: StableHLO, HLO, costs and layouts of the result arrived.
    detailsUpdated = Signal()

    def __init__(self, settings: RememberedSettings | None = None, engine: QtEngine | None = None,
                 devices: int | None = None, parent: QWidget | None = None,
                 staged: bool = False):
        """Build the window; ``staged``: only its frame now (placed, titled, saying it
        is starting), its parts with :meth:`build` -- ``jaxviz`` paints the frame first,
        before the parts' modules are imported."""
        super().__init__(parent)
        self.settings = settings or RememberedSettings()
        self._devices = devices or self.settings.devices
        self._engine_given = engine
        #: Whether the parts are built (a staged window's frame has none yet).
        self.built = False
        self.setWindowTitle("jaxviz[*]")
        self.setWindowIcon(style.app_icon())
        if staged:
            self._show_frame()
        else:
            self.build()

    def _show_frame(self) -> None:
        """The first stage: the window where it will be, in the theme, saying it starts."""
        starting = QLabel("Starting jaxviz…")
        starting.setObjectName("starting")
        starting.setAlignment(Qt.AlignmentFlag.AlignCenter)
        font = QFont(starting.font())
        font.setPointSizeF(font.pointSizeF() * 1.5)
        starting.setFont(font)
        self.setCentralWidget(starting)
        self.place()

    def build(self) -> None:
        """Build the window's parts (once): the editor, panes, panels and tool tabs, the
        engine client, menus and status bar, and lay them out as remembered."""
        if self.built:
            return
        from jaxviz.ui.panes.linking import LinkController
        from jaxviz.ui.qt_engine import QtEngine
        from jaxviz.ui.window.actions import build_menus
        from jaxviz.ui.window.comparing import CompareMode
        from jaxviz.ui.window.document import DocumentController
        from jaxviz.ui.window.maximize import ViewMaximizer
        from jaxviz.ui.window.presenter_keys import PresenterKeys
        from jaxviz.ui.window.presenting import WindowPresentation
        from jaxviz.ui.window.result_router import ResultRouter
        from jaxviz.ui.window.run_once import RunOnce
        from jaxviz.ui.window.session import TraceSession
        from jaxviz.ui.window.stepping import StepMode
        from jaxviz.views.window.clicker_views import ClickerViews
        from jaxviz.views.window.window_state import WindowState

        devices = self._devices
        engine = self._engine_given
        self._owns_engine = engine is None
        self.engine = engine or QtEngine(devices=devices, parent=self)
        self.session = TraceSession(self.engine, self)
        self.state = WindowState(devices=devices)
        self._build_widgets()
        self.linking = LinkController(self.editor, self.area, self)
        self.router = ResultRouter(self, self.state, self)
        self.document = DocumentController(self.editor_panel, parent=self, state=self.state,
                                           trusted=self.settings.trusted)
        self.step_mode = StepMode(
            self.state, self.engine, area=self.area, linking=self.linking,
            editor_panel=self.editor_panel, tools=self.tools, build_request=self.build_request,
            waiting_for_say=self.waiting_for_say, set_status=self.set_status,
            grow_tools=self.grow_tools, parent=self)
        #: The views the presenter keys step, each while it is shown (step mode first,
        #: then the Devices tab's animation; a presentation registers here too).
        self.clicker_views = ClickerViews()
        self.clicker_views.register("step mode", self.step_mode.controller,
                                     shown=lambda: self.step_mode.active, priority=20)
        self.presenter_keys = PresenterKeys(
            self.clicker_views, self,
            code_locked=lambda: self.step_mode.active or bool(self.state.maximized))
        self.run_once = RunOnce(self.engine, self.tools, self.set_status, self)
        self.compare_mode = CompareMode(
            self.state, self, area=self.area, editor=self.editor, splitter=self.splitter,
            docks=self.docks, schedule=self.session.schedule, set_status=self.set_status,
            parent=self)
        self.maximizer = ViewMaximizer(self, self.tools, self.docks["Console · Devices · Timing"],
                                       self.state)
        self.presentation = WindowPresentation(self, self.engine)
        self.actions_by_name, self.recent_menu = build_menus(
            self, self._handlers(), self.gallery.examples, self.state, self.docks.values())
        self._build_status_bar()
        self._wire()
        self.fit_side_panels()
        self.built = True
        self.restore_window_state()
        self._started = False

    # ------------------------------------------------------------ building
    def _build_widgets(self) -> None:
        # Qt classes the frame does not use, imported here: PySide6 makes a class's enums
        # on its first import (QStyle's: 16 ms before the first paint)
        from PySide6.QtWidgets import QDockWidget, QSplitter

        from jaxviz.ui.panels.args import ArgsPanel
        from jaxviz.ui.panels.editor_panel import EditorPanel
        from jaxviz.ui.panels.gallery import GalleryPanel
        from jaxviz.ui.panels.tool_tabs import ToolTabs
        from jaxviz.ui.panes.area import JaxprArea

        self.editor_panel = EditorPanel()
        self.editor = self.editor_panel.editor
        self.area = JaxprArea()
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setObjectName("main_splitter")
        self.splitter.addWidget(self.editor_panel)
        self.splitter.addWidget(self.area)
        self.splitter.setStretchFactor(0, 0)  # the editor keeps its width; panes take the rest
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setChildrenCollapsible(False)
        self.setCentralWidget(self.splitter)
        self.gallery = GalleryPanel()
        self.args_panel = ArgsPanel()
        self.args_panel.bind(self.state)
        self.tools = ToolTabs(self.state)
        self.docks: dict[str, QDockWidget] = {}
        for name, widget, area in (
                ("Gallery", self.gallery, Qt.DockWidgetArea.LeftDockWidgetArea),
                ("Arguments", self.args_panel, Qt.DockWidgetArea.LeftDockWidgetArea),
                ("Console · Devices · Timing", self.tools, Qt.DockWidgetArea.BottomDockWidgetArea)):
            dock = QDockWidget(name, self)
            dock.setObjectName(f"dock_{name.split()[0].lower()}")
            dock.setWidget(widget)
            dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable
                             | QDockWidget.DockWidgetFeature.DockWidgetClosable
                             | QDockWidget.DockWidgetFeature.DockWidgetFloatable)
            style.tint_dock_title(dock)
            self.addDockWidget(area, dock)
            self.docks[name] = dock
        self.setCorner(Qt.Corner.BottomLeftCorner, Qt.DockWidgetArea.LeftDockWidgetArea)

    def _handlers(self) -> dict[str, Callable[..., object]]:
        """What each menu action does (see :func:`~jaxviz.ui.window.actions.build_menus`)."""
        from jaxviz.ui.window.comparing import handlers as compare_handlers
        from jaxviz.ui.window.stepping import handlers as step_handlers

        return {
            "new": self.new_file, "open": self.open_file_dialog, "save": self.save,
            "save_as": self.save_as, "quit": self.close, "retrace": self.retrace,
            "run_once": lambda: self.run_once.run(self.build_request(),
                                                  self.state.device_variant(),
                                                  self.waiting_for_say()),
            "stop": self.stop_or_leave, "restart": self.restart_engine,
            "zoom_in": lambda: self.zoom_by(1), "zoom_out": lambda: self.zoom_by(-1),
            "zoom_reset": lambda: self.set_zoom(0), "fullscreen": self.toggle_full_screen,
            "side_panels": self.toggle_side_panels, "focus_editor": self.editor.setFocus,
            "focus_args": self.args_panel.edits["args"].setFocus,
            "help_keys": self.show_shortcuts, "open_example": self.open_example,
            "show_console": lambda: self.show_tool(self.tools.console),
            "show_values": lambda: self.show_tool(self.tools.values),
            "show_devices": lambda: self.show_tool(self.tools.devices),
            "show_timing": lambda: self.show_tool(self.tools.timing),
            "show_pane": self.state.set_variant_visible, "pane_layout": self.set_pane_layout,
            "present": self.presentation.present,
            "max_devices": lambda: self.maximizer.toggle("devices"),
            "max_timing": lambda: self.maximizer.toggle("timing"),
            "undock_tools": lambda: self.maximizer.set_floating(
                not self.docks["Console · Devices · Timing"].isFloating()),
            "two_panes": self.toggle_two_panes, "two_panes_pick": self.state.set_two_panes,
            **step_handlers(self.step_mode), **compare_handlers(self.compare_mode),
        }

    def _build_status_bar(self) -> None:
        from PySide6.QtWidgets import QProgressBar, QPushButton

        bar = self.statusBar()
        # its text changes at every step: a SteadyLabel does not lay the window out again
        self.status_text = SteadyLabel(elide=True)
        self._status_is_error = False
        self._status_before_busy: tuple[str, bool] | None = None
        self.status_text.setObjectName("status_text")
        self.status_text.label.setContentsMargins(4, 0, 4, 0)
        self.busy_bar = QProgressBar()
        self.busy_bar.setRange(0, 0)
        self.busy_bar.setMaximumWidth(120)
        self.busy_bar.hide()
        self.stop_button = QPushButton("■ Stop")
        self.stop_button.setObjectName("stop_button")
        self.stop_button.setToolTip("Stop the running trace (Esc); the JAX engine restarts")
        self.stop_button.clicked.connect(self.stop)
        self.stop_button.hide()
        self.engine_label = plain(QLabel(""))
        self.engine_label.setObjectName("engine_status")
        self.engine_label.setContentsMargins(4, 0, 4, 0)
        bar.addWidget(self.status_text, 1)
        bar.addPermanentWidget(self.busy_bar)
        bar.addPermanentWidget(self.stop_button)
        bar.addPermanentWidget(self.engine_label)

    def _wire(self) -> None:
        from jaxviz.ui.binding import follow
        from jaxviz.ui.window.tools_title import title_after_tab

        self.session.set_factory(self.build_request)
        self.tools.set_engine(self.engine)
        self.session.resultReady.connect(self._on_result)
        self.session.detailsReady.connect(self._on_details)
        self.session.busyChanged.connect(self._on_busy)
        self.engine.event.connect(self._on_engine_event)
        self.editor.textChanged.connect(self._on_text_edited)
        self.args_panel.changed.connect(self.session.schedule)
        self.args_panel.messageChanged.connect(self._on_fields_message)
        self.gallery.exampleChosen.connect(self.open_example)
        self.document.opened.connect(self._on_document_opened)
        self.document.saved.connect(self._on_saved)
        self.editor.document().modificationChanged.connect(self.setWindowModified)
        self.document.message.connect(self.set_status)
        self.router.statusChanged.connect(self.set_status)
        self.editor_panel.functionChosen.connect(self._on_function_chosen)
        self.tools.highlightRequested.connect(self.linking.show_lines)
        self.tools.timingRequested.connect(self._on_timing_requested)
        self.tools.recordedSourceOffered.connect(self.open_recorded_source)
        self.tools.currentChanged.connect(
            lambda i: self.grow_tools() if self.tools.widget(i) is not self.tools.console else None)
        self.tools.deviceViewBuilt.connect(self._register_device_view)
        title_after_tab(self.docks["Console · Devices · Timing"], self.tools)
        self.tools.phaseShown.connect(lambda n: setattr(self.state, "device_phase", n))
        self.tools.costWanted.connect(lambda: self.session.want_details("cost"))
        self.tools.sourceLineChosen.connect(self.linking.select_source_line)
        self.tools.timingShown.connect(lambda f: setattr(self.state, "timing_of", f))
        # The views follow the state; what the user does to them goes into it.
        self.area.visibleChanged.connect(lambda v: setattr(self.state, "visible_variants", v))
        self.area.inViewFilled.connect(self._panes_filled)
        state = self.state
        follow(state, "visible_variants", self.area.set_visible_variants)
        follow(state, "visible_variants", self._on_visible_changed)
        follow(state, "pane_layout", self._on_pane_layout)
        follow(state, "focused_variant",
               lambda v: self.tools.set_variant(v) if v is not None else None, self)
        # in tabs, the variant worked on comes to the front (stepped: its lit equation)
        follow(state, "focused_variant",
               lambda v: self.area.show_pane(v) if v is not None else None, self)
        follow(state, "devices", self._on_devices)
        # The current result reaches every view this one way: the panes' texts first,
        # then the compare layout, then the links (they colour the rows just written).
        follow(state, "result", self._panes_show_result)
        follow(state, "result",
               lambda r: self.area.show_compare_result(r) if r is not None else None, self)
        follow(state, "result", self.linking.set_result)
        follow(state, "details", self._panes_show_details)
        follow(state, "details", self.linking.set_details)  # HLO lines linked
        follow(state, "details",
               lambda r: self.tools.show_details(state.device_variant())
               if r is not None else None, self)
        follow(state, "two_panes", self._on_two_panes)
        self._add_tool_buttons()
        follow(state, "document", self._on_new_document)
        follow(state, "pane_views", self._show_pane_views)
        for name in ("timing_of", "function"):
            follow(state, name, lambda _v: self.tools.set_timing_note(state.timing_note()), self)
        follow(state, "zoom", self._apply_zoom)
        for pane in self.area.panes.values():
            pane.lineClicked.connect(self._pane_line_clicked)
            pane.viewChosen.connect(self.state.set_pane_view)
            pane.source_provider = lambda: self.state.source  # "Copy as code" as a program

    def _pane_line_clicked(self, variant: str, _line: int) -> None:
        """A click in a pane focuses its variant, unless the device view is on screen: there
        a click points at an equation (the links light it) and the animation stays on its
        variant and phase (the "Devices of" picker switches it)."""
        if not self.tools.devices_shown():
            self.state.focused_variant = variant

    def _panes_show_result(self, result: TraceResult | None) -> None:
        """Each pane shows its variant of the state's new result (with its change marks):
        the panes in view at once, the others when shown or in later turns
        (:meth:`JaxprArea.fill`). No result is a new document: :meth:`_panes_not_traced`
        (on the document's change: the last document may have had none either, which
        changes no field but the document's number)."""
        if result is None:
            return
        from jaxviz.views.compare.changes import marks_steps  # with the first result

        for vr in result.variants:
            # its marks made in the pane's steps (a vmap variant's diff)
            self.area.fill(vr.variant, functools.partial(_show_in_pane, vr, result, marks_steps))
        self.area.refresh_tab_titles()

    def _panes_not_traced(self) -> None:
        """Each pane says the document now open is not traced yet (by its function)."""
        message = self.state.not_traced()
        for variant in self.area.panes:
            self.area.fill(variant, lambda pane: pane.clear(message), fresh=True)
        self.area.refresh_tab_titles()

    def _panes_show_details(self, result: TraceResult | None) -> None:
        """Each pane gets its variant's compiled programs and costs (its HLO views)."""
        for vr in result.variants if result is not None else ():
            self.area.fill(vr.variant, functools.partial(_details_in_pane, vr))

    def _add_tool_buttons(self) -> None:
        """Maximize and Undock, at the right of the tool tabs' bar."""
        from PySide6.QtWidgets import QHBoxLayout, QStyle, QToolButton

        row = QWidget()
        line = QHBoxLayout(row)
        line.setContentsMargins(0, 0, 4, 0)
        icons = self.style()
        for name, text, icon, tip, slot in (
                ("maximize_tool", "Maximize", QStyle.StandardPixmap.SP_TitleBarMaxButton,
                 "The device or timing view fills the window (F6 / F7; again or Esc: back)",
                 self._maximize_current_tool),
                ("undock_tools", "Undock", QStyle.StandardPixmap.SP_TitleBarNormalButton,
                 "These tabs in a window of their own (Ctrl+Shift+U; again: docked)",
                 self.actions_by_name["undock_tools"].trigger)):
            button = QToolButton()
            button.setObjectName(name)
            button.setText(text)
            button.setIcon(icons.standardIcon(icon))
            button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
            button.setToolTip(tip)
            button.setAutoRaise(True)
            button.clicked.connect(lambda _=False, s=slot: s())
            line.addWidget(button)
        self.tools.setCornerWidget(row, Qt.Corner.TopRightCorner)

    def _maximize_current_tool(self) -> None:
        current = self.tools.currentWidget()
        self.maximizer.toggle("timing" if current is self.tools.timing else "devices")

    # -------------------------------------------------------------- engine
    def start_engine(self) -> None:
        """Start the JAX process in the background (the window is already up)."""
        if not self._started:
            self._started = True
            self.engine_label.setText(self._starting_text(self.engine.devices))
            self.engine.start()
            if self.engine.info is not None:  # an engine that was already running
                from jaxviz.model.engine import EngineEvent

                self._on_engine_event(EngineEvent("ready", "", self.engine.info))

    def _starting_text(self, devices: int, verb: str = "starting") -> str:
        platform = str(self.settings.q.value("engine/platform", "cpu"))
        kind = "simulated CPU devices" if platform == "cpu" else f"{platform.upper()} devices"
        return f"{verb} JAX: {devices} {kind}…"

    def _on_engine_event(self, event: EngineEvent) -> None:
        if event.kind == "ready" and event.info is not None:
            info = event.info
            self.settings.q.setValue("engine/platform", info.platform or "cpu")
            ids = [d.id for d in info.devices]
            kind = (f"simulated {info.platform.upper()} devices" if info.simulated
                    else f"{info.platform.upper()} devices")
            listing = f"{ids[0]}–{ids[-1]}" if len(ids) > 3 else ", ".join(map(str, ids))
            self.engine_label.setText(f"JAX {info.jax_version}: {len(ids)} {kind} ({listing})")
            self.engine_label.setToolTip("\n".join(f"{d.platform}:{d.id} {d.kind}"
                                                   for d in info.devices))
        elif event.kind in ("starting", "restarting"):
            self.engine_label.setText(self._starting_text(
                self.engine.devices, "starting" if event.kind == "starting" else "restarting"))
        elif event.kind == "crashed":
            self.engine_label.setText(f"JAX engine crashed; restarting… ({event.message})")
            self.tools.console.add_message(f"JAX engine crashed: {event.message}", True)
            self.set_status(f"the JAX engine crashed and is restarting: {event.message}",
                            error=True)
        elif event.kind == "stopped":
            self.engine_label.setText("JAX engine stopped")

    def set_devices(self, devices: int) -> None:
        """Restart the engine with another device count, then trace again."""
        self.state.devices = devices
        self._on_devices(devices)

    def _on_devices(self, devices: int) -> None:
        if devices == self.engine.devices:
            return
        self.settings.devices = devices
        self.engine.restart(devices)
        self.engine_label.setText(self._starting_text(devices, "restarting"))
        self.set_status(f"restarting JAX with {devices} devices…")
        self.session.trace_now()

    def restart_engine(self) -> None:
        self.engine.restart()
        self.set_status("restarting the JAX engine…")
        self.session.trace_now()

    # ------------------------------------------------------------- tracing
    def build_request(self) -> TraceRequest | None:
        """The request for what the window shows (from :attr:`state`); None, with the
        problem marked where it belongs, when it cannot run."""
        problem = self.state.request_problem()
        if problem is not None and problem.kind == "syntax":
            line = problem.line or 1
            self.editor_panel.show_error(line, problem.message)
            self.router.dim_panes(f"Not traced: syntax error on line {line} — "
                                     f"this is the last good result.")
            self.set_status(f"syntax error on line {line}: "
                            f"{problem.message.removeprefix('SyntaxError: ')}", error=True)
            return None
        self.editor_panel.clear_error()
        if problem is not None and problem.kind == "function":
            self.editor_panel.show_error(0, problem.message)
            return None
        # The panel shows each field's fault (and knows a device count not yet applied).
        fields_ok = self.args_panel.validate()
        if problem is not None and problem.kind == "fields" and problem.field == "args":
            self.args_panel.set_field_error("args", problem.message)  # a wrong count
        if not fields_ok or (problem is not None and problem.kind == "fields"):
            self.router.dim_panes("Not traced: fix the marked field in Arguments — this is "
                                     "the last good result.")
            fault = self.args_panel.message_line or "a field in Arguments is marked"
            self.set_status(f"not traced: {fault}", error=True)
            return None
        if problem is not None:  # "args": the function takes arguments and none are given
            self.args_panel.set_field_error(problem.field or "args", problem.message)
            return None
        req = self.state.to_request()
        if req is not None:
            self.tools.set_request(req)  # the timing view's Run is the user's say too
            if not self.document.doc.trusted:
                self._wait_for_say()
                return None
        return req

    def _wait_for_say(self) -> None:
        """An opened file (or a recording's source) runs only once the user says so."""
        name = self.document.doc.display_name
        self.editor_panel.notice.ask(
            f"{name} has not run: jaxviz runs a file you open only when you say so. Read it, "
            f"then press Trace (F5) to run it.", [("Trace (run it)", self.retrace)])
        self.router.dim_panes(f"Not run yet: {name} waits for Trace (F5); "
                              f"{self.router.what_is_shown()}.")
        self.set_status(f"{name} is shown, not run: press Trace (F5) to run it")

    def waiting_for_say(self) -> str | None:
        """The name of a document not yet run (the trust rule: Trace runs it), else None."""
        return None if self.document.doc.trusted else self.document.doc.display_name

    def retrace(self) -> None:
        """Trace now (F5): the user's say that the document may run."""
        if not self.document.doc.trusted:
            self.document.trust()
            self.editor_panel.notice.hide()
        self.session.trace_now()

    def _on_timing_requested(self, request: TraceRequest) -> None:
        """Run in the timing view measures the document: as good as pressing Trace."""
        if not self.document.doc.trusted and request.target.source == self.state.source:
            self.retrace()

    def stop(self) -> None:
        if self.session.stop():
            self.set_status("stopping: the JAX engine restarts…")

    def stop_or_leave(self) -> None:
        """Esc: stop a running trace, else put a maximized view back, else leave full
        screen."""
        if self.session.running:
            self.stop()
        elif self.maximizer.restore():
            return
        elif self.isFullScreen():
            self.toggle_full_screen()

    def _on_text_edited(self) -> None:
        # Every change of the text is traced again, an undo back to the saved text too
        # (its old error markers and dimmed panes must go).
        self.linking.clear_editor_colours()
        self.session.schedule()

    # ------------------------------------------------- following the state
    def _on_new_document(self, _document: int) -> None:
        """Another document: what the views chose for the last one starts over, and every
        view says this one is not traced yet (by its function's name: the last document
        may not have been traced either, and named another)."""
        for pane in self.area.panes.values():
            pane.start_over()
        self.tools.start_over()
        self._panes_not_traced()
        self.tools.show_details(self.state.device_variant())
        # the status bar's last words were of the last document ("traced convolve in
        # 24 ms"): gone, and not brought back when the work under way ends
        self.set_status("")
        if self._status_before_busy is not None:
            self._status_before_busy = ("", False)

    def _show_pane_views(self, _views: dict) -> None:
        for variant, pane in self.area.panes.items():
            pane.show_view(self.state.pane_view(variant))

    def show_tool(self, widget: QWidget) -> None:
        """Show a tool tab (Console, Values, Devices, Timing), its dock too; a maximized
        view goes back into its tab first (it is out of the tabs while it fills the
        window)."""
        self.maximizer.restore()
        self.docks["Console · Devices · Timing"].show()
        self.tools.setCurrentWidget(widget)
        if widget is self.tools.devices and self.tools.devices.view is not None:
            self.tools.devices.view.setFocus()  # a clicker's keys step it, never the code

    def _register_device_view(self, view) -> None:
        """The device view, once built, steps with the presenter keys while its tab shows
        or while it fills the window (F6)."""
        if "devices" not in self.clicker_views.names():
            tools = self.tools
            self.clicker_views.register(
                "devices", view, priority=10,
                shown=lambda: view.isVisible() and (
                    self.state.maximized == "devices" or tools.currentWidget() is tools.devices))

    def _on_result(self, req, reply) -> None:
        self.router.show_result(req, reply)
        self._panes_awaited = True  # panesUpdated once the panes in view show it
        self._panes_filled()
        self.step_mode.restart_if_changed()

    def _panes_filled(self) -> None:
        """The panes in view have what they were given: a result that came is shown."""
        if self._panes_awaited and not self.area.in_view_waiting():
            self._panes_awaited = False
            self.panesUpdated.emit()

    def _on_details(self, req, reply) -> None:
        self.router.show_details(req, reply)
        self.detailsUpdated.emit()

    def _on_busy(self, busy: bool, what: str) -> None:
        self.busy_bar.setVisible(busy)
        self.stop_button.setVisible(busy)
        for pane in self.area.panes.values():
            pane.set_busy("working…" if busy else "")
        if busy:
            self._status_before_busy = (self.status_text.text(), self._status_is_error)
            self.set_status(what)
        elif self._status_before_busy is not None:
            self.set_status(*self._status_before_busy)
            self._status_before_busy = None

    def _on_fields_message(self, line: str) -> None:
        """A field's fault goes to the status bar too; its fix takes it away."""
        if line:
            self.set_status(line, error=True)
        elif self._status_is_error and "Arguments ▸" in self.status_text.text():
            self.set_status("")

    def device_variant(self) -> str:
        """The variant the device view shows: the last pane clicked, else the most parallel."""
        return self.state.device_variant()

    # ------------------------------------------------------------- closing
    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802
        if not self.built:  # closed while starting: nothing to keep yet
            event.accept()
            return
        if not self.confirm_leave():
            event.ignore()
            return
        self._remember_fields()
        self.compare_mode.close()  # gives back the room it took before the layout is saved
        self.save_window_state()
        self.forget_opening()  # no layout or trace of a document just opened comes after
        self.session.stop()
        if self._owns_engine:
            self.engine.stop(wait=True)
        self.document.discard_recovery()
        event.accept()

    def show_shortcuts(self) -> ShortcutsDialog:
        """The shortcut list (F1), scrolling within the screen."""
        from jaxviz.ui.window.actions import shortcuts_html
        from jaxviz.ui.window.shortcuts_dialog import ShortcutsDialog

        dialog = ShortcutsDialog(shortcuts_html(), self)
        dialog.fit_to()
        dialog.setModal(True)
        dialog.show()
        self._shortcuts_dialog = dialog
        return dialog

    def set_status(self, text: str, error: bool = False) -> None:
        """The message at the left of the status bar (red for errors)."""
        self.status_text.setText(text)
        if error != self._status_is_error or not self.status_text.styleSheet():
            # restyled only when it changes: every step of the stepper sets the status
            colour = style.ERROR_COLOUR.name() if error else "palette(window-text)"
            self.status_text.setStyleSheet(f"color: {colour};")
        self._status_is_error = error


def _show_in_pane(vr: VariantResult, result: TraceResult, marks_steps: Callable,
                  pane: JaxprPane) -> None:
    """A pane shows its variant of ``result`` with its change marks, made in the pane's
    steps (see ``fill``)."""
    pane.show_result(vr, marks_steps(result, vr.variant))


def _details_in_pane(vr: VariantResult, pane: JaxprPane) -> None:
    pane.set_details(vr)
