"""The window state's change callbacks as Qt signals: the thin Qt side of
:class:`~jaxviz.views.window.window_state.WindowState`.

Widgets connect to these signals rather than to the state's callbacks, so a
connection ends with its receiver (Qt disconnects a deleted QObject) and can
be queued across threads like any Qt connection. Each signal carries the
field's new value.

Example:
    >>> binding = StateBinding(WindowState())                      # doctest: +SKIP
    >>> binding.functionChanged.connect(print)                      # doctest: +SKIP
    >>> binding.state.function = "f"                                # prints f  # doctest: +SKIP
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from jaxviz.views.window.window_state import WindowState


class StateBinding(QObject):
    """One Qt signal per field of a :class:`WindowState`, emitted after the field changed."""

    sourceChanged = Signal(str)
    filenameChanged = Signal(str)
    functionChanged = Signal(str)
    settingsChanged = Signal(object)
    visibleVariantsChanged = Signal(list)
    paneLayoutChanged = Signal(str)
    focusedVariantChanged = Signal(object)
    devicesChanged = Signal(int)
    documentChanged = Signal(int)
    paneViewsChanged = Signal(dict)
    devicePhaseChanged = Signal(int)
    timingOfChanged = Signal(str)
    zoomChanged = Signal(int)
    comparedChanged = Signal(object)
    twoPanesChanged = Signal(object)
    maximizedChanged = Signal(str)
    resultChanged = Signal(object)
    detailsChanged = Signal(object)

    #: state field -> the name of its signal here.
    SIGNALS = {
        "source": "sourceChanged", "filename": "filenameChanged", "function": "functionChanged",
        "settings": "settingsChanged", "visible_variants": "visibleVariantsChanged",
        "pane_layout": "paneLayoutChanged", "focused_variant": "focusedVariantChanged",
        "devices": "devicesChanged", "compared": "comparedChanged",
        "two_panes": "twoPanesChanged", "maximized": "maximizedChanged",
        "document": "documentChanged",
        "pane_views": "paneViewsChanged", "device_phase": "devicePhaseChanged",
        "timing_of": "timingOfChanged", "zoom": "zoomChanged",
        "result": "resultChanged", "details": "detailsChanged",
    }

    def __init__(self, state: WindowState, parent: QObject | None = None):
        super().__init__(parent)
        self.state = state
        for event in state.events:
            signal = getattr(self, self.SIGNALS[event.name])
            event.connect(signal.emit)
