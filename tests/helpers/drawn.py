"""What a frame of the device view draws, read off its display list (no Qt).

Helpers for tests that compare the drawing with the storyboard: they look at
the items' tags, rectangles and colours, and place a storyboard tile inside a
drawn array by its index ranges (computed here, not by the scene).
"""

from __future__ import annotations

from jaxviz.views import palette
from jaxviz.views.devices import geometry
from jaxviz.views.devices.frames import FrameBuilder
from jaxviz.views.devices.items import Box, Item, Path, Ring, Text

LIGHT = palette.theme("light").device_view


def render(scene, phase: int, t: float = 1.0, size=(1280, 720), expanded=frozenset()):
    """(layout, items) of frame (``phase``, ``t``) at ``size``."""
    w, h = size
    lay = geometry.canvas_geometry(scene, w, h, geometry.default_unit(w, h), frozenset(expanded))
    fb = FrameBuilder(scene, lay, LIGHT)
    return lay, fb.static(phase) + fb.dynamic(phase, t)


def phase_of(scene, kind: str) -> int:
    return [p.kind for p in scene.phases].index(kind)


def all_groups(scene) -> frozenset[str]:
    return frozenset(scene.folds("input")) | frozenset(scene.folds("output"))


def tiles_of(items: list[Item], role: str, name: str) -> list[Box]:
    prefix = f"tile {role}:{name} "
    return [it for it in items if isinstance(it, Box) and it.tag.startswith(prefix)]


def rings_of(items: list[Item], box: Box) -> list[Ring]:
    return [it for it in items if isinstance(it, Ring) and it.tag == box.tag]


def texts_in(items: list[Item], rect) -> list[str]:
    """The texts whose rectangle lies inside ``rect``."""
    x, y, w, h = rect
    return [it.text for it in items if isinstance(it, Text)
            and it.rect[0] >= x - 0.5 and it.rect[1] >= y - 0.5
            and it.rect[0] + it.rect[2] <= x + w + 0.5 and it.rect[1] + it.rect[3] <= y + h + 0.5]


def links(items: list[Item]) -> set[tuple[int, int]]:
    """The ``(a, b)`` device pairs joined by a collective's links."""
    out = set()
    for it in items:
        if isinstance(it, Path) and it.tag.startswith("link "):
            a, b = it.tag[5:].split("->")
            out.add((int(a), int(b)))
    return out


def centre(rect) -> tuple[float, float]:
    x, y, w, h = rect
    return x + w / 2, y + h / 2


def tile_under(array, place_rect, point):
    """The storyboard tile of a rank-1 or rank-2 array drawn at ``point`` of ``place_rect``.

    Rank 1 is drawn as a column (axis 0 down), rank 2 as rows x columns.
    """
    x, y, w, h = place_rect
    px, py = point
    row = (py - y) / h * array.shape[0]
    col = (px - x) / w * array.shape[1] if len(array.shape) == 2 else None
    for tile in array.tiles:
        (r0, r1) = tile.index[0]
        if not r0 <= row < r1:
            continue
        if col is not None and not tile.index[1][0] <= col < tile.index[1][1]:
            continue
        return tile
    raise AssertionError(f"no tile of {array.name} at {point}")
