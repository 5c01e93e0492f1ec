"""Drawing primitives of the device view: a display list, no Qt.

A frame is a list of these items, drawn in order. Keeping them as plain data
lets tests and benchmarks inspect a frame without a display, and lets one
Qt painter draw the same frame on screen, into a PNG, an SVG or a GIF.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

Rect = tuple[float, float, float, float]


@dataclass(slots=True)
class Box:
    """A filled and/or outlined rectangle."""

    rect: Rect
    fill: str | None
    stroke: str | None = None
    width: float = 1.0
    radius: float = 0.0
    alpha: float = 1.0
    dashed: bool = False
    #: What the box stands for, for tests and exports (``tile input:x 0``); "" if nothing.
    tag: str = ""


@dataclass(slots=True)
class Stripes:
    """A rectangle split into equal vertical stripes, one colour each (a shared tile)."""

    rect: Rect
    colours: list[str]
    stroke: str | None = None
    alpha: float = 1.0
    #: Stripes run along the longer side unless forced.
    horizontal: bool | None = None


@dataclass(slots=True)
class Ring:
    """A rectangle's border drawn as dashes cycling through colours.

    It marks a tile held whole by each of several devices: the tile is drawn
    once, with a uniform fill, and its holders' colours take turns around
    its edge, so it cannot be read as a split into coloured parts.
    """

    rect: Rect
    colours: list[str]
    width: float
    dash: float
    alpha: float = 1.0
    tag: str = ""


def ring_segments(ring: Ring) -> list[tuple[Rect, str]]:
    """The dashes of a ring as filled rectangles, clockwise from the top-left corner."""
    x, y, w, h = ring.rect
    t = min(ring.width, w / 2, h / 2)
    if t <= 0 or not ring.colours:
        return []
    edges = [  # (start x, start y, dx, dy, length): the band's outer edge, clockwise
        (x, y, 1.0, 0.0, w), (x + w, y, 0.0, 1.0, h),
        (x + w, y + h, -1.0, 0.0, w), (x, y + h, 0.0, -1.0, h)]
    out: list[tuple[Rect, str]] = []
    k = 0
    for sx, sy, dx, dy, length in edges:
        n = max(int(round(length / max(ring.dash, 1.0))), 1)
        step = length / n
        for j in range(n):
            a, b = j * step, (j + 1) * step
            if dx:
                x0, x1 = sorted((sx + dx * a, sx + dx * b))
                yy = sy if dx > 0 else sy - t
                out.append(((x0, yy, x1 - x0, t), ring.colours[k % len(ring.colours)]))
            else:
                y0, y1 = sorted((sy + dy * a, sy + dy * b))
                xx = sx - t if dy > 0 else sx
                out.append(((xx, y0, t, y1 - y0), ring.colours[k % len(ring.colours)]))
            k += 1
    return out


@dataclass(slots=True)
class Grid:
    """Thin element grid lines inside a rectangle (``rows`` x ``cols`` cells)."""

    rect: Rect
    rows: int
    cols: int
    colour: str
    alpha: float = 0.35


@dataclass(slots=True)
class Text:
    """Text in a rectangle.

    ``size`` is the pixel size; ``wrap`` wraps words (and shrinks the font
    down to 80% if the text would not fit); otherwise the text is elided.
    """

    rect: Rect
    text: str
    size: float
    colour: str
    align: str = "left"  # left | center | right
    bold: bool = False
    mono: bool = False
    wrap: bool = False
    valign: str = "center"  # center | top


@dataclass(slots=True)
class Path:
    """A polyline (curves are sampled), optionally with an arrow head at the end."""

    points: list[tuple[float, float]]
    colour: str
    width: float = 1.0
    alpha: float = 1.0
    arrow: bool = False
    tag: str = ""


Item = Box | Ring | Stripes | Grid | Text | Path

#: The least height, in text sizes, of the place of one line raised to the floor by
#: :func:`at_least` (a line in less room is left out).
LINE_ROOM = 0.75


def at_least(items: list[Item], px: float) -> list[Item]:
    """``items`` with no text smaller than ``px`` (0: as they are): a label that then
    does not fit its place across is elided (or, wrapped, cut at a word) when painted;
    one line whose place is not :data:`LINE_ROOM` of ``px`` high is left out (it would
    run into its neighbours) -- never drawn smaller than the text around the view."""
    if px <= 0:
        return items
    out: list[Item] = []
    for item in items:
        if isinstance(item, Text) and item.size < px:
            if not item.wrap and item.rect[3] < LINE_ROOM * px:
                continue
            item = replace(item, size=px)
        out.append(item)
    return out
