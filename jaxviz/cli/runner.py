"""Where the command line runs its requests: in the JAX engine process.

Every request runs in an engine (:class:`jaxviz.engine.EngineClient`), so
every subcommand gets timeouts and crash isolation, and this process never
imports JAX. One engine serves all requests of a command (it is restarted
only to change the device count) and is stopped when the process exits.
Contract kept by every implementation:

* :func:`run_request` runs any request record the core's service handles and
  returns its result record; ``on_progress`` receives streamed partial
  records (on the engine client's callback thread, always before
  :func:`run_request` returns). A request that produces no result raises
  :class:`jaxviz.engine.EngineError`.
* :func:`run_reply` runs any request record and returns the engine's whole
  :class:`~jaxviz.model.engine.Reply` (the result or the error, and what the
  user's code printed), failure or not.
* :func:`run_trace` is :func:`run_request` for a :class:`TraceRequest`, with
  engine failures (timeout, crash) reported as ``TraceResult.error`` and what
  the user's code printed in ``TraceResult.stdout``/``stderr``.

A subcommand may call :func:`prestart` as soon as it knows the device count,
so the engine loads JAX while the command line is still being read.
"""

from __future__ import annotations

import atexit
import queue
import threading
from collections.abc import Callable
from typing import Any

from jaxviz.engine import EngineClient, EngineError
from jaxviz.model import ErrorInfo, TraceRequest, TraceResult
from jaxviz.model.engine import Reply

__all__ = ["EngineError", "prestart", "run_reply", "run_request", "run_trace"]

_lock = threading.Lock()
_client: EngineClient | None = None


def prestart(devices: int) -> None:
    """Start the engine with ``devices`` devices in the background, now."""
    _engine(devices)


def run_request(record: Any, devices: int, timeout: float,
                on_progress: Callable[[Any], None] | None = None) -> Any:
    """Run one request record with ``devices`` devices and return its result record.

    Args:
        record: a request record (``TraceRequest``, ``TimingRequest``, ...).
        devices: the engine's device count (the engine restarts if it differs).
        timeout: seconds the request may run once the engine has it.
        on_progress: receives each partial record the handler streams.

    Raises:
        jaxviz.engine.EngineError: no result: the request timed out, the
            engine crashed or could not start, or the handler raised.
            ``exc.info`` is the :class:`~jaxviz.model.ErrorInfo` (``kind``
            ``timeout``, ``crash``, ``engine``, ``trace``, ...) and
            ``exc.reply`` has what the request printed.
    """
    reply = _run(record, devices, timeout, on_progress)
    if not reply.ok:
        raise EngineError(reply.error or ErrorInfo("engine", "the engine gave no reason"), reply)
    return reply.result


def run_reply(record: Any, devices: int, timeout: float) -> Reply:
    """Run one request record and return the engine's reply, whether it succeeded or not."""
    return _run(record, devices, timeout)


def run_trace(req: TraceRequest, devices: int, timeout: float) -> TraceResult:
    """Run one trace request with ``devices`` devices; failures become ``result.error``."""
    reply = run_reply(req, devices, timeout)
    result = reply.result if reply.ok else None
    if not isinstance(result, TraceResult):
        result = TraceResult(function=req.target.function, filename=req.target.filename,
                             error=reply.error)
    result.stdout, result.stderr = reply.stdout, reply.stderr
    return result


def _run(record: Any, devices: int, timeout: float,
         on_progress: Callable[[Any], None] | None = None) -> Reply:
    replies: queue.SimpleQueue[Reply] = queue.SimpleQueue()
    # The reply callback runs after every progress callback of the request, so
    # waiting for it (not for the handle) keeps progress output before the result.
    _engine(devices).submit(record, replies.put, timeout=timeout, on_progress=on_progress)
    return replies.get()


def _engine(devices: int) -> EngineClient:
    """The process's engine client, started (or restarted) with ``devices`` devices."""
    global _client
    with _lock:
        if _client is None:
            # No standby: a command runs a request or two, and a second JAX
            # process would compete with the first for the machine's cores.
            _client = EngineClient(devices=devices, standby=False)
            _client.start()
            atexit.register(_client.stop)
        elif _client.devices != devices:
            _client.restart(devices)
        return _client
