"""Image sizes typed as ``WIDTHxHEIGHT`` (``--size 1920x1080``, the Export menus).

One parser, with the range each use can honestly render:

* :data:`PLOT_SIZES` -- timing plots (``jaxviz time``, the timing view's
  exports): 200x150 to 10000x10000 pixels, where pyqtgraph's axes and
  legends still fit;
* :data:`ANIMATION_SIZES` -- device-view frames and GIFs (``jaxviz
  animate``, the device view's exports): 160x120 to 8192x8192, the largest
  image every Qt paint device and GIF reader handles.

Example:
    >>> parse_size("1280 × 720", PLOT_SIZES)
    (1280, 720)
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class SizeRange:
    """The smallest and largest ``(width, height)`` a kind of image may have."""

    minimum: tuple[int, int]
    maximum: tuple[int, int]
    example: str

    def __str__(self) -> str:
        (w0, h0), (w1, h1) = self.minimum, self.maximum
        return f"{w0}x{h0} to {w1}x{h1}"


PLOT_SIZES = SizeRange((200, 150), (10000, 10000), "1920x1080")
ANIMATION_SIZES = SizeRange((160, 120), (8192, 8192), "1280x720")

_SIZE = re.compile(r"\s*(\d+)\s*[xX×]\s*(\d+)\s*")


def parse_size(text: str, allowed: SizeRange = PLOT_SIZES, name: str = "size") -> tuple[int, int]:
    """``"1920x1080"`` (also ``1920 × 1080``) as ``(1920, 1080)``.

    Args:
        text: what was typed.
        allowed: the range this kind of image may have.
        name: what the message calls the value (e.g. ``--size``).

    Raises:
        ValueError: naming ``name``, what was typed, and what is expected.
    """
    m = _SIZE.fullmatch(text)
    if not m:
        raise ValueError(f"{name} {text!r} is not WIDTHxHEIGHT in pixels, e.g. {allowed.example}")
    w, h = int(m[1]), int(m[2])
    (w0, h0), (w1, h1) = allowed.minimum, allowed.maximum
    if not (w0 <= w <= w1 and h0 <= h <= h1):
        raise ValueError(f"{name} {text!r} is out of range: use {allowed} pixels")
    return w, h
