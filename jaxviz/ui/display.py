"""Whether a window can open here, and what Qt is told before it opens one: what ``jaxviz``
and ``jaxviz present`` do before they start Qt (no Qt imported: it runs before the
application exists)."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, MutableMapping

#: What a window's process tells Qt through its environment before the application starts
#: (:func:`prepare_qt`; a value the user set is kept).
#:
#: ``QT_NO_GUI_THREADPOOL``: Qt's raster engine hands a large fill or a smooth image scaling
#: to a thread pool of its own, in pieces, and waits until every piece is done. On a
#: machine whose other cores run JAX (the engine tracing what was just opened, a timing
#: run) a piece's thread waits for a core, and so does the GUI thread, holding its turn of
#: the event loop: a paint of 2 ms of the GUI thread's own time took 32 ms on the clock.
#: Done on the GUI thread alone, nothing waits. ``benchmarks/bench_gui.py`` on a 2-core
#: machine, two runs each, pool on/off: the longest stall while stepping data_parallel
#: 17.1 and 19.7 ms / 12.8 and 9.8 ms (the heat maps are smooth-scaled images).
QT_ENVIRONMENT = {"QT_NO_GUI_THREADPOOL": "1"}


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


def prepare_qt(env: MutableMapping[str, str] | None = None) -> None:
    """Tell Qt :data:`QT_ENVIRONMENT` (before the application starts; what is set stays)."""
    if env is None:
        env = os.environ
    for name, value in QT_ENVIRONMENT.items():
        env.setdefault(name, value)
