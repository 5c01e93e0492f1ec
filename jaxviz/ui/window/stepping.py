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
from collections.abc import Mapping
from typing import Any, Protocol

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction

from jaxviz.model import ErrorInfo
from jaxviz.ui.panels.editor_panel import EditorPanel
from jaxviz.ui.panels.tool_tabs import ToolTabs
from jaxviz.ui.panes.area import JaxprArea
from jaxviz.ui.panes.linking import LinkController
from jaxviz.ui.stepper.controller import StepController
from jaxviz.ui.window.qt_engine import QtEngine
from jaxviz.views.window.clicker_views import ClickerView
from jaxviz.views.window.window_state import WindowState

#: What the Values tab says before the first stepping arrives.
FIRST_STEPPING_NOTE = ("The first stepping of a program takes a second or so: JAX compiles "
                       "each primitive the first time it runs one.")


class StepModeWindow(Protocol):
    """The parts of the main window step mode uses."""

    state: WindowState
    area: JaxprArea
    linking: LinkController
    editor_panel: EditorPanel
    tools: ToolTabs
    actions_by_name: dict[str, QAction]

    def build_request(self) -> Any:
        """The window's trace request, or None (with the problem marked)."""
        ...

    def waiting_for_say(self) -> str | None:
        """The name of a document not yet run (the trust rule: Trace runs it), else None."""
        ...

    def set_status(self, text: str, error: bool = False) -> None:
        """A message in the status bar."""
        ...

    def grow_tools(self) -> None:
        """Make the tool tabs tall enough to read."""
        ...


class StepMode(QObject):
    """Step mode's wiring: controller -> panes, editor, values panel, device view."""

    def __init__(self, window: StepModeWindow, engine: QtEngine,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.w = window
        self.controller = StepController(engine, self)
        c = self.controller
        c.stepChanged.connect(self._show_step)
        c.modeChanged.connect(self._mode_changed)
        c.busyChanged.connect(self._busy)
        c.failed.connect(self._failed)
        c.refused.connect(lambda why: self.w.set_status(f"step: {why}"))
        for pane in window.area.panes.values():
            pane.stepToggled.connect(self._pane_toggled)
        window.editor_panel.editor.runToLineRequested.connect(self.run_to_line)
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
        wanted = variant or self.w.state.device_variant()
        if self.active and (variant is None or variant == self.controller.variant):
            self.controller.stop()
        else:
            self.start(wanted)

    def start(self, variant: str, to_line: int | None = None) -> bool:
        """Step ``variant`` of what the window shows; False (status says why) if it cannot."""
        request = self.w.build_request()
        if request is None:
            waiting = self.w.waiting_for_say()
            if waiting is not None:  # stepping runs the code: an opened file waits for Trace
                self.w.set_status(f"cannot step: {waiting} has not run yet; press Trace (F5) "
                                  f"to run it, then Step")
            else:
                self.w.set_status("cannot step: the code or a field has a problem (it is "
                                  "marked)", error=True)
            self._refresh_buttons()
            return False
        panel = self.w.tools.values_panel()
        if panel is None:
            self.w.set_status(f"cannot step: {self.w.tools.values.failure}", error=True)
            return False
        self._connect_panel(panel)
        panel.set_zoom(getattr(self.w, "zoom", 0))
        self.w.tools.setCurrentWidget(self.w.tools.values)
        self.w.grow_tools()
        self.w.state.focused_variant = variant
        self.controller.start(request, variant, to_line=to_line)
        return True

    def restart_if_changed(self) -> None:
        """The window traced new code or settings: step them again, keeping the place."""
        if not self.active or self.controller.request is None:
            return
        request = self.w.state.to_request()
        if request is None:
            return
        old = self.controller.request.trace
        if dataclasses.replace(request, want=old.want, variants=old.variants) != old:
            self.controller.restart(request)

    def run_to_line(self, line: int) -> None:
        """Step to the first equation of a source line (step mode goes on if it is off)."""
        if not self.active:
            self.start(self.w.state.device_variant(), to_line=line)
        elif not self.controller.run_to_line(line):
            why = self.controller.cursor.problem if self.controller.cursor else "no stepping yet"
            self.w.set_status(f"step: {why}")

    def move(self, name: str) -> None:
        """A button or a key: ``next``, ``back``, ``over``, ``out`` or ``line`` (cursor line)."""
        if name == "line":
            self.run_to_line(self.w.editor_panel.editor.textCursor().blockNumber() + 1)
        elif self.active:
            self.controller.move(name)

    # ------------------------------------------------------------- showing
    def _show_step(self, index: int) -> None:
        c = self.controller
        result = c.result
        if result is None or c.cursor is None:
            return
        step = result.steps[index]
        source = self.w.state.source.split("\n")
        panel = self.w.tools.values_panel()
        if panel is not None:
            panel.show_step(result, index, source)
        line = (step.source.line if step.source is not None
                and step.source.file == result.filename else 0)
        if step.text_start is not None:
            order = self._equation_order(c.variant, step.text_start)
            devices = self.w.tools.devices.view
            if order is not None and devices is not None and hasattr(devices, "show_equation"):
                devices.show_equation(order)  # first: its phase lights lines we then replace
            last = step.text_end if step.kind == "equation" and step.text_end is not None \
                else step.text_start
            self.w.linking.show_step(c.variant, step.text_start, last, line)
        where = f", line {line}" if line else ""
        verb = {"enter": "enters ", "leave": "leaves "}.get(step.kind, "")
        self.w.set_status(f"step {index + 1} of {len(result.steps)}: {verb}{step.primitive}"
                          f"{where} ({c.variant})")

    def _equation_order(self, variant: str, text_line: int) -> int | None:
        index = self.w.linking.index
        ref = index.owner(variant, text_line) if index is not None else None
        return ref.order if ref is not None else None

    def _mode_changed(self, on: bool, variant: str) -> None:
        self._refresh_buttons()
        self.w.editor_panel.editor.stepping = on
        if not on:
            self.w.linking.select_source_line(0, reveal=False)
            panel = self.w.tools.values.view
            if panel is not None:
                panel.clear(f"Step mode is off. ▶ Step on a jaxpr pane (or F9) steps it "
                            f"again; {variant} was stepped last.")
            self.w.set_status("step mode off")

    def _refresh_buttons(self) -> None:
        for variant, pane in self.w.area.panes.items():
            pane.set_stepping(self.active and variant == self.controller.variant)

    def _busy(self, busy: bool, what: str) -> None:
        pane = self.w.area.panes.get(self.controller.variant)
        if pane is not None:
            pane.set_busy("⏳ stepping…" if busy else "")
        panel = self.w.tools.values.view
        if busy:
            self.w.set_status(what)
            if panel is not None and self.controller.result is None:
                panel.clear(f"{what[:1].upper()}{what[1:]} {FIRST_STEPPING_NOTE}")

    def _failed(self, error: ErrorInfo) -> None:
        message = error.message
        first = message.splitlines()[0] if message else error.kind
        if error.line and (error.file is None or error.file == self.w.state.filename):
            self.w.editor_panel.show_error(error.line, message)
        panel = self.w.tools.values.view
        if panel is not None:
            where = f" (line {error.line})" if error.line else ""
            panel.show_message(f"⚠ Could not step {self.controller.variant}: "
                               f"{message}{where}", error=True,
                               offer_summary=error.kind == "size")
        self.w.set_status(f"step {error.kind} error: {first}", error=True)

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
