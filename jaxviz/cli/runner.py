"""Where the command line runs a trace request.

Today the request runs in this process (the JAX engine process of issue #3
will take over here, so every subcommand gains timeouts and crash isolation at
once).
"""

from __future__ import annotations

from jaxviz.model import TraceRequest, TraceResult


def run_trace(req: TraceRequest, devices: int, timeout: float) -> TraceResult:
    """Run one trace request with ``devices`` devices."""
    from jaxviz import core

    core.configure_devices(devices)
    return core.trace_request(req)
