"""The timing view: run, watch and export dispatch-versus-completion plots inside the app.

A lecturer presses Run and the class watches dispatch and completion times
arrive; the plots are :mod:`jaxviz.ui.plots`, the ones ``jaxviz time`` writes.
Never imports JAX: measurements run in the engine process.

Modules:
    options: what a run measures and what the view says about a run (no Qt).
    controls: the run controls (variants, repetitions, ..., Run, Stop, progress).
    runner: submits the timing request and folds streamed records into the run.
    plots_panel: the four plots in tabs, with captions and a hover read-out.
    page: one plot tab (plot, caption, hover read-out; scrolls rather than squashes).
    export: PNG/SVG/CSV/JSON/Chrome-trace exports and the export bar.
    widgets: the banner, the where-and-when line, full screen.
    view: :class:`TimingView`, the widget the main window docks.
"""

from jaxviz.ui.timing.view import TimingView

__all__ = ["TimingView"]
