"""Running the ``jaxviz`` command as a user does: a subprocess per call (``jaxviz``,
``run_animate``) and the environment of a fresh interpreter (``fresh_env``)."""

from __future__ import annotations

import os
import subprocess
import sys


def jaxviz(*args: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "jaxviz", *args], capture_output=True,
                          text=True, timeout=240, cwd=cwd)


def run_animate(*args: str, cwd) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.pop("DISPLAY", None)
    env.pop("WAYLAND_DISPLAY", None)
    env.pop("QT_QPA_PLATFORM", None)  # the command must choose offscreen itself
    return subprocess.run([sys.executable, "-m", "jaxviz", "animate", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


def fresh_env() -> dict[str, str]:
    """The environment without anything that would set up JAX's devices for the code."""
    return {k: v for k, v in os.environ.items()
            if not k.startswith(("JAX_", "XLA_")) and k != "PYTHONPATH"}
