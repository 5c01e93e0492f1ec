"""Where the main window goes on a screen, and the layout it starts with (no Qt).

Everything here is in Qt's *logical* pixels, the units of
``QScreen.availableGeometry()``: a 2560x1440 screen shown at a scale of 2
(``QT_SCALE_FACTOR=2``, or a desktop's 200 %) is a 1280x720 screen to the
window, with everything in it twice as large, and gets the same layout as a
1280x720 projector. :func:`logical` does that division, as Qt does.

* :func:`plan_window` -- the first window on a screen: its frame, whether it
  starts maximized, and the docks' sizes. A screen narrower than
  :data:`PROJECTOR_WIDTH` or lower than :data:`PROJECTOR_HEIGHT` gets the
  projector layout: the window fills the screen with the editor and two jaxpr
  panes side by side, the tool dock at a height the console and the device
  view can use, and the status bar on screen; the gallery and the arguments
  start hidden there (Ctrl+B shows them: two panes, whose headers need some
  400 pixels each, and the editor take a 1280-pixel screen's whole width).
* :func:`fit_frame` -- a window frame moved (and shrunk if need be) onto the
  screen it overlaps most: remembered geometry from a larger screen, or a
  projector plugged in or out while jaxviz runs.

Example:
    >>> plan = plan_window(Rect(0, 0, 1280, 720))
    >>> plan.projector, plan.maximized, plan.panes, plan.frame
    (True, True, 2, Rect(x=0, y=0, width=1280, height=720))
    >>> fit_frame(Rect(100, 80, 1602, 975), [Rect(0, 0, 1280, 720)])
    Rect(x=0, y=0, width=1280, height=720)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Rect:
    """A rectangle in logical pixels: its top-left corner and its size."""

    x: int
    y: int
    width: int
    height: int

    @property
    def right(self) -> int:
        """The first column past the rectangle."""
        return self.x + self.width

    @property
    def bottom(self) -> int:
        """The first row past the rectangle."""
        return self.y + self.height

    def contains(self, other: Rect) -> bool:
        """Whether ``other`` lies wholly inside this rectangle."""
        return (self.x <= other.x and self.y <= other.y
                and other.right <= self.right and other.bottom <= self.bottom)

    def overlap(self, other: Rect) -> int:
        """The area the two rectangles share (0 when they do not meet)."""
        width = min(self.right, other.right) - max(self.x, other.x)
        height = min(self.bottom, other.bottom) - max(self.y, other.y)
        return max(0, width) * max(0, height)

    def centre_distance(self, other: Rect) -> float:
        """How far apart the two centres are."""
        dx = (self.x + self.width / 2) - (other.x + other.width / 2)
        dy = (self.y + self.height / 2) - (other.y + other.height / 2)
        return float((dx * dx + dy * dy) ** 0.5)


#: Narrower screens (logical pixels) get the projector layout.
PROJECTOR_WIDTH = 1400
#: Lower screens (logical pixels) get the projector layout.
PROJECTOR_HEIGHT = 800
#: The first window's frame on a larger screen, at least (logical pixels).
PREFERRED_FRAME = (1600, 950)
#: ... and at most this share of the screen, beyond the preferred size.
LARGE_SHARE = (0.8, 0.85)
#: Room left between a (not maximized) first window and the screen's edges.
SCREEN_MARGIN = 24
#: Jaxpr panes a wide window opens an example with; a projector-sized one gets two.
WIDE_PANES, NARROW_PANES = 4, 2


@dataclass(frozen=True)
class WindowPlan:
    """The first window on a screen.

    Attributes:
        frame: where the window's frame (title bar included) goes.
        maximized: start maximized (the projector layout).
        projector: the small-screen layout.
        side_panels: show the gallery and the arguments (else hidden: Ctrl+B).
        side_width: the width of their column.
        gallery_height: the gallery's height (the arguments have the rest).
        tools_height: the height of the Console · Devices · Timing dock.
        panes: how many jaxpr panes an example opens with.
        editor_share: the editor's share of the width beside the panes
            (None: as wide as its text needs).
    """

    frame: Rect
    maximized: bool
    projector: bool
    side_panels: bool
    side_width: int
    gallery_height: int
    tools_height: int
    panes: int
    editor_share: float | None


def logical(physical: Rect, scale: float) -> Rect:
    """A screen's geometry in logical pixels, as Qt reports it at a device pixel ratio."""
    return Rect(int(physical.x / scale), int(physical.y / scale),
                int(physical.width / scale), int(physical.height / scale))


def is_projector(width: int, height: int) -> bool:
    """Whether a screen (or window) this size, in logical pixels, gets the projector layout."""
    return width < PROJECTOR_WIDTH or height < PROJECTOR_HEIGHT


def panes_for(width: int, height: int) -> int:
    """How many jaxpr panes an example opens with in a window this size."""
    return NARROW_PANES if is_projector(width, height) else WIDE_PANES


def plan_window(available: Rect) -> WindowPlan:
    """The first window on a screen whose available geometry (logical pixels) is ``available``.

    A projector-sized screen gets a maximized window; a larger one a window of
    :data:`PREFERRED_FRAME`, grown with the screen up to :data:`LARGE_SHARE`
    of it, centred, never closer than :data:`SCREEN_MARGIN` to its edges.
    """
    w, h = available.width, available.height
    projector = is_projector(w, h)
    if projector:
        frame = available
    else:
        fw = min(w - 2 * SCREEN_MARGIN, max(PREFERRED_FRAME[0], round(LARGE_SHARE[0] * w)))
        fh = min(h - 2 * SCREEN_MARGIN, max(PREFERRED_FRAME[1], round(LARGE_SHARE[1] * h)))
        frame = Rect(available.x + (w - fw) // 2, available.y + (h - fh) // 2, fw, fh)
    side_width = max(200, min(250, round(0.18 * frame.width)))
    return WindowPlan(
        frame=frame, maximized=projector, projector=projector,
        side_panels=not projector, side_width=side_width,
        gallery_height=round(0.4 * frame.height),
        tools_height=round((0.24 if projector else 0.2) * frame.height),
        panes=panes_for(w, h), editor_share=0.4 if projector else None)


def screen_of(frame: Rect, screens: Sequence[Rect]) -> Rect:
    """The screen a window frame belongs on: the one it overlaps most, else the nearest.

    Raises:
        ValueError: no screens.
    """
    if not screens:
        raise ValueError("no screens to place the window on")
    best = max(screens, key=frame.overlap)
    if frame.overlap(best) > 0:
        return best
    return min(screens, key=frame.centre_distance)


def fit_frame(frame: Rect, screens: Sequence[Rect], minimum: tuple[int, int] = (0, 0)) -> Rect:
    """``frame`` moved onto the screen it belongs on (:func:`screen_of`), shrunk to fit it.

    A frame already inside a screen is returned as it is. ``minimum`` is the
    smallest frame the window can have: a screen smaller than that gets the
    frame at its top-left corner, as much of it on screen as there can be.

    Args:
        frame: the window's frame (title bar included), logical pixels.
        screens: every screen's available geometry.
        minimum: the window's smallest frame ``(width, height)``.
    """
    if any(screen.contains(frame) for screen in screens):
        return frame
    screen = screen_of(frame, screens)
    width = max(minimum[0], min(frame.width, screen.width))
    height = max(minimum[1], min(frame.height, screen.height))
    x = max(screen.x, min(frame.x, screen.right - width))
    y = max(screen.y, min(frame.y, screen.bottom - height))
    return Rect(x, y, width, height)
