"""``jaxviz.timing``: dispatch versus completion, measured in the engine, plotted inline.

The same request, measurement and plots as ``jaxviz time`` (and the window's
Timing tab): when each call returned and when its result was ready, the
pipelined timeline with one lane per device, the variants side by side
(first call's trace/lower/compile/execute apart from the steady state), and the
size sweep when one is asked for. Each plot comes with its caption, computed
from the data.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from jaxviz.model import files
from jaxviz.notebook import render
from jaxviz.notebook.requests import build_request
from jaxviz.notebook.shipping import ship
from jaxviz.notebook.view import DEFAULT_DEVICES, JaxvizError

#: The plots' inline size (pixels).
PLOT_SIZE = (960, 540)
#: Variants whose arguments are the batch (as ``jax.vmap(f)`` takes them).
_BATCHED = ("loop", "vmap", "jit-vmap", "pmap", "sharded", "shard_map")


class Timing:
    """A measured run (``.run``, a :class:`~jaxviz.model.timing.TimingRun`), shown inline
    as the four plots of ``jaxviz time`` with their captions and a table of medians."""

    def __init__(self, run: Any, size: tuple[int, int] = PLOT_SIZE, theme: str = "light"):
        self.run = run
        self.size = size
        self.theme = theme

    @property
    def plots(self) -> list[str]:
        """The plots the run has data for (``dispatch_vs_complete``, ``timeline``, ...)."""
        from jaxviz.views.timing.stats import available_plots

        return available_plots(self.run)

    def summary(self) -> str:
        """The table ``jaxviz time`` prints: steady-state medians, first calls, captions."""
        from jaxviz.cli.cmd_time import summary

        return summary(self.run)

    def png(self, kind: str) -> bytes:
        """One plot as PNG bytes."""
        from jaxviz.ui.exporters import find
        render.qt_app()
        with tempfile.TemporaryDirectory(prefix="jaxviz-nb-") as tmp:
            path = Path(tmp) / f"{kind}.png"
            find("plot", "png").write(self.run, path, kind=kind, size=self.size,
                                      theme=self.theme)
            return files.read_bytes(path, limit=files.RECORDING_BYTES)

    def save(self, path: str | Path) -> list[Path]:
        """Write as ``jaxviz time --out`` does: a folder gets the data (CSV, JSON, Chrome
        trace) and every plot as PNG, SVG and PDF; ``FILE.pdf`` a page per plot;
        ``FILE.png``/``FILE.svg`` an image per plot."""
        render.qt_app()
        out = Path(path)
        if out.suffix.lower() in (".pdf", ".png", ".svg"):
            from jaxviz.ui.exporters import write_plot_file

            return write_plot_file(self.run, out, self.size, self.theme)
        from jaxviz.ui.exporters import write_plots
        from jaxviz.views.exports import write_data

        out.mkdir(parents=True, exist_ok=True)
        return write_data(self.run, out) + write_plots(self.run, out, self.size, self.theme)

    def _repr_html_(self) -> str:
        from jaxviz.views.timing.stats import caption, header_line

        parts = [f"<div class='jaxviz-timing'><p><b>{render.esc(header_line(self.run))}</b></p>"]
        for kind in self.plots:
            parts.append(f"<figure style='margin:6px 0'><img alt='{kind}' "
                         f"title='{render.esc(caption(kind, self.run))}' style='max-width:100%' "
                         f"src='{render.data_uri('image/png', self.png(kind))}'/></figure>")
        parts.append(f"<details><summary>numbers</summary><pre>{render.esc(self.summary())}"
                     "</pre></details></div>")
        return "".join(parts)

    def __repr__(self) -> str:
        return self.summary()


def timing(f: Any, args: tuple[Any, ...], variants: str | list[str] | tuple[str, ...],
           runs: int = 20, warmup: int = 3, pipeline: int = 8, sweep: str | None = None,
           sweep_args: str | None = None, async_dispatch: bool = True,
           devices: int = DEFAULT_DEVICES, timeout: float = 300.0,
           size: tuple[int, int] = PLOT_SIZE, theme: str = "light", **options: Any) -> Timing:
    """Measure ``f(*args)`` in the engine under each timing variant.

    Args:
        f, args: as :func:`jaxviz.view` (only their shapes and dtypes are used: the
            engine measures on arrays it makes); for ``vmap``, ``jit-vmap``, ``loop``,
            ``pmap``, ``sharded`` and ``shard_map`` the arguments are the batch.
        variants: timing variants, a list or ``"numpy,jit,pmap"``: ``numpy``,
            ``op-by-op``, ``jit``, ``jit-sync``, ``loop``, ``vmap``, ``jit-vmap``,
            ``pmap``, ``sharded``, ``shard_map``, ``as_written``.
        runs, warmup, pipeline: measured calls, unrecorded calls first, calls
            dispatched back to back.
        sweep, sweep_args: a size sweep (``"n=256,512"``, ``"f32[n,n], f32[n,n]"``).
        async_dispatch: CPU asynchronous dispatch on (JAX's default) or off.
        devices, timeout: the engine's device count; seconds for the whole run.
        **options: the trace settings (``in_axes``, ``mesh``, ``specs`` ...).

    Raises:
        JaxvizError: the run failed (the measured calls are kept in the message's run).
    """
    from jaxviz.cli.runner import EngineError, run_request
    from jaxviz.model.errors import format_error
    from jaxviz.model.timing import TimingRequest, TimingRun, normalize_variant, validate
    from jaxviz.notebook.view import check_numbers

    check_numbers(devices, timeout)
    names = [normalize_variant(v) for v in (variants.split(",") if isinstance(variants, str)
                                            else variants) if v.strip()]
    shipment = ship(f, args)
    # Timed by shape and dtype (the engine makes the values): the header then reads
    # matmul(f32[256,256], ...), and nothing large travels.
    shipment.args = shipment.abstract_args
    trace_variant = "vmap" if any(v in _BATCHED for v in names) else "plain"
    trace = build_request(shipment, [trace_variant], options, [])
    trace.variants = ["plain"]
    request = TimingRequest(trace=trace, variants=names, runs=runs, warmup=warmup,
                            pipeline=pipeline, sweep=sweep, sweep_args=sweep_args,
                            async_dispatch=async_dispatch)
    problems = validate(request)
    if problems:
        raise JaxvizError("\n".join(format_error(p, False) for p in problems))
    try:
        result = run_request(request, devices, timeout)
    except EngineError as exc:
        raise JaxvizError(format_error(exc.info, False)) from None
    if not isinstance(result, TimingRun):
        raise JaxvizError("the engine returned no timing run")
    if result.error is not None:
        raise JaxvizError(format_error(result.error, False))
    return Timing(result, size, theme)
