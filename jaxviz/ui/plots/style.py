"""Themes, colours and type sizes of the timing plots.

Colours come from the Okabe-Ito palette (safe for the common colour-vision
deficiencies) and mean the same thing in every plot: **blue** is the moment a
call returned (dispatch), **vermillion/orange** the moment its result was
ready (completion), **green** a device. The first-call stages have their own
four colours. Type sizes scale with the image height, so a 1920x1080 export
is readable from the back of a lecture hall.
"""

from __future__ import annotations

from dataclasses import dataclass, field

#: The Okabe-Ito palette.
OKABE_ITO = {
    "black": "#000000", "orange": "#E69F00", "sky_blue": "#56B4E9",
    "bluish_green": "#009E73", "yellow": "#F0E442", "blue": "#0072B2",
    "vermillion": "#D55E00", "reddish_purple": "#CC79A7",
}

#: Marker symbols of the series (pyqtgraph names) and the glyph the legend shows.
SYMBOLS = {"dispatch": ("t", "▼"), "ready": ("o", "●"), "device": ("d", "◆"),
           "call": ("s", "■")}

#: Symbols distinguishing variants when several share a plot (sweep).
VARIANT_SYMBOLS = [("o", "●"), ("s", "■"), ("d", "◆"), ("t1", "▲"), ("star", "★"),
                   ("p", "⬟")]


@dataclass(frozen=True)
class Theme:
    """Colours of one theme."""

    name: str
    background: str
    foreground: str
    muted: str
    grid: str
    connector: str
    dispatch: str
    ready: str
    device: str
    device_alt: str
    phases: dict[str, str] = field(default_factory=dict)


LIGHT = Theme(
    name="light", background="#FFFFFF", foreground="#111111", muted="#555555",
    grid="#D0D0D0", connector="#9A9A9A",
    dispatch=OKABE_ITO["blue"], ready=OKABE_ITO["vermillion"],
    device=OKABE_ITO["bluish_green"], device_alt="#7FCEB9",
    phases={"trace": OKABE_ITO["reddish_purple"], "lower": OKABE_ITO["yellow"],
            "compile": OKABE_ITO["bluish_green"], "execute": OKABE_ITO["vermillion"]},
)

DARK = Theme(
    name="dark", background="#161616", foreground="#F0F0F0", muted="#B4B4B4",
    grid="#3A3A3A", connector="#7A7A7A",
    dispatch=OKABE_ITO["sky_blue"], ready=OKABE_ITO["orange"],
    device=OKABE_ITO["bluish_green"], device_alt="#0B5E48",
    phases={"trace": OKABE_ITO["reddish_purple"], "lower": OKABE_ITO["yellow"],
            "compile": OKABE_ITO["bluish_green"], "execute": OKABE_ITO["orange"]},
)

THEMES = {"light": LIGHT, "dark": DARK}


def theme(name: str) -> Theme:
    """A theme by name.

    Raises:
        ValueError: naming the themes that exist.
    """
    try:
        return THEMES[name]
    except KeyError:
        raise ValueError(f"unknown theme {name!r}; choose from {', '.join(THEMES)}") from None


@dataclass(frozen=True)
class Style:
    """A theme plus the type and line sizes for one output size.

    ``base_px`` is the body text size in pixels; every other size derives
    from it.
    """

    theme: Theme = LIGHT
    base_px: float = 14.0

    @classmethod
    def for_size(cls, width: int, height: int, theme_name: str = "light") -> Style:
        """Sizes for a ``width`` x ``height`` image (30 px text at 1920x1080)."""
        base = max(10.0, min(height / 36.0, width / 58.0))
        return cls(theme=theme(theme_name), base_px=base)

    @classmethod
    def screen(cls, theme_name: str = "light") -> Style:
        """Sizes for an on-screen view."""
        return cls(theme=theme(theme_name), base_px=14.0)

    def px(self, factor: float) -> int:
        return max(8, round(self.base_px * factor))

    @property
    def title_px(self) -> int:
        return self.px(1.3)

    @property
    def label_px(self) -> int:
        return self.px(1.0)

    @property
    def tick_px(self) -> int:
        return self.px(0.85)

    @property
    def legend_px(self) -> int:
        return self.px(0.9)

    @property
    def caption_px(self) -> int:
        return self.px(0.9)

    @property
    def footer_px(self) -> int:
        return self.px(0.6)

    @property
    def line_px(self) -> float:
        return max(2.0, self.base_px / 7.0)

    @property
    def marker_px(self) -> int:
        return max(8, round(self.base_px * 0.6))

    @property
    def small_marker_px(self) -> int:
        return max(5, round(self.base_px * 0.32))
