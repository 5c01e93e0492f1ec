"""Loading a deck off the GUI thread, through the JAX engine.

:class:`DeckLoader` runs :func:`~jaxviz.views.present.deck.load_functions` on a
worker thread; each request it makes goes to an engine client and the thread
waits for the reply (the GUI thread never does). The results come back as Qt
signals on the GUI thread.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Signal

from jaxviz.views.present.deck import (
    FunctionData,
    Slide,
    build_slides,
    data_key,
    load_functions,
)
from jaxviz.views.present.lecture import Lecture


def blocking_run(client: Any, timeout: float) -> Callable[[Any], Any]:
    """``run(record) -> result`` over an engine client (call it off the GUI thread).

    ``client`` has ``submit(record, callback, timeout=...)``: an
    :class:`~jaxviz.engine.EngineClient`, or the window's
    :class:`~jaxviz.ui.qt_engine.QtEngine` through its
    :meth:`~jaxviz.ui.qt_engine.QtEngine.worker_client` (one engine for both).

    Raises (from ``run``):
        jaxviz.engine.EngineError: the request failed.
    """
    from jaxviz.engine import EngineError
    from jaxviz.model.records import ErrorInfo

    def run(record: Any) -> Any:
        replies: queue.SimpleQueue[Any] = queue.SimpleQueue()
        client.submit(record, replies.put, timeout=timeout)
        reply = replies.get()
        if not reply.ok:
            raise EngineError(reply.error or ErrorInfo("engine", "the engine gave no reason"),
                              reply)
        return reply.result

    return run


class DeckLoader(QObject):
    """Loads (and reloads) the slides of a lecture in the background.

    Signals:
        progress(str): what is being done (``tracing convolve``).
        loaded(list): the slides, ready.
    """

    progress = Signal(str)
    loaded = Signal(list)

    def __init__(self, lecture: Lecture, run: Callable[[Any], Any],
                 parent: QObject | None = None,
                 resolved: dict[str, tuple[Any, dict[str, Any]]] | None = None):
        super().__init__(parent)
        self.lecture = lecture
        self.run = run
        #: Targets given outright (see :func:`~jaxviz.views.present.deck.load_functions`).
        self.resolved = resolved
        self.functions: dict[str, FunctionData] = {}
        self._thread: threading.Thread | None = None

    @property
    def busy(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def load(self, measure: bool = False, sources: dict[str, str] | None = None) -> bool:
        """Start loading; False while a load is still running."""
        if self.busy:
            return False

        def work() -> None:
            functions = load_functions(self.lecture, self.run, measure, self.progress.emit,
                                       sources=sources, resolved=self.resolved)
            multiprocess_runs(self.lecture, functions, self.progress.emit)
            self.functions = functions
            self.loaded.emit(build_slides(self.lecture, functions))

        self._thread = threading.Thread(target=work, name="jaxviz-deck", daemon=True)
        self._thread.start()
        return True

    def slides(self) -> list[Slide]:
        """The slides of what was loaded last."""
        return build_slides(self.lecture, self.functions)


def multiprocess_runs(lecture: Any, functions: dict[str, FunctionData],
                      say: Any = None) -> None:
    """Device slides of an example meant for several JAX processes (multi_host) show a
    real run of them: its shard_map variant is replaced by that run's (as the window's
    Devices tab and ``jaxviz animate --processes`` show it)."""
    from jaxviz.engine.multihost import multihost_trace
    from jaxviz.model.errors import UserError
    from jaxviz.ui.devices.multiprocess import VARIANT, multiprocess_example

    device_keys = {data_key(s) for s in lecture.steps if s.view == "device"}
    for key, data in functions.items():
        result = data.result
        if key not in device_keys or result is None:
            continue
        example = multiprocess_example(result, VARIANT)
        if example is None:
            continue
        if say is not None:
            say(f"running {example.function} in {example.processes} JAX processes")
        try:
            run = multihost_trace(f"example:{example.name}", example.processes,
                                  local_devices=max(len(result.devices) // example.processes, 1),
                                  axis_name=example.axis_name or "hosts")
        except UserError as exc:
            data.error = exc.info.message
            continue
        result.variants = [v for v in result.variants if v.variant != VARIANT] + run.variants
        result.devices = run.devices
