"""Compile a target's variants at several device counts and read each program's costs.

The engine process holds ``max(counts)`` simulated CPU devices (its launch
argument); for each ``N`` the variants are built on the first ``N`` of them
(:func:`jaxviz.core.devices.active_devices`), with the request's mesh scaled
to ``N`` (:func:`jaxviz.model.what_if.scaled_mesh`) and the global batch
fixed, then lowered and compiled -- never run -- and their costs read from
the compiled HLO (:mod:`jaxviz.core.program_analysis`), with XLA's own
``cost_analysis()`` FLOPs beside them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from contextlib import contextmanager

from jaxviz.core import devices
from jaxviz.model.what_if import WhatIfPoint, WhatIfRequest, WhatIfResult, scaled_mesh


@contextmanager
def first_devices(n: int) -> Iterator[None]:
    """Use the first ``n`` of the process's devices inside the block."""
    before = devices._requested
    devices._requested = n
    try:
        yield
    finally:
        devices._requested = before


def what_if(req: WhatIfRequest) -> WhatIfResult:
    """Every variant of ``req.trace`` compiled at every count of ``req.counts``."""
    from jaxviz.core.trace import trace_request

    trace = req.trace
    result = WhatIfResult(function=trace.target.function, counts=list(req.counts))
    have = len(devices.active_devices())
    counts = sorted(set(req.counts))
    if counts and counts[-1] > have:
        result.error = (f"a what-if up to {counts[-1]} devices needs an engine with that many "
                        f"devices; this one has {have}")
        return result
    # strong scaling: one global batch for every N (unless the specs shard arguments as given)
    batch = trace.batch or (counts[-1] if counts and not trace.specs else None)
    for n in counts:
        mesh, problem = scaled_mesh(trace.mesh, n)
        if problem:
            result.points += [WhatIfPoint(n, v, error=problem) for v in trace.variants]
            continue
        one = dataclasses.replace(trace, mesh=mesh, batch=batch, want=["jaxpr", "cost"])
        with first_devices(n):
            traced = trace_request(one)
        if traced.error is not None:
            result.points += [WhatIfPoint(n, v, batch=batch, error=traced.error.message)
                              for v in trace.variants]
            continue
        for vr in traced.variants:
            program = vr.program
            text = ""
            if program is not None and len(program.devices) > 1 and program.mesh is not None:
                text = ",".join(f"{a}={s}" for a, s in zip(program.mesh.axis_names,
                                                           program.mesh.axis_sizes))
            result.points.append(WhatIfPoint(
                n, vr.variant, mesh=text, batch=batch, program=program,
                xla_flops=program.xla_flops if program is not None else None,
                error=vr.error.message if vr.error is not None else
                ("" if program is not None else "no costs")))
    return result
