"""Every timing plot kind, by the name its files get (``dispatch_vs_complete.png``, ...)."""

from __future__ import annotations

from jaxviz.ui.plots.base import TimingFigure
from jaxviz.ui.plots.dispatch import DispatchFigure
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
