"""What the device view shows, as plain Python: no Qt, no JAX (mypy strict).

This package turns the storyboard of one variant of a
:class:`~jaxviz.model.TraceResult` (what every device holds and runs, read by
the core from the compiled program) into the animation a lecturer steps
through, down to the display list of every frame; the Qt side
(:mod:`jaxviz.ui.devices`) only paints those items. Nothing here reads
HLO or guesses a layout.

Modules, lowest first:
    tiles: each array as a grid of blocks, each block with the exact devices
        that hold it; the words for the three tile looks.
    scene: the records: :class:`Scene`, :class:`DeviceSlot`, :class:`Phase`
        (and its plain form for story.json), folded pytree groups.
    words: the captions' sentences, computed from storyboard steps.
    phases: the animation's phases, in program order.
    build: :func:`build_scene`, a result's variant as a :class:`Scene`.
    measure: rectangles and estimated text widths.
    boxes: one device's box (header, tiles, label, badge places).
    geometry: where everything sits on a canvas of a given size.
    items: the drawing items (boxes, rings, stripes, grids, text, paths).
    decor: header, column titles, mesh labels, legend, caption.
    motion: the moving parts of a phase at time ``t``.
    frames: :class:`~jaxviz.views.devices.frames.FrameBuilder`, every item of any frame.
    overview: the storyboard's step groups as rows over the phases (fold, find by name).
    strip: the whole program as one strip of marks (kind, bytes moved).

May import: :mod:`jaxviz.model` only (checked by import-linter contracts).
"""

from jaxviz.views.devices.build import build_scene
from jaxviz.views.devices.scene import Phase, Scene, empty_scene

__all__ = ["Phase", "Scene", "build_scene", "empty_scene"]
