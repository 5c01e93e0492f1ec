"""Drawing primitives of the device view: a display list, no Qt.

A frame is a list of these items, drawn in order. Keeping them as plain data
lets tests and benchmarks inspect a frame without a display, and lets one
Qt painter draw the same frame on screen, into a PNG, an SVG or a GIF.
"""

from __future__ import annotations

from dataclasses import dataclass

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


Item = Box | Stripes | Grid | Text | Path
