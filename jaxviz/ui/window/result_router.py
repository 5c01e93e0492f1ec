"""Putting trace results and errors where they belong in the window.

* a result: every requested pane gets its jaxpr, link colours and marks;
* a syntax or load error: a marker on the editor line, with the message;
* a bad field (``ErrorInfo.field``): the marker under that field;
* a variant's JAX error: that pane's banner;
* an engine failure (timeout, crash, cancelled): a banner on every pane.

In every error case the last good content stays, dimmed; nothing the user
typed is touched. The router sees the window through :class:`ResultView`
(the widgets it fills) and the :class:`~jaxviz.views.window.window_state.WindowState`;
what belongs in the status bar it announces with :attr:`ResultRouter.statusChanged`.
A good result goes into the state (``state.result``, then ``state.details``) and
reaches every view from there, the panes included: no view is handed it directly,
and none keeps a copy of its own.
"""

from __future__ import annotations

from typing import Protocol

from PySide6.QtCore import QObject, Signal

from jaxviz.model import ErrorInfo, TraceRequest, TraceResult
from jaxviz.model.engine import Reply
from jaxviz.model.setting_words import for_window, result_for_window
from jaxviz.ui.panels.args import ArgsPanel
from jaxviz.ui.panels.editor_panel import EditorPanel
from jaxviz.ui.panels.tool_tabs import ToolTabs
from jaxviz.ui.panes.area import JaxprArea
from jaxviz.views.window.window_state import WindowState

#: Error kinds that belong to the editor (a line of the source).
EDITOR_KINDS = {"syntax", "load", "lookup"}
_ENGINE_WORDS = {
    "cancelled": "Stopped",
    "timeout": "Timed out",
    "crash": "The JAX engine crashed",
    "engine": "No JAX engine",
}


class ResultView(Protocol):
    """The widgets a result or an error is shown in (the main window has them)."""

    editor_panel: EditorPanel
    args_panel: ArgsPanel
    area: JaxprArea
    tools: ToolTabs


