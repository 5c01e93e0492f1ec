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

    render_png("timeline", run, "timeline.png")
    image = render_image("variants", run, (1280, 720))           # QImage, e.g. clipboard

The vector formats (SVG, PDF) and every plot in every format at once:
:mod:`jaxviz.ui.exporters` (:func:`~jaxviz.ui.exporters.write_plots`).
"""

from jaxviz.ui.plots.base import DARK, LIGHT, SYMBOLS, Style, TimingFigure
from jaxviz.ui.plots.dispatch import DispatchFigure
from jaxviz.ui.plots.render import (
    DEFAULT_SIZE,
    FIGURES,
    build_figure,
    ensure_app,
    figure_image,
    paint_figure,
    render_image,
    render_png,
)
from jaxviz.ui.plots.sweep import SweepFigure
from jaxviz.ui.plots.timeline import TimelineFigure
from jaxviz.ui.plots.variants import VariantsFigure

__all__ = [
    "DARK", "DEFAULT_SIZE", "FIGURES", "LIGHT", "SYMBOLS", "DispatchFigure", "Style",
    "SweepFigure", "TimelineFigure", "TimingFigure", "VariantsFigure", "build_figure",
    "ensure_app", "figure_image", "paint_figure", "render_image", "render_png",
]
