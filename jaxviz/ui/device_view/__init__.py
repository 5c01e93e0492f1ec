"""Shards on devices: the animated device view, driven by the layout JAX chose.

The scene model (:mod:`.scene`, :mod:`.tiles`, :mod:`.program`, :mod:`.phases`,
:mod:`.geometry`, :mod:`.frames`, :mod:`.motion`, :mod:`.palette`) is plain
Python with no Qt, testable on its own; :mod:`.painter`, :mod:`.export` and
:mod:`.view` draw it with Qt. Nothing here imports JAX: results come from the
engine as :class:`~jaxviz.model.TraceResult` records.

Public surface:
    DeviceView: the widget (canvas, controls, phaseChanged signal, exports).
    build_scene: a variant of a result as a Qt-free scene with its phases.
    Renderer, save_gif: headless rendering of frames and animations.
"""

from jaxviz.ui.device_view.phases import Phase
from jaxviz.ui.device_view.scene import Scene, build_scene

__all__ = ["DeviceView", "Phase", "Renderer", "Scene", "build_scene", "save_gif"]


def __getattr__(name: str):
    # The Qt parts load on first use, so the scene model imports without Qt.
    if name == "DeviceView":
        from jaxviz.ui.device_view.view import DeviceView

        return DeviceView
    if name in ("Renderer", "save_gif"):
        from jaxviz.ui.device_view import export

        return getattr(export, name)
    raise AttributeError(name)
