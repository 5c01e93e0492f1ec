"""The core's request dispatcher: one record in, one record out.

The engine server calls :func:`handle` for every request it receives. Each
request record type has one handler; a handler may call ``progress(record)``
to stream partial results (e.g. timing records as they are measured) before it
returns its final record. Add a capability by registering a handler here. The
engine server registers the handlers that need the engine itself (its device
inventory; timings, which may start a child process: :mod:`jaxviz.worker.server`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Progress = Callable[[Any], None]
Handler = Callable[[Any, Progress], Any]

_HANDLERS: dict[str, Handler] = {}


def handler(type_name: str) -> Callable[[Handler], Handler]:
    """Register the handler of requests whose record class is named ``type_name``."""

    def register(fn: Handler) -> Handler:
        _HANDLERS[type_name] = fn
        return fn

    return register


def handle(record: Any, progress: Progress | None = None) -> Any:
    """Run one request record through its handler.

    Raises:
        KeyError: no handler for this record type.
    """
    name = type(record).__name__
    fn = _HANDLERS.get(name)
    if fn is None:
        raise KeyError(f"the engine has no handler for {name} records "
                       f"(it handles {', '.join(sorted(_HANDLERS))})")
    return fn(record, progress or (lambda _r: None))


@handler("TraceRequest")
def _trace(record: Any, progress: Progress) -> Any:
    from jaxviz.core.trace import trace_request

    return trace_request(record)


@handler("StepRequest")
def _step(record: Any, progress: Progress) -> Any:
    from jaxviz.core.stepper import step_request

    return step_request(record)


@handler("CalibrationRequest")
def _calibrate(record: Any, progress: Progress) -> Any:
    from jaxviz.core.calibrate import calibrate

    return calibrate(record)


@handler("WhatIfRequest")
def _what_if(record: Any, progress: Progress) -> Any:
    from jaxviz.core.what_if import what_if

    return what_if(record)
