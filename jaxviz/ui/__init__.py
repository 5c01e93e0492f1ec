"""The Qt views (PySide6 + pyqtgraph): the GUI process. Never imports JAX.

Results come from the engine process as :mod:`jaxviz.model` records; what
the views draw is computed Qt-free in :mod:`jaxviz.model` and :mod:`jaxviz.views.devices`.

Rooms:
    app: the entry point (``jaxviz [TARGET]``): the window, shown before JAX loads.
    window: the main window, its menus, its state and the trace session.
    text: the editor and the read-only code views, with highlighting.
    panes: the jaxpr panes and the source linking.
    panels: gallery, arguments, editor panel, console, tool tabs.
    theme: fonts, the Qt palette, colours as QColor; the PySide6 start-up guard.
    device_view: the animated device view (paints :mod:`jaxviz.views.devices`).
    timing_view: the timing tab (run, watch, export).
    stepper: step mode's values panel (a jaxpr stepped with real values) and its controller.
    plots: the timing plots (pyqtgraph), shared with ``jaxviz time``.
    exporters: every export format, by name, for the CLI and the Export menus.
    vector: paint devices that write vector files (plain SVG 1.1, PDF).

May import: :mod:`jaxviz.model`, :mod:`jaxviz.views.devices`, the engine's client side,
Qt. Never JAX or :mod:`jaxviz.core` (import-linter contracts).

Importing this package first makes PySide6's per-import check cheap
(:mod:`jaxviz.ui.feature_check`: without it every module imported after Qt
stays in :mod:`linecache`, 17 MB in the window) and lets pyqtgraph's copies of
the Qt modules fill on use (:mod:`jaxviz.ui.pyqtgraph_mirror`: without it the
first ``import pyqtgraph`` creates every Qt class: 8 MB, about 170 ms).
"""

from jaxviz.ui import feature_check as _feature_check  # noqa: F401  (before any other import)
from jaxviz.ui import pyqtgraph_mirror as _pyqtgraph_mirror  # noqa: F401
