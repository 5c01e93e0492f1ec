"""The main window: gallery and arguments on the left, the editor and the jaxpr panes
side by side, the console, device and timing views in tabs underneath.

The window never waits for JAX: it is shown before the engine process has
started, requests go out through a :class:`~jaxviz.ui.session.TraceSession`
and results come back as Qt signals.
"""

from __future__ import annotations

import ast
from pathlib import Path

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QApplication, QDockWidget, QFileDialog, QLabel, QMainWindow, QMessageBox, QProgressBar,
    QPushButton, QSplitter, QWidget,
)

from jaxviz.model import VARIANTS, Target, TraceRequest
from jaxviz.model.engine import EngineEvent
from jaxviz.model.gallery import GalleryError
from jaxviz.ui import style
from jaxviz.ui.actions import build_menus, shortcuts_html
from jaxviz.ui.args_panel import ArgsPanel
from jaxviz.ui.document import Document, DocumentController
from jaxviz.ui.editor_panel import EditorPanel
from jaxviz.ui.gallery_panel import GalleryPanel
from jaxviz.ui.linking import LinkController
from jaxviz.ui.panes_area import JaxprArea
from jaxviz.ui.presenter import ResultPresenter
from jaxviz.ui.qt_engine import QtEngine
from jaxviz.ui.session import TraceSession
from jaxviz.ui.settings import Settings
from jaxviz.ui.tool_tabs import ToolTabs
from jaxviz.ui.window_state import WindowStateMixin

#: Panes an example opens with: its variants in this priority, at most four.
PANE_PRIORITY = ("plain", "vmap", "pmap", "sharded", "shard_map", "jit")


class MainWindow(WindowStateMixin, QMainWindow):
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
            return None
        self.editor_panel.clear_error()
        if not doc.function:
            self.editor_panel.show_error(0, "pick the function to trace (or define one)")
            return None
        if not self.args_panel.validate():
            self.presenter.dim_panes("Not traced: fix the marked field in Arguments — this is "
                                     "the last good result.")
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

    # ----------------------------------------------------------- documents
    def open_target(self, target: str) -> None:
        """Open ``example:NAME``, ``file.py``, ``file.py:function`` or a timing ``.json``."""
        if target.startswith("example:"):
            self.open_example(target[len("example:"):])
        elif target.endswith(".json"):
            if not self.tools.open_timing_recording(target):
                self.set_status(f"cannot show {target}: the timing view is not available",
                                error=True)
        else:
            path, function = target, ""
            if ".py:" in target:
                path, _, function = target.rpartition(":")
            self.open_file(path, function)

    def open_example(self, name: str) -> None:
        if not self.confirm_leave():
            return
        try:
            ex = self.document.open_example(name)
        except GalleryError as exc:
            self.set_status(str(exc), error=True)
            return
        self.gallery.select(name)
        fields = {k: getattr(ex, k) for k in ("args", "batched_args", "batch", "in_axes",
                                              "axis_name", "mesh", "specs", "out_specs")}
        self.args_panel.set_values(fields)
        wanted = [v for v in PANE_PRIORITY if v in ex.variants and v != "jit"][:4]
        self.area.set_visible_variants(wanted or ["plain"])
        self.session.trace_now()

    def open_file(self, path: str, function: str = "") -> None:
        if not self.confirm_leave():
            return
        try:
            declared = self.document.open_file(path, function)
        except OSError as exc:
            self.set_status(f"cannot open {path}: {exc.strerror or exc}", error=True)
            return
        doc = self.document.doc
        remembered = self.settings.file_fields(str(doc.path))
        if remembered.get("function") and not function and \
                remembered["function"] in self.document.functions():
            self.document.set_function(remembered["function"])
            self.editor_panel.set_functions(self.document.functions(), doc.function)
        if declared is not None:
            fields = {k: getattr(declared, k) for k in ("args", "batched_args", "batch",
                                                        "in_axes", "axis_name", "mesh",
                                                        "specs", "out_specs")}
        else:
            fields = remembered.get("fields", {})
        self.args_panel.set_values(fields)
        self.gallery.select(None)
        self.recent_files_changed(self.settings.add_recent_file(str(doc.path)))
        self.session.trace_now()

    def new_file(self) -> None:
        if self.confirm_leave():
            self.document.new_untitled("import jax\nimport jax.numpy as jnp\n\n\n"
                                       "def f(x):\n    return jnp.sin(x) * 2\n")
            self.args_panel.set_values({"args": "f32[8]"})
            self.gallery.select(None)
            self.session.trace_now()

    def open_file_dialog(self) -> None:
        start = str(self.document.doc.path.parent) if self.document.doc.path else str(Path.cwd())
        path, _ = QFileDialog.getOpenFileName(self, "Open a Python file", start,
                                              "Python files (*.py);;All files (*)")
        if path:
            self.open_file(path)

    def save(self) -> bool:
        if self.document.doc.path is None:
            return self.save_as()
        return self._save_to(self.document.doc.path)

    def save_as(self) -> bool:
        doc = self.document.doc
        suggestion = str(doc.path or Path.cwd() / (f"{doc.example.name}.py" if doc.example
                                                     else "untitled.py"))
        path, _ = QFileDialog.getSaveFileName(self, "Save as", suggestion, "Python files (*.py)")
        return self._save_to(Path(path)) if path else False

    def _save_to(self, path: Path) -> bool:
        try:
            self.document.save_to(path)
        except OSError as exc:
            QMessageBox.warning(self, "Not saved", f"Could not save {path}:\n{exc}\n\n"
                                                   f"Your text is still in the editor.")
            return False
        return True

    def _on_saved(self, path: str) -> None:
        self.recent_files_changed(self.settings.add_recent_file(path))
        self._remember_fields()

    def _on_document_opened(self, doc: Document) -> None:
        self.setWindowTitle(f"jaxviz — {doc.display_name}")
        self.linking.set_result(None)

    def _on_function_chosen(self, name: str) -> None:
        self.document.set_function(name)
        self.session.trace_now()

    def _on_visible_changed(self, variants: list[str]) -> None:
        for v in VARIANTS:
            act = self.actions_by_name.get(f"pane_{v}")
            if act is not None:
                act.blockSignals(True)
                act.setChecked(v in variants)
                act.blockSignals(False)
        if self.presenter.result is None or any(
                v not in [r.variant for r in self.presenter.result.variants] for v in variants):
            self.session.schedule()

    def _remember_fields(self) -> None:
        doc = self.document.doc
        if doc.path is not None:
            self.settings.set_file_fields(str(doc.path), {
                "function": doc.function, "fields": self.args_panel.values()})

    # ------------------------------------------------------------- closing
    def confirm_leave(self) -> bool:
        """Unsaved edits are never dropped silently: ask Save / Discard / Cancel."""
        if not self.document.modified:
            return True
        answer = QMessageBox.question(
            self, "Unsaved edits",
            f"{self.document.doc.display_name} has unsaved edits. Save them first?",
            QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard
            | QMessageBox.StandardButton.Cancel, QMessageBox.StandardButton.Save)
        if answer == QMessageBox.StandardButton.Save:
            return self.save()
        if answer == QMessageBox.StandardButton.Discard:
            self.document.discard_recovery()
            return True
        return False

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
