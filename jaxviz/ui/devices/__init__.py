"""Shards on devices: the animated device view, drawn with Qt.

What is drawn comes from :mod:`jaxviz.views.devices` (Qt-free: the scene, its phases,
the layout and the display list of every frame); this package only paints it
and lets the user step through it.

Modules:
    view: :class:`DeviceView`, the widget the main window docks (canvas,
        controls, ``phaseChanged`` signal, exports).
    controls: the playback bar (step, play, speed, phase slider).
    overview: a big program's strip and folded group tree.
    painter: :class:`~jaxviz.ui.devices.painter.ItemPainter`, drawing items with QPainter.
    formats: the frame and animation export formats (registered on import).
    video: MP4 and WebM encoding of the animation (PyAV).
    export: headless rendering (:class:`~jaxviz.ui.devices.export.Renderer`,
        :func:`~jaxviz.ui.devices.export.save_gif`) for the CLI and the Export menu.

May import: :mod:`jaxviz.model`, :mod:`jaxviz.views.devices`, :mod:`jaxviz.ui.theme`,
:mod:`jaxviz.ui.exporters`, Qt. Never JAX.
"""

from __future__ import annotations

from typing import Any

from jaxviz.ui.devices import formats as _formats  # noqa: F401  (registers the formats)

__all__ = ["DeviceView"]


def __getattr__(name: str) -> Any:
    # The widget loads on first use: the headless exporters need no QtWidgets.
    if name == "DeviceView":
        from jaxviz.ui.devices.view import DeviceView

        return DeviceView
    raise AttributeError(name)
