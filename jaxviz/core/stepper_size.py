"""How much a stepping will record, and the message when that is too much.

Before it runs anything the stepper estimates the size of its records from the
jaxpr alone: equations x devices x bytes per value (``scan`` bodies times their
length, ``while`` bodies once, the larger ``cond`` branch). While it runs, the
:class:`~jaxviz.core.stepper_values.Recorder` counts what it really keeps
(``while`` loops may run longer than estimated).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from jaxviz.core import jax_internals as ji
from jaxviz.core.stepper_values import estimated_size
from jaxviz.model import ErrorInfo
from jaxviz.model.errors import UserError
from jaxviz.model.stepping import StepRequest


@dataclass
class Estimate:
    """Bytes of value records, steps, and the most devices a body runs on."""

    bytes: int = 0
    steps: int = 0
    devices: int = 1

    def add(self, other: Estimate, times: int = 1) -> None:
        self.bytes += other.bytes * times
        self.steps += other.steps * times
        self.devices = max(self.devices, other.devices)


def static_size(jaxpr: Any, limit: int, light: bool) -> Estimate:
    """Estimate the records of stepping ``jaxpr`` (see the module docs)."""
    return _walk(jaxpr, 1, limit, light)


def _walk(jaxpr: Any, width: int, limit: int, light: bool) -> Estimate:
    est = Estimate(devices=width)
    for eqn in ji.signature(jaxpr)[3]:
        values = sum(estimated_size(tuple(max(d, 1) for d in ji.aval_of(v)[0]), limit, light)
                     for v in [*eqn.invars, *eqn.outvars])
        nested = ji.nested(eqn)
        if nested is None:
            est.add(Estimate(values * width, 1))
            continue
        est.add(Estimate(values * width, 2))  # the enter and leave markers
        if nested.kind == "shard_map":
            inner_width = ji.mesh_size(nested.params["mesh"])
            est.add(Estimate(values, 0))  # the devices' blocks on the markers
            est.add(_walk(nested.bodies[0].jaxpr, inner_width, limit, light))
        elif nested.kind == "cond":
            branches = [_walk(b.jaxpr, width, limit, light) for b in nested.bodies]
            est.add(max(branches, key=lambda e: e.bytes))
        else:
            times = nested.params["length"] if nested.kind == "scan" else 1
            for body in nested.bodies:
                est.add(_walk(body.jaxpr, width, limit, light), times)
    return est


def too_large(function: str, req: StepRequest, used: int, steps: int, devices: int,
              before: bool) -> UserError:
    """The error for a stepping whose records go over the request's limit."""
    on = f" on {devices} devices" if devices > 1 else ""
    if before:
        what = (f"stepping {function} would record about {used / 1e6:.3g} MB of values "
                f"({steps:,} steps{on})")
    else:
        what = (f"stepping {function} recorded {used / 1e6:.3g} MB of values in its first "
                f"{steps:,} steps{on}")
    if req.summary:
        advice = ("stop earlier (run to a line), give it smaller arguments, or raise the "
                  "limit")
    else:
        advice = ("step it in summary mode (each value kept as its shape, dtype, min, max and "
                  "mean: `jaxviz step --summary`), stop earlier (run to a line), or give it "
                  "smaller arguments")
    return UserError(ErrorInfo(
        kind="size", message=f"{what}, over the limit of {req.record_limit_mb:g} MB: {advice}"))
