"""Real layouts for the device-view tests, traced in this process by jaxviz.core.

The results are computed once per test session (tracing costs seconds on the
shared two cores) and handed out as fresh copies.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("JAX_NUM_CPU_DEVICES", "8")


def configure_jax() -> None:
    """8 simulated CPU devices (a no-op when the backend already runs with them)."""
    from jaxviz import core

    with contextlib.suppress(RuntimeError):
        core.configure_devices(8)


@functools.cache
def _trace(name: str, variant: str, overrides: tuple = ()):
    configure_jax()
    from jaxviz import core
    from jaxviz.model import TraceRequest, TraceSettings
    from jaxviz.model.errors import format_error
    from jaxviz.model.sources import resolve_target

    target, d = resolve_target(f"example:{name}")
    fields = {name: d[name] for name in TraceSettings.names()}
    fields["axis_name"] = fields["axis_name"] or "i"
    fields.update(dict(overrides))
    req = TraceRequest(target=target, variants=[variant], want=["jaxpr", "hlo", "layout"],
                       **fields)
    result = core.trace_request(req)
    vr = result.variant(variant)
    assert vr.error is None, format_error(vr.error, debug=True)
    return result


def traced(name: str, variant: str, **overrides):
    """A fresh copy of the TraceResult of one example's variant."""
    return copy.deepcopy(_trace(name, variant, tuple(sorted(overrides.items()))))
