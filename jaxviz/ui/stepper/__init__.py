"""Step mode's widgets: a jaxpr stepped with real values, on the host or on every device.

Modules:
    values_panel: :class:`ValuesPanel`, the Values tab (controls, the step's
        heading and notes, one column of values per lane, the colour bar); the
        columns are refilled one per turn of the event loop, from widgets made
        ahead in idle turns.
    columns: one lane (host or device) as a column of values.
    cells: one value as numbers, a heat map (a painted image) or a summary
        with its histogram.
    colour_bar: the step's shared colour scale beside its heat maps, painted.
    controller: :class:`StepController`, step mode itself: the engine request
        off the GUI thread, the cursor, and the "current step" it announces.

What is shown is computed Qt-free: :mod:`jaxviz.views.stepper.panel` (the panel's
model) and :mod:`jaxviz.views.stepper.cursor` (the moves).

May import: :mod:`jaxviz.model`, :mod:`jaxviz.ui.theme`, :mod:`jaxviz.ui.qt_engine`,
Qt and NumPy (pyqtgraph's colour files are read, pyqtgraph is not imported:
:mod:`jaxviz.ui.stepper.colour_maps`). Never JAX.
"""

from __future__ import annotations

from typing import Any

__all__ = ["StepController", "ValuesPanel"]


def __getattr__(name: str) -> Any:
    # Loaded on first use: NumPy is not imported while the window starts.
    if name == "ValuesPanel":
        from jaxviz.ui.stepper.values_panel import ValuesPanel

        return ValuesPanel
    if name == "StepController":
        from jaxviz.ui.stepper.controller import StepController

        return StepController
    raise AttributeError(name)
