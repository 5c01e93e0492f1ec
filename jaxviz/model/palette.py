"""Device colours and the light/dark themes of the device view (no Qt).

Up to eight devices get the Okabe-Ito palette (distinguishable with the
common colour-vision deficiencies and on a washed-out projector), with its
black swapped for a wine red so it stays visible on a dark background. More
devices get a structured scheme in the perceptual OKLCH space: the hue follows
the mesh row and the lightness the mesh column, so a colour also says *where*
in the mesh a device sits (a 16 x 16 mesh cannot have 256 nameable colours).

Colours are ``"#rrggbb"`` strings throughout.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

#: Okabe & Ito (2008), black replaced by Tol's wine (#882255).
OKABE_ITO = ("#E69F00", "#56B4E9", "#009E73", "#F0E442",
             "#0072B2", "#D55E00", "#CC79A7", "#882255")


@dataclass(frozen=True)
class Theme:
    """The non-device colours of one theme."""

    name: str
    bg: str          # canvas
    fg: str          # main text
    muted: str       # secondary text, axis labels
    panel: str       # device box body
    frame: str       # outlines of device boxes and process frames
    neutral: str     # an array on the host before it is split
    empty: str       # a mini-map cell a device does not hold
    grid: str        # element grid lines inside tiles
    banner_bg: str   # "simulated devices" banner
    banner_fg: str
    caption_bg: str
    accent: str      # active phase, progress bars, collective links


THEMES = {
    "light": Theme("light", bg="#FFFFFF", fg="#1B1F24", muted="#55606C", panel="#F3F5F8",
                   frame="#A9B2BD", neutral="#BFC6CF", empty="#FFFFFF", grid="#7D8794",
                   banner_bg="#FFF0BF", banner_fg="#503C00", caption_bg="#EDF1F6",
                   accent="#1F5FCC"),
    "dark": Theme("dark", bg="#14171C", fg="#F1F4F7", muted="#A7B0BB", panel="#20262E",
                  frame="#56606D", neutral="#68727F", empty="#14171C", grid="#9AA4B0",
                  banner_bg="#4D3D00", banner_fg="#FFE49A", caption_bg="#1C2229",
                  accent="#6CB0FF"),
}


def theme(name: str) -> Theme:
    """The theme called ``name`` (``light`` or ``dark``).

    Raises:
        ValueError: naming the themes that exist.
    """
    try:
        return THEMES[name]
    except KeyError:
        raise ValueError(f"unknown theme {name!r}; choose from {', '.join(THEMES)}") from None


def device_colours(rows: int, cols: int, count: int) -> list[str]:
    """Colours for ``count`` devices laid out row-major on a ``rows x cols`` grid.

    Args:
        rows, cols: the grid the devices are drawn on (mesh rows and columns).
        count: how many devices (``<= rows * cols``), in mesh order.

    Returns:
        One ``#rrggbb`` colour per device, in the same order.

    Example:
        >>> device_colours(8, 1, 8)[:2]
        ['#E69F00', '#56B4E9']
    """
    if count <= len(OKABE_ITO):
        return list(OKABE_ITO[:count])
    out = []
    for k in range(count):
        r, c = divmod(k, cols) if cols > 0 else (k, 0)
        out.append(structured_colour(r, rows, c, cols))
    return out


def structured_colour(row: int, rows: int, col: int, cols: int) -> str:
    """Hue by ``row`` of ``rows``, lightness by ``col`` of ``cols`` (OKLCH)."""
    hue = 35.0 + 360.0 * row / max(rows, 1)
    if cols > 1:
        lightness = 0.48 + 0.40 * col / (cols - 1)
    else:  # one column: alternate lightness so neighbouring hues differ more
        lightness = 0.62 if row % 2 == 0 else 0.80
    return oklch_hex(lightness, 0.14, hue)


def oklch_hex(lightness: float, chroma: float, hue_degrees: float) -> str:
    """An OKLCH colour as ``#rrggbb``, reducing chroma until it fits in sRGB."""
    while chroma > 0:
        rgb = _oklch_to_linear(lightness, chroma, hue_degrees)
        if all(-1e-4 <= v <= 1 + 1e-4 for v in rgb):
            break
        chroma -= 0.01
    else:
        rgb = _oklch_to_linear(lightness, 0.0, hue_degrees)
    return "#" + "".join(f"{round(255 * _encode(v)):02X}" for v in rgb)


def _oklch_to_linear(L: float, C: float, h: float) -> tuple[float, float, float]:
    a, b = C * math.cos(math.radians(h)), C * math.sin(math.radians(h))
    l_ = (L + 0.3963377774 * a + 0.2158037573 * b) ** 3
    m_ = (L - 0.1055613458 * a - 0.0638541728 * b) ** 3
    s_ = (L - 0.0894841775 * a - 1.2914855480 * b) ** 3
    return (4.0767416621 * l_ - 3.3077115913 * m_ + 0.2309699292 * s_,
            -1.2684380046 * l_ + 2.6097574011 * m_ - 0.3413193965 * s_,
            -0.0041960863 * l_ - 0.7034186147 * m_ + 1.7076147010 * s_)


def _encode(v: float) -> float:
    v = min(max(v, 0.0), 1.0)
    return 12.92 * v if v <= 0.0031308 else 1.055 * v ** (1 / 2.4) - 0.055


def rgb(colour: str) -> tuple[int, int, int]:
    """``"#rrggbb"`` as an ``(r, g, b)`` tuple of 0-255 ints."""
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


def luminance(colour: str) -> float:
    """Relative luminance (WCAG) of a colour, 0 (black) to 1 (white)."""
    def lin(c: int) -> float:
        c = c / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (lin(c) for c in rgb(colour))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def text_on(colour: str) -> str:
    """Black or white, whichever reads better on ``colour``."""
    return "#000000" if luminance(colour) > 0.22 else "#FFFFFF"


def mix(a: str, b: str, t: float) -> str:
    """Linear blend from colour ``a`` (t=0) to ``b`` (t=1)."""
    t = min(max(t, 0.0), 1.0)
    ca, cb = rgb(a), rgb(b)
    return "#" + "".join(f"{round(x + (y - x) * t):02X}" for x, y in zip(ca, cb))
