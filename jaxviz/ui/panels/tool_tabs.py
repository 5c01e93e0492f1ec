"""The tool tabs under the panes: Console, Values (step mode), Devices (the device view),
Timing (the timing view) and Collectives (the collectives table).

The device and timing views and the collectives table are other modules' widgets. They are imported
the first time their tab is shown (they pull in pyqtgraph and friends, which
the window must not wait for at start-up); until then, or when the module is
missing, the tab shows a placeholder that says so.

Docking contract (what this module calls; everything else is up to the view):

``jaxviz.ui.devices.DeviceView(parent=None)`` -- a QWidget with
    ``set_result(result: TraceResult, variant: str)``, called with each
    complete result (the window state's ``details``: layouts and HLO included)
    and the variant to show; and,
    optionally, a signal ``phaseChanged(int, str, list)`` whose list holds
    ``(variant, first_line, last_line)`` ranges of ``jaxpr_text`` for the
    current phase (empty when none), which the jaxpr panes light up. The tab
    has a variant picker above the view; clicking a jaxpr pane picks its variant.

``jaxviz.ui.timing.TimingView(parent=None)`` -- a QWidget with
    ``open_recording(path: str)`` for ``jaxviz timings.json``, and optionally
    ``set_engine(engine: QtEngine)`` (called once, when it is built: it
    measures in the window's engine) and ``set_target(request: TraceRequest)``,
    called when the traced function or its settings change, so Run measures
    what the window shows; and optionally the signals ``measuring(request)``
    (Run was pressed on that request: the user's say that it may run) and
    ``sourceOffered(request)`` (a recording was opened: the window shows its
    source as a document that has not run), relayed as
    :attr:`ToolTabs.timingRequested` and :attr:`ToolTabs.recordedSourceOffered`.

Either view may also have ``set_engine``; it is called the same way.

``jaxviz.ui.collectives.CollectivesView(parent=None)`` -- the collectives of the variant
    the device view shows: ``set_result(result, variant)`` like the device view (the
    window asks the engine for "cost" when the tab is first shown:
    :attr:`ToolTabs.costWanted`), ``set_chip(key)`` from the state's ``chip``, and the
    signals ``chipChosen(str)`` (into the state) and ``rowChosen(steps, lines)``: the
    device view goes to the first phase of those storyboard steps, the window selects
    the line (:attr:`ToolTabs.sourceLineChosen`).

``jaxviz.ui.stepper.ValuesPanel(parent=None)`` -- the values of step mode's
    current step; the window's step mode (:mod:`jaxviz.ui.window.stepping`)
    fills it. Its tab is built when step mode first starts.
"""

from __future__ import annotations

import importlib
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from jaxviz.model import TraceRequest, TraceResult
from jaxviz.ui.binding import follow
from jaxviz.ui.panels.console import ConsolePane
from jaxviz.ui.theme import style
from jaxviz.views.timing.options import cannot_run
from jaxviz.views.window.window_state import WindowState

DEVICE_VIEW = ("jaxviz.ui.devices", "DeviceView")
TIMING_VIEW = ("jaxviz.ui.timing", "TimingView")
VALUES_PANEL = ("jaxviz.ui.stepper", "ValuesPanel")
COLLECTIVES_VIEW = ("jaxviz.ui.collectives", "CollectivesView")


