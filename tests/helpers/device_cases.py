"""Real storyboards for the device-view tests, traced in this process by jaxviz.core.

The results are computed once per test session (tracing costs seconds on the
shared two cores) and handed out as fresh copies. Cases needing another
device count or several processes run in engine processes (:func:`engine_traced`).
"""

from __future__ import annotations

import contextlib
import copy
import functools
import os

os.environ.setdefault("JAX_NUM_CPU_DEVICES", "8")

#: A matmul whose specs make XLA's partitioner insert collectives (finding 2 of issue 11).
MATMUL = "import jax.numpy as jnp\n\n\ndef f(x, w):\n    return x @ w\n"
MATMUL_FIELDS = dict(args="f32[16,64], f32[64,32]", in_axes="None, None", mesh="data=4,model=2",
                     specs="P('data','model'), P(None,'model')")


def configure_jax() -> None:
    """8 simulated CPU devices (a no-op when the backend already runs with them)."""
    from jaxviz import core

    with contextlib.suppress(RuntimeError):
        core.configure_devices(8)


def _check(result, variant: str):
    from jaxviz.model.errors import format_error

    assert result.error is None, format_error(result.error, debug=True)
    vr = result.variant(variant)
    assert vr.error is None, format_error(vr.error, debug=True)
    return result


@functools.cache
def _trace(name: str, variant: str, overrides: tuple = ()):
    configure_jax()
    from jaxviz import core
    from jaxviz.model import TraceRequest, TraceSettings
    from jaxviz.model.sources import resolve_target

    target, d = resolve_target(f"example:{name}")
    fields = {name: d[name] for name in TraceSettings.names()}
    fields["axis_name"] = fields["axis_name"] or "i"
    fields.update(dict(overrides))
    req = TraceRequest(target=target, variants=[variant], want=["jaxpr", "story"], **fields)
    return _check(core.trace_request(req), variant)


@functools.cache
def _trace_source(source: str, function: str, variant: str, overrides: tuple):
    configure_jax()
    from jaxviz import core
    from jaxviz.model import Target, TraceRequest

    req = TraceRequest(target=Target(source, "<editor:f.py>", function), variants=[variant],
                       want=["jaxpr", "story"], **dict(overrides))
    return _check(core.trace_request(req), variant)


def traced(name: str, variant: str, **overrides):
    """A fresh copy of the TraceResult of one example's variant (jaxpr and storyboard)."""
    return copy.deepcopy(_trace(name, variant, tuple(sorted(overrides.items()))))


def traced_source(source: str, function: str, variant: str, **fields):
    """A fresh copy of the TraceResult of a function in ``source``."""
    return copy.deepcopy(_trace_source(source, function, variant, tuple(sorted(fields.items()))))


def matmul(variant: str = "sharded", **overrides):
    """The all-gather matmul of finding 2: ``x @ w``, P('data','model') and P(None,'model')."""
    fields = dict(MATMUL_FIELDS)
    fields.update(overrides)
    return traced_source(MATMUL, "f", variant, **fields)


@functools.cache
def _engine_trace(name: str, variant: str, devices: int):
    from jaxviz.cli.runner import run_trace
    from jaxviz.model import TraceRequest, TraceSettings
    from jaxviz.model.sources import resolve_target

    target, d = resolve_target(f"example:{name}")
    fields = {name: d[name] for name in TraceSettings.names()}
    fields["axis_name"] = fields["axis_name"] or "i"
    if fields.get("batched_args"):
        fields["batched_args"] = None  # the example's own batch is sized for 8 devices
    req = TraceRequest(target=target, variants=[variant], want=["jaxpr", "story"], **fields)
    return _check(run_trace(req, devices, 300.0), variant)


def engine_traced(name: str, variant: str, devices: int):
    """An example's variant traced in an engine process with ``devices`` devices."""
    return copy.deepcopy(_engine_trace(name, variant, devices))


@functools.cache
def _multihost():
    from jaxviz.engine.multihost import multihost_trace

    return multihost_trace("example:multi_host", processes=2, local_devices=4)


def multihost():
    """example:multi_host's shard_map variant from a real run of two JAX processes."""
    return copy.deepcopy(_multihost())
