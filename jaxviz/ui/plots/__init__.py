"""The timing plots: one implementation for ``jaxviz time`` and the GUI timing view.

Never imports JAX: the plots read :class:`~jaxviz.model.timing.TimingRun`
records only. Each plot kind is a :class:`~jaxviz.ui.plots.base.TimingFigure`
subclass listed in :data:`FIGURES`; a figure owns a pyqtgraph
``GraphicsLayout`` (title, plots, legend, caption, footer) and redraws itself
from a run with :meth:`~jaxviz.ui.plots.base.TimingFigure.update`.

Live, in a view::

    figure = FIGURES["dispatch_vs_complete"](Style.screen("dark"), show_caption=False)
    graphics_view.setCentralItem(figure.layout)
    run = TimingRun(request=request)
    def on_record(record):          # for every streamed record
        run.add(record)
        figure.update(run)          # (throttle to ~10 Hz for long runs)
        caption_label.setText(figure.caption())

Headless::

    export_plots(run, "out/", size=(1920, 1080), theme="light")   # PNG + SVG of each kind
    render_png("timeline", run, "timeline.png")
    image = render_image("variants", run, (1280, 720))           # QImage, e.g. clipboard
"""

from __future__ import annotations

from pathlib import Path

from jaxviz.model.timing import TimingRun
from jaxviz.model.timing_stats import available_plots
from jaxviz.ui.plots.base import TimingFigure
from jaxviz.ui.plots.dispatch import DispatchFigure
from jaxviz.ui.plots.render import (
    DEFAULT_SIZE, build_figure, ensure_app, figure_image, figure_svg, render_image, render_png,
    render_svg,
)
from jaxviz.ui.plots.style import DARK, LIGHT, OKABE_ITO, THEMES, Style, Theme
from jaxviz.ui.plots.sweep import SweepFigure
from jaxviz.ui.plots.timeline import TimelineFigure
from jaxviz.ui.plots.variants import VariantsFigure

#: Every timing plot, by the name its files get.
FIGURES: dict[str, type[TimingFigure]] = {
    "dispatch_vs_complete": DispatchFigure,
    "timeline": TimelineFigure,
    "variants": VariantsFigure,
    "sweep": SweepFigure,
}


def available(run: TimingRun) -> list[str]:
    """The plot kinds ``run`` has data for (the sweep only when one was measured)."""
    return available_plots(run)


def export_plots(run: TimingRun, out_dir: str | Path, size: tuple[int, int] = DEFAULT_SIZE,
                 theme: str = "light", kinds: list[str] | None = None,
                 formats: tuple[str, ...] = ("png", "svg")) -> list[Path]:
    """Write ``KIND.png`` and ``KIND.svg`` for each plot kind into ``out_dir``.

    Raises:
        OSError: a file could not be written (files written before stay).
    """
    out = Path(out_dir)
    written = []
    for kind in kinds if kinds is not None else available(run):
        figure = build_figure(kind, run, size, theme)
        if "png" in formats:
            path = out / f"{kind}.png"
            if not figure_image(figure, size).save(str(path), "PNG"):
                raise OSError(f"could not write {path}")
            written.append(path)
        if "svg" in formats:
            written.append(figure_svg(figure, out / f"{kind}.svg", size))
    return written


__all__ = [
    "DARK", "DEFAULT_SIZE", "FIGURES", "LIGHT", "OKABE_ITO", "THEMES", "DispatchFigure",
    "Style", "SweepFigure", "Theme", "TimelineFigure", "TimingFigure", "VariantsFigure",
    "available", "build_figure", "ensure_app", "export_plots", "figure_image", "figure_svg",
    "render_image", "render_png", "render_svg",
]
