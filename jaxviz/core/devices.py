"""Choosing the device count before JAX starts, and describing the devices it has.

JAX fixes the number of CPU devices when its backend initializes, so
:func:`configure` must run before the first use of ``jax.devices()`` (the
engine calls it first thing). On a machine with accelerators the real devices
are used and the count only selects the first N.
"""

from __future__ import annotations

import os
import platform

from jaxviz.model import DeviceInfo

DEFAULT_DEVICES = 8
_requested = DEFAULT_DEVICES


def configure(n: int = DEFAULT_DEVICES, platform_name: str | None = None) -> None:
    """Ask for ``n`` simulated CPU devices (before the JAX backend starts).

    Raises:
        ValueError: ``n`` is not positive.
        RuntimeError: the JAX backend is already running with another count.
    """
    global _requested
    if n < 1:
        raise ValueError(f"the device count must be at least 1, not {n}")
    _requested = n
    if platform_name:
        os.environ["JAX_PLATFORMS"] = platform_name
    import jax

    jax.config.update("jax_num_cpu_devices", n)


def active_devices() -> list:
    """The devices jaxviz uses: the first N of ``jax.devices()``."""
    import jax

    devices = jax.devices()
    return devices[:_requested] if len(devices) > _requested else devices


def simulated() -> bool:
    """True when the devices are CPU devices simulated on this machine's cores."""
    devices = active_devices()
    return all(d.platform == "cpu" for d in devices)


def inventory() -> list[DeviceInfo]:
    return [DeviceInfo(id=int(d.id), platform=d.platform, kind=d.device_kind,
                       process_index=int(d.process_index)) for d in active_devices()]


def host_cpu() -> str:
    """A short description of the host CPU (model name and core count)."""
    name = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    name = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{name} ({os.cpu_count()} cores)"


def versions() -> dict[str, str]:
    import jax
    import jaxlib

    return {"jax": jax.__version__, "jaxlib": jaxlib.__version__}
