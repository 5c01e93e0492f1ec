"""The main window: gallery and arguments on the left, the editor and the jaxpr panes
side by side, the console, device and timing views in tabs underneath.

The window never waits for JAX: it is shown before the engine process has
started, requests go out through a :class:`~jaxviz.ui.window.session.TraceSession`
and results come back as Qt signals.
"""

from __future__ import annotations

import ast

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QDockWidget, QLabel, QMainWindow, QMessageBox, QProgressBar, QPushButton, QSplitter, QWidget,
)

from jaxviz.model import Target, TraceRequest
from jaxviz.model.engine import EngineEvent
from jaxviz.ui.theme import style
from jaxviz.ui.window.actions import build_menus, shortcuts_html
from jaxviz.ui.panels.args import ArgsPanel
from jaxviz.ui.window.document import DocumentController
from jaxviz.ui.panels.editor_panel import EditorPanel
from jaxviz.ui.panels.gallery import GalleryPanel
from jaxviz.ui.panes.linking import LinkController
from jaxviz.ui.panes.area import JaxprArea
from jaxviz.ui.window.presenter import ResultPresenter
from jaxviz.ui.window.qt_engine import QtEngine
from jaxviz.ui.window.session import TraceSession
from jaxviz.ui.window.settings import Settings
from jaxviz.ui.panels.tool_tabs import ToolTabs
from jaxviz.ui.window.files import WindowFilesMixin
from jaxviz.ui.window.layout import WindowStateMixin

