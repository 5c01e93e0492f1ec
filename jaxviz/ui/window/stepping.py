"""Step mode in the window: one variant's jaxpr stepped with real values, shown everywhere.

:class:`StepMode` ties a :class:`~jaxviz.ui.stepper.StepController` to the
window: the pane's Step button and F9 turn it on; every move lights the current
equation in the pane (:meth:`~jaxviz.ui.panes.linking.LinkController.show_step`)
and its source line in the editor, fills the Values tab, and -- when the device
view has been opened -- moves the device view to the phase that runs the
equation (its :meth:`~jaxviz.ui.devices.view.DeviceView.show_equation`
hook). While step mode is on, it is the window's stepping view with the highest
priority: the presenter keys (:mod:`jaxviz.ui.window.presenter_keys`) step it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

from PySide6.QtCore import QObject

from jaxviz.model import ErrorInfo, TraceRequest
from jaxviz.ui.binding import follow
from jaxviz.ui.panels.editor_panel import EditorPanel
from jaxviz.ui.panels.tool_tabs import ToolTabs
from jaxviz.ui.panes.area import JaxprArea
from jaxviz.ui.panes.linking import LinkController
from jaxviz.ui.qt_engine import QtEngine
from jaxviz.ui.stepper.controller import StepController
from jaxviz.views.window.clicker_views import ClickerView
from jaxviz.views.window.window_state import WindowState

#: What the Values tab says before the first stepping arrives.
FIRST_STEPPING_NOTE = ("The first stepping of a program takes a second or so: JAX compiles "
                       "each primitive the first time it runs one.")


class StepMode(QObject):
    """Step mode's wiring: controller -> panes, editor, values panel, device view."""

    def __init__(self, state: WindowState, engine: QtEngine, *, area: JaxprArea,
                 linking: LinkController, editor_panel: EditorPanel, tools: ToolTabs,
                 build_request: Callable[[], TraceRequest | None],
                 waiting_for_say: Callable[[], str | None],
                 set_status: Callable[..., object], grow_tools: Callable[[], object],
                 parent: QObject | None = None) -> None:
        """Step mode over ``state``'s function, driving the panes (``area``), the links,
        the editor, the Values and device views (``tools``).

        Args:
            build_request: the window's trace request, or None (the problem marked).
            waiting_for_say: the name of a document not yet run (Trace runs it), or None.
            set_status: a message (and whether it is an error) for the status bar.
            grow_tools: makes the tool tabs tall enough to read.
        """
        super().__init__(parent)
        self.state = state
        self.area = area
        self.linking = linking
        self.editor_panel = editor_panel
        self.tools = tools
        self.build_request = build_request
        self.waiting_for_say = waiting_for_say
        self.set_status = set_status
        self.grow_tools = grow_tools
        self.controller = StepController(engine, self)
        c = self.controller
        c.stepChanged.connect(self._show_step)
        c.modeChanged.connect(self._mode_changed)
        c.busyChanged.connect(self._busy)
        c.failed.connect(self._failed)
        c.refused.connect(lambda why: self.set_status(f"step: {why}"))
        for pane in area.panes.values():
            pane.stepToggled.connect(self._pane_toggled)
        editor_panel.editor.runToLineRequested.connect(self.run_to_line)
        follow(state, "document", self._new_document, self)
        self._panel: Any = None  # the values panel, once connected

    # ------------------------------------------------------------- the mode
    @property
    def active(self) -> bool:
        return self.controller.active

    def view(self) -> ClickerView | None:
        """The stepping view the clicker keys move (None when step mode is off)."""
        return self.controller if self.controller.active else None

    def toggle(self, variant: str | None = None) -> None:
        """Step mode on (for ``variant``, default the focused pane's) or off."""
        wanted = variant or self.state.device_variant()
        if self.active and (variant is None or variant == self.controller.variant):
            self.controller.stop()
        else:
            self.start(wanted)

    def start(self, variant: str, to_line: int | None = None) -> bool:
        """Step ``variant`` of what the window shows; False (status says why) if it cannot."""
        request = self.build_request()
        if request is None:
            waiting = self.waiting_for_say()
            if waiting is not None:  # stepping runs the code: an opened file waits for Trace
                self.set_status(f"cannot step: {waiting} has not run yet; press Trace (F5) "
                                  f"to run it, then Step")
            else:
                self.set_status("cannot step: the code or a field has a problem (it is "
                                  "marked)", error=True)
            self._refresh_buttons()
            return False
        panel = self.tools.values_panel()
        if panel is None:
            self.set_status(f"cannot step: {self.tools.values.failure}", error=True)
            return False
        self._connect_panel(panel)
        panel.set_zoom(self.state.zoom)
        panel.allow_leaving(True)
        self.tools.setCurrentWidget(self.tools.values)
        self.grow_tools()
        self.state.focused_variant = variant
        self.controller.start(request, variant, to_line=to_line)
        return True

    def _new_document(self, _document: int) -> None:
        """Another document: step mode ends and the Values tab says nothing of the last
        one (not which variant was stepped)."""
        if self.active:
            self.controller.stop()
        panel = self.tools.values.view
        if panel is not None:
            panel.clear(f"{self.state.function or 'This document'} is not stepped yet: "
                        f"▶ Step on a jaxpr pane (or F9) steps it.")

    def restart_if_changed(self) -> None:
        """The window traced new code or settings: step them again, keeping the place."""
        if not self.active or self.controller.request is None:
            return
        request = self.state.to_request()
        if request is None:
            return
        old = self.controller.request.trace
        if dataclasses.replace(request, want=old.want, variants=old.variants) != old:
            self.controller.restart(request)

    def run_to_line(self, line: int) -> None:
        """Step to the first equation of a source line (step mode goes on if it is off)."""
        if not self.active:
            self.start(self.state.device_variant(), to_line=line)
        elif not self.controller.run_to_line(line):
            why = self.controller.cursor.problem if self.controller.cursor else "no stepping yet"
            self.set_status(f"step: {why}")

    def move(self, name: str) -> None:
        """A button or a key: ``next``, ``back``, ``over``, ``out`` or ``line`` (cursor line)."""
        if name == "line":
            self.run_to_line(self.editor_panel.editor.textCursor().blockNumber() + 1)
        elif self.active:
            self.controller.move(name)

    # ------------------------------------------------------------- showing
    def _show_step(self, index: int) -> None:
        c = self.controller
        result = c.result
        if result is None or c.cursor is None:
            return
        step = result.steps[index]
        source = self.state.source.split("\n")
        panel = self.tools.values_panel()
        if panel is not None:
            panel.show_step(result, index, source)
        line = (step.source.line if step.source is not None
                and step.source.file == result.filename else 0)
        if step.text_start is not None:
            order = self._equation_order(c.variant, step.text_start)
            devices = self.tools.devices.view
            if order is not None and devices is not None and hasattr(devices, "show_equation"):
                devices.show_equation(order)  # first: its phase lights lines we then replace
            last = step.text_end if step.kind == "equation" and step.text_end is not None \
                else step.text_start
            self.linking.show_step(c.variant, step.text_start, last, line)
        where = f", line {line}" if line else ""
        verb = {"enter": "enters ", "leave": "leaves "}.get(step.kind, "")
        self.set_status(f"step {index + 1} of {len(result.steps)}: {verb}{step.primitive}"
                          f"{where} ({c.variant})")

    def _equation_order(self, variant: str, text_line: int) -> int | None:
        index = self.linking.index
        ref = index.owner(variant, text_line) if index is not None else None
        return ref.order if ref is not None else None

    def _mode_changed(self, on: bool, variant: str) -> None:
        self._refresh_buttons()
        self.editor_panel.editor.stepping = on
        if not on:
            self.linking.select_source_line(0, reveal=False)
            panel = self.tools.values.view
            if panel is not None:
                panel.clear(f"Step mode is off. ▶ Step on a jaxpr pane (or F9) steps it "
                            f"again; {variant} was stepped last.")
            self.set_status("step mode off")

    def _refresh_buttons(self) -> None:
        for variant, pane in self.area.panes.items():
            pane.set_stepping(self.active and variant == self.controller.variant)

    def _busy(self, busy: bool, what: str) -> None:
        pane = self.area.panes.get(self.controller.variant)
        if pane is not None:
            pane.set_busy("stepping…" if busy else "")
        panel = self.tools.values.view
        if busy:
            self.set_status(what)
            if panel is not None and self.controller.result is None:
                panel.clear(f"{what[:1].upper()}{what[1:]} {FIRST_STEPPING_NOTE}")

    def _failed(self, error: ErrorInfo) -> None:
        message = error.message
        first = message.splitlines()[0] if message else error.kind
        if error.line and (error.file is None or error.file == self.state.filename):
            self.editor_panel.show_error(error.line, message)
        panel = self.tools.values.view
        if panel is not None:
            where = f" (line {error.line})" if error.line else ""
            panel.show_message(f"⚠ Could not step {self.controller.variant}: "
                               f"{message}{where}", error=True,
                               offer_summary=error.kind == "size")
        self.set_status(f"step {error.kind} error: {first}", error=True)

    def _connect_panel(self, panel: Any) -> None:
        if panel is self._panel:
            return
        self._panel = panel
        panel.moveRequested.connect(self.move)
        panel.stopRequested.connect(self.controller.stop)
        panel.summaryRequested.connect(lambda: self.controller.restart(summary=True))

    def _pane_toggled(self, variant: str, on: bool) -> None:
        if on:
            self.start(variant)
        elif self.active and variant == self.controller.variant:
            self.controller.stop()


def handlers(mode: StepMode) -> Mapping[str, Any]:
    """The Step menu's actions (see :data:`~jaxviz.ui.window.actions.SHORTCUTS`)."""

    def forward() -> None:
        view = mode.view()
        if view is not None:
            view.step_forward()

    def back() -> None:
        view = mode.view()
        if view is not None:
            view.step_back()

    return {"step_mode": mode.toggle, "step_next": forward, "step_back": back,
            "step_over": lambda: mode.move("over"), "step_out": lambda: mode.move("out"),
            "run_to_line": lambda: mode.move("line")}
