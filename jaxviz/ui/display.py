"""Whether a window can open here: the one check ``jaxviz`` and ``jaxviz present`` make
before they start Qt (no Qt imported: it runs before the application exists)."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping


def display_problem(env: Mapping[str, str] | None = None,
                    platform: str = sys.platform) -> str | None:
    """Why a window cannot open here, in one line; None when it can.

    On Linux and the BSDs a window needs ``DISPLAY`` (X11) or
    ``WAYLAND_DISPLAY``; ``QT_QPA_PLATFORM`` (e.g. ``offscreen``) is an
    explicit choice and always accepted. macOS and Windows always have a display.
    """
    if env is None:
        env = os.environ
    if not platform.startswith(("linux", "freebsd", "openbsd", "netbsd")):
        return None
    if env.get("DISPLAY") or env.get("WAYLAND_DISPLAY") or env.get("QT_QPA_PLATFORM"):
        return None
    return ("jaxviz: no display to open the window on (DISPLAY and WAYLAND_DISPLAY are unset); "
            "run `xvfb-run jaxviz`, or use the command-line subcommands "
            "(`jaxviz examples`, `jaxviz jaxpr example:convolve`; see `jaxviz --help`)")