class MainWindow(WindowFilesMixin, WindowStateMixin, QMainWindow):
    """jaxviz's main window. ``engine`` defaults to a real engine process."""

    #: The jaxpr panes show a new result (or its error).
    panesUpdated = Signal()
    #: StableHLO, HLO, costs and layouts of the result arrived.
    detailsUpdated = Signal()

    def __init__(self, settings: Settings | None = None, engine: QtEngine | None = None,
                 devices: int | None = None, parent: QWidget | None = None):
        super().__init__(parent)
        self.settings = settings or Settings()
        devices = devices or self.settings.devices
        self._owns_engine = engine is None
        self.engine = engine or QtEngine(devices=devices, parent=self)
        self.session = TraceSession(self.engine, self)
        self.setWindowTitle("jaxviz")
        self._build_widgets(devices)
        self.linking = LinkController(self.editor, self.area, self)
        self.presenter = ResultPresenter(self)
        self.document = DocumentController(self.editor_panel, parent=self)
        self.actions_by_name = build_menus(self)
        self._build_status_bar()
        self._wire()
        self.restore_window_state()
        self._started = False

    # ------------------------------------------------------------ building
    def _build_widgets(self, devices: int) -> None:
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
        self.args_panel.set_values({}, devices=devices)
        self.tools = ToolTabs()
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
            self.addDockWidget(area, dock)
            self.docks[name] = dock
        self.setCorner(Qt.Corner.BottomLeftCorner, Qt.DockWidgetArea.LeftDockWidgetArea)

    def _build_status_bar(self) -> None:
        bar = self.statusBar()
        self.status_text = QLabel("")
        self._status_is_error = False
        self.status_text.setObjectName("status_text")
        self.busy_bar = QProgressBar()
        self.busy_bar.setRange(0, 0)
        self.busy_bar.setMaximumWidth(120)
        self.busy_bar.hide()
        self.stop_button = QPushButton("■ Stop")
        self.stop_button.setObjectName("stop_button")
        self.stop_button.setToolTip("Stop the running trace (Esc); the JAX engine restarts")
        self.stop_button.clicked.connect(self.stop)
        self.stop_button.hide()
        self.engine_label = QLabel("")
        self.engine_label.setObjectName("engine_status")
        bar.addWidget(self.status_text, 1)
        bar.addPermanentWidget(self.busy_bar)
        bar.addPermanentWidget(self.stop_button)
        bar.addPermanentWidget(self.engine_label)

    def _wire(self) -> None:
        self.session.set_factory(self.build_request)
        self.tools.set_engine(self.engine)
        self.session.resultReady.connect(self._on_result)
        self.session.detailsReady.connect(self._on_details)
        self.session.busyChanged.connect(self._on_busy)
        self.engine.event.connect(self._on_engine_event)
        self.editor.textChanged.connect(self._on_text_edited)
        self.args_panel.changed.connect(self.session.schedule)
        self.args_panel.devicesChanged.connect(self.set_devices)
        self.gallery.exampleChosen.connect(self.open_example)
        self.document.opened.connect(self._on_document_opened)
        self.document.saved.connect(self._on_saved)
        self.document.message.connect(self.set_status)
        self.editor_panel.functionChosen.connect(self._on_function_chosen)
        self.area.visibleChanged.connect(self._on_visible_changed)
        self.tools.highlightRequested.connect(self.linking.show_lines)
        self.tools.currentChanged.connect(
            lambda i: self.grow_tools() if self.tools.widget(i) is not self.tools.console else None)
        for pane in self.area.panes.values():
            pane.lineClicked.connect(lambda v, _n: self._focus_variant(v))

    # -------------------------------------------------------------- engine
    def start_engine(self) -> None:
        """Start the JAX process in the background (the window is already up)."""
        if not self._started:
            self._started = True
            self.engine_label.setText(self._starting_text(self.engine.devices))
            self.engine.start()
            if self.engine.info is not None:  # an engine that was already running
                self._on_engine_event(EngineEvent("ready", "", self.engine.info))

    def _starting_text(self, devices: int, verb: str = "starting") -> str:
        platform = self.settings.q.value("engine/platform", "cpu")
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
        """The request for what the window shows now; None (and a marker) when it can't run."""
        doc = self.document.doc
        text = self.document.text()
        try:
            tree = ast.parse(text, filename=doc.filename)
        except SyntaxError as exc:
            self.editor_panel.show_error(exc.lineno or 1, f"SyntaxError: {exc.msg}")
            self.presenter.dim_panes(f"Not traced: syntax error on line {exc.lineno} — "
                                     f"this is the last good result.")
            self.set_status(f"syntax error on line {exc.lineno}: {exc.msg}", error=True)
            return None
        self.editor_panel.clear_error()
        if not doc.function:
            self.editor_panel.show_error(0, "pick the function to trace (or define one)")
            return None
        if not self.args_panel.validate():
            self.presenter.dim_panes("Not traced: fix the marked field in Arguments — this is "
                                     "the last good result.")
            self.set_status("not traced: a field in Arguments is marked", error=True)
            return None
        values = self.args_panel.values()
        if not values["args"] and _required_params(tree, doc.function):
            self.args_panel.set_field_error(
                "args", f"say what arguments {doc.function} takes, e.g. f32[5], f32[3]")
            return None
        variants = list(self.area.visible_variants)
        if "plain" not in variants:
            variants.insert(0, "plain")  # what the vmap pane compares against
        req = TraceRequest(
            target=Target(text, doc.filename, doc.function), args=values["args"] or "",
            batched_args=values["batched_args"], variants=variants, batch=values["batch"],
            in_axes=values["in_axes"], axis_name=values["axis_name"], mesh=values["mesh"],
            specs=values["specs"], out_specs=values["out_specs"])
        self.tools.set_request(req)
        return req

    def retrace(self) -> None:
        self.session.trace_now()

    def stop(self) -> None:
        if self.session.stop():
            self.set_status("stopping: the JAX engine restarts…")

    def stop_or_leave(self) -> None:
        """Esc: stop a running trace, else leave full screen."""
        if self.session.running:
            self.stop()
        elif self.isFullScreen():
            self.toggle_full_screen()

    def _on_text_edited(self) -> None:
        self.linking.clear_editor_colours()
        if self.document.modified or self.session.latest is None:
            self.session.schedule()

    def _on_result(self, req, reply) -> None:
        self.presenter.show_result(req, reply)
        self.panesUpdated.emit()

    def _on_details(self, req, reply) -> None:
        self.presenter.show_details(req, reply)
        self.detailsUpdated.emit()

    def _on_busy(self, busy: bool, what: str) -> None:
        self.busy_bar.setVisible(busy)
        self.stop_button.setVisible(busy)
        for pane in self.area.panes.values():
            pane.set_busy("⏳ working…" if busy else "")
        if busy:
            self._status_before_busy = (self.status_text.text(), self._status_is_error)
            self.set_status(what)
        elif getattr(self, "_status_before_busy", None) is not None:
            self.set_status(*self._status_before_busy)
            self._status_before_busy = None

    def device_variant(self) -> str:
        """The variant the device view shows: the last pane clicked, else the most parallel."""
        visible = self.area.visible_variants
        if getattr(self, "_focused_variant", None) in visible:
            return self._focused_variant
        for v in ("pmap", "sharded", "shard_map", "vmap", "jit", "plain"):
            if v in visible:
                return v
        return "plain"

    def _focus_variant(self, variant: str) -> None:
        self._focused_variant = variant
        self.tools.set_variant(variant)

    # ------------------------------------------------------------- closing
    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802
        if not self.confirm_leave():
            event.ignore()
            return
        self._remember_fields()
        self.save_window_state()
        self.session.stop()
        if self._owns_engine:
            self.engine.stop(wait=True)
        self.document.discard_recovery()
        event.accept()

    def show_shortcuts(self) -> None:
        QMessageBox.information(self, "Keyboard shortcuts", shortcuts_html())

    def set_status(self, text: str, error: bool = False) -> None:
        """The message at the left of the status bar (red for errors)."""
        self.status_text.setText(text)
        self._status_is_error = error
        colour = style.ERROR_COLOUR.name() if error else "palette(window-text)"
        self.status_text.setStyleSheet(f"color: {colour};")


def _required_params(tree: ast.Module, function: str) -> int:
    """How many positional parameters without defaults ``function`` has (0 if unknown)."""
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == function:
            args = node.args
            return len(args.posonlyargs) + len(args.args) - len(args.defaults)
    return 0