class ResultRouter(QObject):
    """Applies replies from the :class:`~jaxviz.ui.window.session.TraceSession` to the window.

    Signals:
        statusChanged(str, bool): a message for the status bar, and whether it is an error.
    """

    statusChanged = Signal(str, bool)

    def __init__(self, view: ResultView, state: WindowState, parent: QObject | None = None):
        super().__init__(parent)
        self.w = view
        self.state = state

    @property
    def result(self) -> TraceResult | None:
        """The window's current result (``state.result``); read-only."""
        return self.state.result

    @property
    def details(self) -> TraceResult | None:
        """The window's current result with its details (``state.details``); read-only."""
        return self.state.details

    def set_status(self, text: str, error: bool = False) -> None:
        self.statusChanged.emit(text, error)

    # --------------------------------------------------------------- phase 1
    def of_this_document(self, req: TraceRequest) -> bool:
        """Whether ``req`` traced the document open now (a reply for one closed since is
        never shown: its pictures would stand under this document's title)."""
        return (req.target.filename, req.target.function) == \
            (self.state.filename, self.state.function)

    def show_result(self, req: TraceRequest, reply: Reply) -> None:
        w = self.w
        title = f"{req.target.function}"
        if not self.of_this_document(req):
            return
        result: TraceResult | None = reply.result if reply.ok else None
        if result is not None:  # messages name the window's fields, not CLI flags
            result_for_window(result, w.args_panel.labels())
        stdout = (result.stdout if result else "") + reply.stdout
        stderr = (result.stderr if result else "") + reply.stderr
        w.tools.add_console_output(title, stdout, stderr)
        if not reply.ok or result is None:
            self.show_engine_failure(for_window(reply.error or ErrorInfo("engine", "no reply"),
                                                w.args_panel.labels()))
            return
        if result.error is not None:
            self.show_request_error(result.error)
            return

        w.editor_panel.clear_error()
        w.args_panel.validate()  # clears markers the engine had set
        self.state.result = result  # the panes, the compare layout and the links follow
        for vr in result.variants:
            if vr.error is not None and vr.error.field:
                w.args_panel.set_field_error(vr.error.field, vr.error.message,
                                             vr.error.position)
        failed = [vr.variant for vr in result.variants
                  if vr.error is not None and vr.variant in self.state.shown_variants()]
        self._mark_runtime_error(result, failed)
        ms = f"{reply.elapsed_s * 1000:.0f} ms"
        if failed:
            self.set_status(f"traced {title} in {ms}; {', '.join(failed)} failed (see the banner)")
        else:
            self.set_status(f"traced {title} in {ms}")

    def _mark_runtime_error(self, result: TraceResult, failed: list[str]) -> None:
        """A variant that failed at a line of the document marks that line in the editor,
        as a syntax error does (the pane's banner says the rest)."""
        for vr in result.variants:
            error = vr.error
            if vr.variant in failed and error is not None and error.line \
                    and not error.field and self._in_document(error):
                first = error.message.splitlines()[0] if error.message else error.kind
                self.w.editor_panel.show_error(error.line, f"{vr.variant}: {first}")
                return

    # --------------------------------------------------------------- phase 2
    def show_details(self, req: TraceRequest, reply: Reply) -> None:
        if not reply.ok or reply.result is None or reply.result.error is not None \
                or not self.of_this_document(req):
            return
        self.state.details = reply.result  # the panes' HLO views and the device view follow

    # ---------------------------------------------------------------- errors
    def show_request_error(self, error: ErrorInfo) -> None:
        """The request failed as a whole: point at the line or field at fault."""
        w = self.w
        placed = False
        if error.field:
            placed = w.args_panel.set_field_error(error.field, error.message, error.position)
        if not placed and (error.kind in EDITOR_KINDS or error.line):
            line = error.line if error.line and self._in_document(error) else 0
            w.editor_panel.show_error(line, error.message)
            placed = True
        if not placed:
            w.editor_panel.show_error(0, error.message)
        where = "in Arguments" if error.field else "in the editor"
        self.dim_panes(f"Not traced ({self._name()}): {error.message.splitlines()[0]} — fix it "
                       f"{where}; {self.what_is_shown()}.")
        self.set_status(f"{error.kind} error in {self._name()}: "
                        f"{error.message.splitlines()[0]}", error=True)

    def show_engine_failure(self, error: ErrorInfo) -> None:
        """The engine did not answer normally (stopped, timed out, crashed)."""
        words = _ENGINE_WORDS.get(error.kind, "Failed")
        self.dim_panes(f"{words} ({self._name()}): {error.message}")
        if error.line and self._in_document(error) and error.kind in ("timeout", "cancelled"):
            self.w.editor_panel.editor.set_error(error.line, f"{words.lower()} here")
        self.set_status(f"{words}: {error.message.splitlines()[0]}",
                          error=error.kind != "cancelled")

    def dim_panes(self, message: str) -> None:
        """Keep every visible pane's content, dimmed, under a banner with ``message``."""
        stale = ErrorInfo("stale", message)
        for variant in self.state.shown_variants():  # after what the pane still waits for
            self.w.area.fill(variant, lambda pane: pane.show_error(stale), small=True)
        if self.w.area.comparing:
            self.w.area.compare.show_error(ErrorInfo("stale", message))
        self.w.area.refresh_tab_titles()

    def what_is_shown(self) -> str:
        """What the dimmed panes under a banner hold: the document's last good result, or
        none (a document just opened has none)."""
        return "this is its last good result" if self.state.result is not None \
            else "it has no result yet"

    def _name(self) -> str:
        """The document's name in messages: its function (or its file's name)."""
        return self.state.function or self.state.filename

    def _in_document(self, error: ErrorInfo) -> bool:
        return error.file is None or error.file == self.state.filename
