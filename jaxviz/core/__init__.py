"""Everything JAX, nothing Qt: tracing, variants, layouts and timings.

The public surface is small and re-exported here. Call :func:`configure_devices`
before anything touches the JAX backend (the device count is fixed when it
starts); the engine process does this first thing.

Example:
    >>> from jaxviz import core
    >>> core.configure_devices(8)                                # doctest: +SKIP
    >>> target, defaults = core.resolve_target("example:convolve")  # doctest: +SKIP
    >>> result = core.trace_request(TraceRequest(target, defaults["args"], ["plain"]))  # doctest: +SKIP
"""

from jaxviz.core.devices import configure as configure_devices
from jaxviz.model.errors import UserError, format_error
from jaxviz.core.loader import resolve_target

__all__ = ["configure_devices", "format_error", "resolve_target", "trace_request", "UserError"]


def trace_request(req):
    """See :func:`jaxviz.core.trace.trace_request` (imported lazily: it imports JAX)."""
    from jaxviz.core.trace import trace_request as _trace

    return _trace(req)
