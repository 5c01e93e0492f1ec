"""Where the command line runs its requests.

Today the request runs in this process (the JAX engine process of issue #3
will take over here, so every subcommand gains timeouts and crash isolation at
once). Contract kept by every implementation:

* :func:`run_request` runs any request record the core's service handles and
  returns its result record; ``on_progress`` receives streamed partial records.
* :func:`run_trace` is :func:`run_request` for a :class:`TraceRequest`, with
  engine failures (timeout, crash) reported as ``TraceResult.error``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from jaxviz.model import TraceRequest, TraceResult


def run_request(record: Any, devices: int, timeout: float,
                on_progress: Callable[[Any], None] | None = None) -> Any:
    """Run one request record with ``devices`` devices and return its result record."""
    from jaxviz import core
    from jaxviz.core import service

    core.configure_devices(devices)
    return service.handle(record, on_progress)


def run_trace(req: TraceRequest, devices: int, timeout: float) -> TraceResult:
    """Run one trace request with ``devices`` devices."""
    return run_request(req, devices, timeout)
