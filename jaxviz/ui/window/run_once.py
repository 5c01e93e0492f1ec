"""Run Once: call the focused pane's variant with real values; its output goes to the Console.

Tracing shows what a function prints *while JAX traces it* (tracers, types).
To see values -- each device's block of a ``shard_map`` body, labelled by
device -- the function must run, which it does only when the user asks (Run ▸
Run Once, Ctrl+R). The request is the window's own, for one variant, asking
for its value (the engine runs a printing ``shard_map`` body eagerly, once per
device, as ``jaxviz run`` does); the Console gets what it printed, the call and
the value, and the variant's notes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from PySide6.QtCore import QObject, Signal

from jaxviz.model import TraceRequest, variant_label
from jaxviz.model.engine import Reply
from jaxviz.model.errors import format_error
from jaxviz.ui.panels.tool_tabs import ToolTabs
from jaxviz.ui.qt_engine import QtEngine


class RunOnce(QObject):
    """Sends Run Once requests and writes their answers into the Console.

    Signals:
        finished(str): the variant whose run ended (with its value or its error).
    """

    finished = Signal(str)

    def __init__(self, engine: QtEngine, tools: ToolTabs,
                 status: Callable[[str, bool], None], parent: QObject | None = None):
        super().__init__(parent)
        self.engine = engine
        self.tools = tools
        self.status = status
        #: request id -> (variant, the document it ran for)
        self._pending: dict[int, tuple[str, int]] = {}
        engine.replied.connect(self._on_reply)

    def run(self, request: TraceRequest | None, variant: str,
            waiting: str | None = None) -> int | None:
        """Run ``variant`` of ``request`` once; None when there is nothing to run.

        Args:
            request: the window's request (None: it cannot run, or may not yet).
            variant: the variant to call.
            waiting: the name of a document not yet run (the trust rule: Trace
                runs it first), or None.
        """
        if request is None:
            if waiting is not None:
                self.status(f"cannot run: {waiting} has not run yet; press Trace (F5) to "
                            f"run it, then Run Once", False)
            else:
                self.status("nothing to run: fix the code or the arguments first", True)
            return None
        record = dataclasses.replace(request, variants=[variant], want=["jaxpr", "value"])
        rid = self.engine.submit(record)
        self._pending[rid] = (variant, self.tools.state.document)
        self.status(f"running {variant_label(variant)} once…", False)
        return rid

    def _on_reply(self, reply: Reply) -> None:
        pending = self._pending.pop(reply.id, None)
        if pending is None:
            return
        variant, document = pending
        if document != self.tools.state.document:  # another document is open: not its output
            self.finished.emit(variant)
            return
        label = variant_label(variant)
        result = reply.result if reply.ok else None
        stdout = (result.stdout if result else "") + reply.stdout
        stderr = (result.stderr if result else "") + reply.stderr
        error = reply.error if result is None else result.error
        vr = None if result is None or error is not None else result.variant(variant)
        if vr is not None and vr.error is not None:
            error = vr.error
        if error is not None or vr is None:
            message = format_error(error, False) if error is not None else "no result"
            self.tools.add_console_output(f"▶ {label}: run once", stdout,
                                          stderr + f"failed: {message}\n")
            self.status(f"{label} failed: {message.splitlines()[0]}", True)
        else:
            lines = [f">>> {vr.call}", vr.value]
            lines += [f"# {note.line()}" for note in vr.notes]
            self.tools.add_console_output(f"▶ {label}: run once",
                                          stdout + "\n".join(lines) + "\n", stderr)
            self.tools.setCurrentWidget(self.tools.console)
            self.status(f"ran {label} once: the Console shows what it printed and returned",
                        False)
        self.finished.emit(variant)
