"""Everything JAX, nothing Qt: tracing, variants, layouts and timings.

The public surface is small and re-exported here. Call :func:`configure_devices`
before anything touches the JAX backend (the device count is fixed when it
starts); the engine process does this first thing. Resolving a target and the
error records are JAX-free: :mod:`jaxviz.model.sources`, :mod:`jaxviz.model.errors`.

Example:
    >>> from jaxviz import core
    >>> from jaxviz.model import TraceRequest
    >>> from jaxviz.model.sources import resolve_target
    >>> core.configure_devices(8)                                   # doctest: +SKIP
    >>> target, defaults = resolve_target("example:convolve")       # doctest: +SKIP
    >>> request = TraceRequest(target=target, args=defaults["args"])
    >>> result = core.trace_request(request)                        # doctest: +SKIP

May import: :mod:`jaxviz.model`, JAX. Never Qt, :mod:`jaxviz.views.devices`, the engine or the ui.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from jaxviz.core.devices import configure as configure_devices

if TYPE_CHECKING:
    from jaxviz.model import TraceRequest, TraceResult

__all__ = ["configure_devices", "trace_request"]


def trace_request(req: TraceRequest) -> TraceResult:
    """See :func:`jaxviz.core.trace.trace_request` (imported lazily: it imports JAX)."""
    from jaxviz.core.trace import trace_request as _trace

    return _trace(req)
