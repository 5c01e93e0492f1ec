"""What the device view shows, as plain Python: no Qt, no JAX (mypy strict).

This package turns one variant of a :class:`~jaxviz.model.TraceResult` into
the animation a lecturer steps through, down to the display list of every
frame; the Qt side (:mod:`jaxviz.ui.device_view`) only paints those items.

Modules, lowest first:
    program: the per-device program: segments of equations and the
        collectives between them (from the jaxpr; from the compiled HLO where
        XLA's partitioner inserted them).
    tiles: each array as a grid of blocks, each block with the devices that
        hold it (from the real layout).
    scene: the records: :class:`Scene`, :class:`DeviceSlot`, :class:`Phase`.
    phases: the animation's phases and their captions.
    build: :func:`build_scene`, a result's variant as a :class:`Scene`.
    geometry: where everything sits on a canvas of a given size.
    items: the drawing items (boxes, stripes, grids, text, paths).
    motion: the moving parts of a phase at time ``t``.
    frames: :class:`~jaxviz.scene.frames.FrameBuilder`, every item of any frame.

May import: :mod:`jaxviz.model` only (checked by import-linter contracts).
"""

from jaxviz.scene.build import build_scene
from jaxviz.scene.scene import Phase, Scene, empty_scene

__all__ = ["Phase", "Scene", "build_scene", "empty_scene"]
