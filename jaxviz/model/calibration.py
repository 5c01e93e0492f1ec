"""Measuring the machine jaxviz runs on, beside a chip preset (``jaxviz cost --calibrate``)."""

from __future__ import annotations

from dataclasses import dataclass

from jaxviz.model.codec import check_annotations, register


@register
@dataclass
class CalibrationRequest:
    """Measure matmul throughput and collective bandwidth on the engine's devices.

    Attributes:
        size: the side of the square bf16 matmul timed.
        collective_bytes: bytes per device of the all-gather timed.
        repeats: timed runs of each (the best counts).
    """

    size: int = 8192
    collective_bytes: int = 1 << 28
    repeats: int = 5


@register
@dataclass
class CalibrationResult:
    """What was measured, or why nothing was.

    Attributes:
        platform: ``cpu``, ``gpu``, ``tpu``.
        device_kind: the devices' kind (``NVIDIA H100 80GB HBM3``).
        devices: how many took part.
        measured: False when there is nothing to calibrate against (CPU devices).
        message: what was done, or why not.
        matmul_flops_per_s: bf16 matmul FLOP/s of one device.
        matmul_formula: how it was computed.
        all_gather_bytes_per_s: gathered bytes per second of an all-gather over all devices.
        all_gather_formula: how it was computed.
    """

    platform: str
    device_kind: str = ""
    devices: int = 0
    measured: bool = False
    message: str = ""
    matmul_flops_per_s: float = 0.0
    matmul_formula: str = ""
    all_gather_bytes_per_s: float = 0.0
    all_gather_formula: str = ""


check_annotations(CalibrationRequest, CalibrationResult)
