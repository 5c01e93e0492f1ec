"""Measure the accelerators jaxviz runs on: bf16 matmul FLOP/s and all-gather bandwidth.

On simulated CPU devices there is nothing to calibrate a chip preset against
(they share the host's cores), and the result says so without measuring.
"""

from __future__ import annotations

import time
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

from jaxviz.model.calibration import CalibrationRequest, CalibrationResult


def calibrate(req: CalibrationRequest) -> CalibrationResult:
    """Time a bf16 matmul on one device and an all-gather over all of them."""
    devices = jax.devices()
    platform = devices[0].platform
    result = CalibrationResult(platform=platform, device_kind=str(devices[0].device_kind),
                               devices=len(devices))
    if platform == "cpu":
        result.message = ("nothing to calibrate against: these are CPU devices (simulated ones "
                          "share the host's cores), not the accelerator the preset describes; "
                          "the projection uses the preset's numbers")
        return result
    return measure(req, devices, result)


def measure(req: CalibrationRequest, devices: list[Any],
            result: CalibrationResult) -> CalibrationResult:
    """Time the matmul on ``devices[0]`` and the all-gather over all ``devices`` into
    ``result`` (whatever their platform: :func:`calibrate` keeps CPU devices out)."""
    n = req.size
    a = jax.device_put(jnp.ones((n, n), jnp.bfloat16), devices[0])
    matmul = jax.jit(lambda x: x @ x)
    best = _best(lambda: matmul(a), req.repeats)
    result.matmul_flops_per_s = 2.0 * n ** 3 / best
    result.matmul_formula = (f"2 x {n}^3 FLOP / {best * 1e3:.3g} ms (best of {req.repeats}) = "
                             f"{result.matmul_flops_per_s:.3g} FLOP/s")
    if len(devices) > 1:
        mesh = jax.make_mesh((len(devices),), ("x",), devices=devices)
        per = max(1, req.collective_bytes // 2)
        x = jax.device_put(np.ones((len(devices) * per,), np.float16),
                           NamedSharding(mesh, P("x")))
        gather = all_gather(mesh)
        best = _best(lambda: gather(x), req.repeats)
        gathered = 2.0 * per * len(devices)
        result.all_gather_bytes_per_s = gathered / best
        result.all_gather_formula = (f"all-gather of {gathered:.3g} B over {len(devices)} "
                                     f"devices in {best * 1e6:.3g} us (best of {req.repeats}): "
                                     f"V / T = {result.all_gather_bytes_per_s:.3g} B/s")
    result.measured = True
    result.message = f"measured on {len(devices)} {result.device_kind}"
    return result


def all_gather(mesh: Any) -> Any:
    """A program that all-gathers a vector split over ``mesh``'s one axis onto every device."""
    return jax.jit(lambda v: v, out_shardings=NamedSharding(mesh, P()))


def _best(run: Any, repeats: int) -> float:
    jax.block_until_ready(run())  # compile and warm up
    times = []
    for _ in range(max(1, repeats)):
        start = time.perf_counter()
        jax.block_until_ready(run())
        times.append(time.perf_counter() - start)
    return min(times)