class LazyView(QWidget):
    """A tab that imports and builds its real widget the first time it is needed."""

    def __init__(self, module: str, class_name: str, what: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.module, self.class_name, self.what = module, class_name, what
        #: The real view once built; duck-typed by the docking contract above.
        self.view: Any = None
        self.failure = ""
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self.placeholder = QLabel(f"The {what} appears here.")
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.placeholder.setWordWrap(True)
        self._layout.addWidget(self.placeholder)

    def add_header(self, widget: QWidget) -> None:
        """A row above the view (e.g. the device view's variant picker)."""
        self._layout.insertWidget(0, widget)

    def load(self) -> Any:
        """The real view, built on first call; None (and a placeholder saying why) if missing."""
        if self.view is not None or self.failure:
            return self.view
        try:
            cls = getattr(importlib.import_module(self.module), self.class_name)
            self.view = cls(self)
        except Exception as exc:  # noqa: BLE001 - a broken view must not take the window down
            self.failure = f"{type(exc).__name__}: {exc}"
            self.placeholder.setText(f"The {self.what} is not available in this build "
                                     f"({self.module}.{self.class_name}: {self.failure}).")
            return None
        self.placeholder.hide()
        self._layout.addWidget(self.view)
        return self.view


class ToolTabs(QTabWidget):
    """Console, Values, Devices, Timing and Collectives; the last four built on demand."""

    #: ``[(variant, first_line, last_line)]`` the device view wants lit up in the panes.
    highlightRequested = Signal(list)
    #: The timing view is about to measure this :class:`TraceRequest` (its Run was pressed).
    timingRequested = Signal(object)
    #: A recording was opened: its source (:class:`TraceRequest`), for the window to show.
    recordedSourceOffered = Signal(object)
    #: The device view shows another phase (0-based).
    phaseShown = Signal(int)
    #: The timing view shows measurements of this function (a run started, a recording).
    timingShown = Signal(str)
    #: The device view was built (the first time its tab showed or it was maximized).
    deviceViewBuilt = Signal(object)
    #: The Collectives tab was shown: the window asks the engine for "cost" from now on.
    costWanted = Signal()
    #: A collectives row was clicked: its first source line (1-based).
    sourceLineChosen = Signal(int)

    def __init__(self, state: WindowState | None = None, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("tool_tabs")
        style.style_tabs(self.tabBar())
        #: The window's state: the device view shows its ``details``.
        self.state = state if state is not None else WindowState()
        self.console = ConsolePane()
        self.values = LazyView(*VALUES_PANEL, "values panel (step mode: ▶ Step on a pane, or F9)")
        self.devices = LazyView(*DEVICE_VIEW, "device view (shards on devices)")
        self.timing = LazyView(*TIMING_VIEW, "timing view (dispatch versus completion)")
        self.collectives = LazyView(*COLLECTIVES_VIEW,
                                    "collectives table (what each device sends, and why)")
        self.device_variant = QComboBox()
        self.device_variant.setObjectName("device_variant")
        self.device_variant.setToolTip("Which variant's devices to show (clicking a jaxpr pane "
                                       "picks it too)")
        self.device_variant.activated.connect(
            lambda i: self._variant_picked(self.device_variant.itemData(i)))
        row = QWidget()
        line = QHBoxLayout(row)
        line.setContentsMargins(6, 2, 6, 2)
        line.addWidget(QLabel("Devices of"))
        line.addWidget(self.device_variant)
        line.addStretch(1)
        self.devices.add_header(row)
        self.addTab(self.console, "Console")
        self.addTab(self.values, "Values")
        self.addTab(self.devices, "Devices")
        self.addTab(self.timing, "Timing")
        self.addTab(self.collectives, "Collectives")
        self._variant = "pmap"
        self._request: TraceRequest | None = None
        self._engine = None
        self._start_over = False
        self._zoom = 0
        self._timing_note = ""
        self._previous: QWidget | None = self.currentWidget()
        self.currentChanged.connect(self._shown)
        follow(self.state, "result", self.follow_result, self)
        follow(self.state, "chip", self._follow_chip, self)

    def set_engine(self, engine) -> None:
        """The window's :class:`~jaxviz.ui.qt_engine.QtEngine`, for the views using it."""
        self._engine = engine
        for lazy in (self.devices, self.timing):
            if lazy.view is not None and hasattr(lazy.view, "set_engine"):
                lazy.view.set_engine(engine)

    def _shown(self, index: int) -> None:
        widget = self.widget(index)
        if self._previous is self.devices and widget is not self.devices:
            self.highlightRequested.emit([])  # the phase's lines belong to the Devices tab
        self._previous = widget
        if widget is self.console:
            self._title_console("Console")
        elif widget is self.values:
            self.values.load()
        elif widget is self.devices:
            view = self._device_view()
            if view is not None and getattr(view, "phases", None):
                phase = view.phases[view.current_phase]
                self.highlightRequested.emit(list(phase.highlights))
        elif widget is self.timing:
            self._timing_view()
        elif widget is self.collectives:
            self._collectives_view()

    def ensure_view(self, page: QWidget) -> Any:
        """The view of the Devices or Timing tab ``page``, built (and fed) if it was not;
        None when it cannot load."""
        if page is self.devices:
            return self._device_view()
        if page is self.timing:
            return self._timing_view()
        if page is self.collectives:
            return self._collectives_view()
        raise ValueError("only the Devices, Timing and Collectives tabs hold a view to build")

    def _device_view(self) -> Any:
        fresh = self.devices.view is None
        view = self.devices.load()
        if view is None:
            return None
        if fresh:
            if self._engine is not None and hasattr(view, "set_engine"):
                view.set_engine(self._engine)
            if hasattr(view, "set_font_scale"):
                view.set_font_scale(style.text_scale(self._zoom))
            signal = getattr(view, "phaseChanged", None)
            if signal is not None:
                signal.connect(self._phase_changed)
            if hasattr(view, "set_chip"):
                view.set_chip(self.state.chip)
            if self.state.details is not None:
                view.set_result(self.state.details, self._variant)
                self._start_over = False
            self.deviceViewBuilt.emit(view)
        return view

    def devices_shown(self) -> bool:
        """Whether the device view is what the user sees of these tabs: its tab is the
        current one, or it fills the window (F6: out of the tabs meanwhile)."""
        return self.currentWidget() is self.devices or self.state.maximized == "devices"

    def _phase_changed(self, index: int, _caption: str, ranges: list) -> None:
        self.phaseShown.emit(index)
        if self.devices_shown():  # lit only while the view is shown
            self.highlightRequested.emit(list(ranges))

    def refresh_highlights(self) -> None:
        """Light what the device view's phase runs if the view is shown, else nothing (a
        maximized view went back, or the tabs changed without their signals)."""
        view = self.devices.view
        if self.devices_shown() and view is not None and getattr(view, "phases", None):
            self.highlightRequested.emit(list(view.phases[view.current_phase].highlights))
        else:
            self.highlightRequested.emit([])

    def values_panel(self) -> Any:
        """The values panel (built on first call); None if it cannot load."""
        return self.values.load()

    def _collectives_view(self) -> Any:
        fresh = self.collectives.view is None
        view = self.collectives.load()
        if view is not None and fresh:
            view.set_chip(self.state.chip)
            view.chipChosen.connect(lambda key: setattr(self.state, "chip", key))
            view.rowChosen.connect(self._collective_chosen)
            if self.state.details is not None:
                view.set_result(self.state.details, self._variant)
            self.costWanted.emit()
        return view

    def _follow_chip(self, key: str) -> None:
        for lazy in (self.collectives, self.devices):
            if lazy.view is not None and hasattr(lazy.view, "set_chip"):
                lazy.view.set_chip(key)

    def _collective_chosen(self, steps: list, lines: list) -> None:
        """A collectives row: the device view shows the first phase of its steps (state's
        ``device_phase`` follows through :attr:`phaseShown`); the window its line."""
        view = self._device_view()
        if view is not None and steps:
            index = next((k for k, p in enumerate(view.phases)
                          if p.step_index is not None and p.step_index in steps), None)
            if index is not None:
                view.seek(index)
        if lines:
            self.sourceLineChosen.emit(int(lines[0]))

    def _timing_view(self) -> Any:
        fresh = self.timing.view is None
        view = self.timing.load()
        if view is not None and fresh:
            if self._engine is not None and hasattr(view, "set_engine"):
                view.set_engine(self._engine)
            if self._request is not None and hasattr(view, "set_target"):
                view.set_target(self._request)
            for name, relay in (("measuring", self.timingRequested),
                                ("sourceOffered", self.recordedSourceOffered)):
                signal = getattr(view, name, None)
                if signal is not None:
                    signal.connect(relay.emit)
                    signal.connect(lambda request: self.timingShown.emit(
                        request.target.function))
            if hasattr(view, "set_stale"):
                view.set_stale(self._timing_note)
            if hasattr(view, "set_cannot_run"):
                view.set_cannot_run(cannot_run(self.state.result))
        return view

    def set_zoom(self, zoom: int) -> None:
        """The window's text scale: the console and values fonts, the device view's text
        (its size otherwise follows the canvas, not the font)."""
        self._zoom = zoom
        self.console.set_zoom(zoom)
        if self.values.view is not None:
            self.values.view.set_zoom(zoom)
        view = self.devices.view
        if view is not None and hasattr(view, "set_font_scale"):
            view.set_font_scale(style.text_scale(zoom))

    def follow_result(self, result: TraceResult | None) -> None:
        """The window's trace (``state.result``) changed: the timing view learns which of
        its variants cannot run the function, and why."""
        view = self.timing.view
        if view is not None and hasattr(view, "set_cannot_run"):
            view.set_cannot_run(cannot_run(result))

    def set_timing_note(self, note: str) -> None:
        """Why the timing view's run is not of the function open now ("" when it is)."""
        self._timing_note = note
        view = self.timing.view
        if view is not None and hasattr(view, "set_stale"):
            view.set_stale(note)

    def start_over(self) -> None:
        """A new document: the device view shows its first phase when its result comes; the
        console shows only what this document prints."""
        self._start_over = True
        self.console.start_document(self.state.function)
        self._title_console("Console")

    # ------------------------------------------------------------ feeding
    def show_details(self, variant: str) -> None:
        """The state's complete result (``state.details``) changed, or the variant to show
        did: the device view (when built) shows ``variant`` of it."""
        self._variant = variant
        result = self.state.details
        view = self.devices.view
        table = self.collectives.view
        self.device_variant.clear()
        if result is None:  # a new document, not traced yet: nothing of the last one
            if view is not None and hasattr(view, "clear"):
                view.clear(self.state.not_traced())
            if table is not None:
                table.clear(self.state.not_traced())
            return
        if table is not None:
            table.set_result(result, variant)
        # every traced variant, the one shown even when it failed (the canvas says why):
        # the picker never names another variant than the canvas shows
        for vr in result.variants:
            self.device_variant.addItem(vr.variant if vr.ok else f"{vr.variant} (failed)",
                                        vr.variant)
        index = self.device_variant.findData(variant)
        if index >= 0:
            self.device_variant.setCurrentIndex(index)
        if view is not None:
            if self._start_over and hasattr(view, "start_over"):
                view.start_over()
            view.set_result(result, variant)
        self._start_over = False

    def _variant_picked(self, variant: str) -> None:
        """The "Devices of" picker: the state's focused variant (the view follows it)."""
        self.set_variant(variant)
        if variant in self.state.shown_variants():
            self.state.focused_variant = variant

    def set_variant(self, variant: str) -> None:
        if variant != self._variant:
            self.show_details(variant)
        self._variant = variant

    def set_request(self, request: TraceRequest) -> None:
        self._request = request
        view = self.timing.view
        if view is not None and hasattr(view, "set_target"):
            view.set_target(request)

    def add_console_output(self, title: str, stdout: str, stderr: str) -> None:
        if self.console.add_output(title, stdout, stderr) and self.currentWidget() is not \
                self.console:
            self._title_console("Console ●")

    def _title_console(self, title: str) -> None:
        """The console's tab title (● : it printed since last seen). Set only when it
        changes: each setting lays the tab widget out again and repaints it (1.5-2 ms)."""
        index = self.indexOf(self.console)
        if self.tabText(index) != title:
            self.setTabText(index, title)

    def open_timing_recording(self, path: str) -> bool:
        """Show a recorded timing run (``jaxviz timings.json``); False if the view is missing."""
        self.setCurrentWidget(self.timing)
        view = self._timing_view()
        if view is None or not hasattr(view, "open_recording"):
            return False
        view.open_recording(path)
        return True
