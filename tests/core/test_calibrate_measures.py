"""``jaxviz cost --calibrate``'s measurement, run here on the simulated CPU devices (the
command itself refuses them: they share the host's cores). On an accelerator the same code
runs; what it measures is checked against JAX: the collective it times is an all-gather in
the compiled program, over every device, and each rate is its formula's bytes or FLOPs over
the time it states."""

from __future__ import annotations

import re

import jax
import numpy as np
import pytest
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

from jaxviz.core.calibrate import all_gather, calibrate, measure
from jaxviz.model.calibration import CalibrationRequest, CalibrationResult


def test_the_timed_collective_is_an_all_gather_over_every_device():
    devices = jax.devices()
    mesh = jax.make_mesh((len(devices),), ("x",), devices=devices)
    x = jax.device_put(np.ones((len(devices) * 4,), np.float16), NamedSharding(mesh, P("x")))
    hlo = all_gather(mesh).lower(x).compile().as_text()
    gathers = re.findall(r"= f16\[(\d+)\]\S* all-gather(?:-start)?\(", hlo)
    assert gathers == [str(len(devices) * 4)], hlo  # one all-gather, to the whole vector
    assert "num_partitions=" + str(len(devices)) in hlo  # over every device


def test_the_measurement_states_rates_that_follow_from_its_formulas():
    devices = jax.devices()
    req = CalibrationRequest(size=64, repeats=2, collective_bytes=4096)
    result = measure(req, devices, CalibrationResult(platform="cpu", device_kind="cpu",
                                                     devices=len(devices)))
    assert result.measured and result.matmul_flops_per_s > 0
    ms = float(re.search(r"/ ([0-9.e+-]+) ms", result.matmul_formula).group(1))
    assert result.matmul_flops_per_s == \
        pytest.approx(2 * 64 ** 3 / (ms * 1e-3), rel=1e-2)
    moved = float(re.search(r"all-gather of ([0-9.e+-]+) B", result.all_gather_formula).group(1))
    # the whole gathered vector: 4096 bytes from each device (f16: 2 bytes an element)
    assert moved == pytest.approx(4096 * len(devices), rel=1e-2)
    assert result.all_gather_bytes_per_s > 0


def test_on_cpu_devices_the_command_measures_nothing():
    result = calibrate(CalibrationRequest())
    assert not result.measured and "nothing to calibrate against" in result.message
