"""Every colour jaxviz draws with, as plain data (no Qt): one palette, two themes.

Colours are ``"#rrggbb"`` strings throughout; the Qt side turns them into
``QColor`` in one place (:mod:`jaxviz.ui.theme.style`). Each colour means one
thing wherever it appears:

* :data:`OKABE_ITO` (Okabe & Ito, 2008) is safe for the common colour-vision
  deficiencies and survives a washed-out projector. In the timing plots
  **blue** is the moment a call returned (dispatch), **vermillion/orange** the
  moment its result was ready (completion), **green** a device.
* Devices get :data:`DEVICE_COLOURS` (Okabe-Ito with its black swapped for
  Tol's wine, so it stays visible on a dark background) up to eight; more get
  a structured scheme in the perceptual OKLCH space: the hue follows the mesh
  row and the lightness the mesh column, so a colour also says *where* in the
  mesh a device sits (a 16 x 16 mesh cannot have 256 nameable colours).
* A :class:`Theme` (``light`` or ``dark``, from :func:`theme`) holds the
  device view's colours (:class:`DeviceViewColours`) and the timing plots'
  (:class:`PlotColours`).
* The window's colours: source-line link colours, the "what changed" marks,
  errors and banners, syntax colours by Pygments token name.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field

WHITE, BLACK = "#FFFFFF", "#000000"
#: The device view's (and the slides') text on light paper.
SLIDE_INK = "#1B1F24"
#: Quiet text beside a value (a cell's type, an equation's number), as the device view's.
MUTED_INK = "#55606C"

#: The Okabe-Ito palette, by colour name.
OKABE_ITO: dict[str, str] = {
    "black": BLACK, "orange": "#E69F00", "sky_blue": "#56B4E9",
    "bluish_green": "#009E73", "yellow": "#F0E442", "blue": "#0072B2",
    "vermillion": "#D55E00", "reddish_purple": "#CC79A7",
}
#: Tol's wine: stands in for Okabe-Ito's black among the device colours.
WINE = "#882255"
#: The first eight devices' colours: Okabe-Ito in this order, black replaced by wine.
DEVICE_COLOURS: tuple[str, ...] = tuple(OKABE_ITO[name] for name in (
    "orange", "sky_blue", "bluish_green", "yellow", "blue", "vermillion",
    "reddish_purple")) + (WINE,)


@dataclass(frozen=True)
class DeviceViewColours:
    """The device view's colours besides the devices' own."""

    bg: str          # canvas
    fg: str          # main text
    muted: str       # secondary text, axis labels
    panel: str       # device box body
    frame: str       # outlines of device boxes and process frames
    neutral: str     # an array on the host before it is split
    shared: str      # a tile held whole by several devices (their colours ring it)
    empty: str       # a mini-map cell a device does not hold
    grid: str        # element grid lines inside tiles
    caption_bg: str
    accent: str      # active phase, progress bars, collective links
    warning_bg: str  # a note that the variant differs (amber, as the pane header's)
    warning_fg: str


@dataclass(frozen=True)
class PlotColours:
    """The timing plots' colours: dispatch, completion, devices, first-call stages."""

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


@dataclass(frozen=True)
class Theme:
    """One theme: its name and the colours of each view."""

    name: str
    device_view: DeviceViewColours
    plots: PlotColours


THEMES: dict[str, Theme] = {
    "light": Theme(
        "light",
        DeviceViewColours(
            bg=WHITE, fg=SLIDE_INK, muted=MUTED_INK, panel="#F3F5F8", frame="#A9B2BD",
            neutral="#BFC6CF", shared="#FFF6DD", empty="#FFFFFF", grid="#7D8794",
            caption_bg="#EDF1F6", accent="#1F5FCC", warning_bg="#FFF3CD",
            warning_fg="#5C3C00"),
        PlotColours(
            background="#FFFFFF", foreground="#111111", muted="#555555", grid="#D0D0D0",
            connector="#9A9A9A", dispatch=OKABE_ITO["blue"], ready=OKABE_ITO["vermillion"],
            device=OKABE_ITO["bluish_green"], device_alt="#7FCEB9",
            phases={"trace": OKABE_ITO["reddish_purple"], "lower": OKABE_ITO["yellow"],
                    "compile": OKABE_ITO["bluish_green"], "execute": OKABE_ITO["vermillion"],
                    "first call": "#8C8C8C"})),
    "dark": Theme(
        "dark",
        DeviceViewColours(
            bg="#14171C", fg="#F1F4F7", muted="#A7B0BB", panel="#20262E", frame="#56606D",
            neutral="#68727F", shared="#2C3A4F", empty="#14171C", grid="#9AA4B0",
            caption_bg="#1C2229", accent="#6CB0FF", warning_bg="#3A2E06",
            warning_fg="#FFD97A"),
        PlotColours(
            background="#161616", foreground="#F0F0F0", muted="#B4B4B4", grid="#3A3A3A",
            connector="#7A7A7A", dispatch=OKABE_ITO["sky_blue"], ready=OKABE_ITO["orange"],
            device=OKABE_ITO["bluish_green"], device_alt="#0B5E48",
            phases={"trace": OKABE_ITO["reddish_purple"], "lower": OKABE_ITO["yellow"],
                    "compile": OKABE_ITO["bluish_green"], "execute": OKABE_ITO["orange"],
                    "first call": "#A6A6A6"})),
}


#: The projected (roofline) plots' lanes: never the measured plots' dispatch blue,
#: completion vermillion or device green, and always drawn hatched, so a projection
#: cannot be read as a measurement.
PROJECTED_LANES: dict[str, str] = {"compute": OKABE_ITO["orange"],
                                   "memory": OKABE_ITO["sky_blue"],
                                   "communication": OKABE_ITO["reddish_purple"]}
#: The what-if plot's variants (lines), by name; others take WINE.
WHAT_IF_VARIANTS: dict[str, str] = {"vmap": "#6E6E6E", "pmap": OKABE_ITO["blue"],
                                    "sharded": OKABE_ITO["vermillion"],
                                    "shard_map": OKABE_ITO["bluish_green"]}
#: The what-if plot's markers: communication-bound, out of HBM.
WHAT_IF_MARKS = {"comm": OKABE_ITO["reddish_purple"], "hbm": "#B00020"}


def theme(name: str) -> Theme:
    """The theme called ``name`` (``light`` or ``dark``).

    Raises:
        ValueError: naming the themes that exist.
    """
    try:
        return THEMES[name]
    except KeyError:
        raise ValueError(f"unknown theme {name!r}; choose from {', '.join(THEMES)}") from None


# --------------------------------------------------------------------------- #
# The window (light only: the window follows the Fusion light palette)
# --------------------------------------------------------------------------- #

#: Backgrounds shared by a source line and its equations (CIE L* >= 74, so dark text stays
#: readable). Chosen for colour-vision deficiencies: any two differ by CIEDE2000 >= 10 as
#: seen with normal vision and under protanopia, deuteranopia and tritanopia (Machado 2009
#: simulation; tests/views/test_link_colours.py). The earlier pastels' blue and purple
#: were 1.0 apart under deuteranopia.
LINK_COLOURS = ("#f0e9c2", "#86b8ff", "#aab8bd", "#cbb657", "#3eedf4", "#b9b79c", "#dff285",
                "#d5eee4")  # cream blue slate ochre cyan khaki lime mint
#: The same colours 14 L* darker: the hovered or selected source line and its equations
#: (as far apart from one another, by the same test).
LINK_STRONG = ("#c8c29c", "#5d93d7", "#859397", "#a39133", "#00c5cc", "#939278", "#b7ca60",
               "#aec7bd")
#: Background of the equations the device view's current phase is about.
PHASE_COLOUR = "#ffe08a"
#: The frame drawn around the active (hovered/selected) lines.
ACTIVE_OUTLINE = "#1f3a93"
#: The "what changed" marks of the jaxpr panes.
MARK_COLOURS = {
    "batched": "#d9731a",     # the equation gained the batch axis (vmap)
    "new": "#8e24aa",         # a primitive that only the batched version has
    "wrapper": "#1e6fd9",     # shard_map / sharded jit: the per-device program
    "collective": "#d62728",  # psum, all_gather, ppermute ... data moves
    "resharded": "#00897b",   # reshard / out_sharding: a type's sharding changes
}
#: The compare layout's colours (:mod:`jaxviz.views.compare.diff_layout`): a block's band and
#: tint, and a changed token's highlight, by what the change means. The batch axis
#: and added equations share the hues of the "batched" and "new" marks above.
DIFF_COLOURS = {
    "batch": MARK_COLOURS["batched"],  # a type gained (or lost) the batch axis
    "shapes": "#00838f",               # a type changed otherwise (per device, another axis)
    "params": "#2e7d32",               # a parameter or literal operand changed
    "added": MARK_COLOURS["new"],      # only the right side has it
    "removed": "#455a64",              # only the left side has it
    "same": "#9aa3ae",                 # paired, unchanged
    "printed": "#8a8f98",              # printed differently, not compared ({V:i})
}
#: How far toward white a band, a row's tint and a token's highlight are mixed.
DIFF_BAND_MIX, DIFF_TINT_MIX, DIFF_TOKEN_MIX = 0.55, 0.86, 0.55


def diff_colour(category: str, toward_white: float = 0.0) -> str:
    """A diff category's colour (:data:`DIFF_COLOURS`), mixed ``toward_white`` of the way
    to white: the one colour code of the window's compare layout, the slides and
    ``jaxviz diff``."""
    return mix(DIFF_COLOURS[category], WHITE, toward_white)


#: The hatching of the filler lines that keep the two sides aligned.
DIFF_FILLER = "#c9ced6"
ERROR_COLOUR = "#c62828"
ERROR_BACKGROUND = "#fde7e7"
BANNER_BACKGROUND = "#fff3cd"
GUTTER_BACKGROUND = "#f3f4f6"
GUTTER_TEXT = "#6b7280"

# The window's chrome: its Qt palette, style sheets, banners and bars.
#: The window's text.
INK = "#111827"
#: Secondary text: a pane's call line, legends.
SECONDARY_INK = "#374151"
#: Small print: a pane's note, a slide's figure caption.
NOTE_INK = "#4b5563"
#: Text that cannot be used now.
DISABLED_INK = "#9ca3af"
#: The window's Qt palette (Fusion), by ``QPalette.ColorRole`` name.
WINDOW_PALETTE = {
    "Window": "#eef0f3", "WindowText": INK, "Base": WHITE, "AlternateBase": "#f6f7f9",
    "Text": INK, "Button": "#e5e7eb", "ButtonText": INK, "Highlight": "#2563eb",
    "HighlightedText": WHITE, "ToolTipBase": "#fffbe6", "ToolTipText": INK,
    "PlaceholderText": GUTTER_TEXT,
}
PANE_HEADER, PANE_HEADER_LINE, DOCK_TITLE = "#e3e7ee", "#c8ced8", "#dde2ea"
#: A field at fault: its frame is :data:`ERROR_COLOUR`.
FIELD_ERROR_BACKGROUND, FIELD_ERROR_TEXT = "#fff5f5", "#b71c1c"
#: Banners and bars by severity: ``(background, text, border)``.
BANNERS = {
    "info": ("#e6f4ea", "#0d3d1f", "#5fae7b"),
    "warning": (BANNER_BACKGROUND, "#5c3c00", "#e0b100"),
    "error": (ERROR_BACKGROUND, "#7f1010", ERROR_COLOUR),
}
#: A line of text that warns (the timing view's info line about simulated devices).
WARNING_INK = "#8a5a00"
#: A failed export's message in the device view's bar.
EXPORT_ERROR_INK = "#B00020"

# The presentation (slides on light paper in both themes, the presenter's console dark).
#: Code blocks' paper on a slide, by slide theme: dark on a dark slide (a light box on a
#: dark projector image glares, and reads as a hole in the slide).
SLIDE_PAPER = {"light": "#F6F8FA", "dark": "#1E242C"}
#: A slide's code text without a syntax colour, its lit lines (the panes' phase colour;
#: a dark amber on dark paper) and its line numbers and folds, by slide theme.
SLIDE_CODE_INK = {"light": SLIDE_INK, "dark": "#E6EAF0"}
SLIDE_LIT = {"light": PHASE_COLOUR, "dark": "#5C4A12"}
SLIDE_FOLD = {"light": GUTTER_TEXT, "dark": "#9AA4B0"}
#: The presenter console's background; its text and quiet text are the dark theme's.
CONSOLE_BACKGROUND = "#15181D"
#: The box behind a status message over a slide, and its opacity (0-255).
OVERLAY, OVERLAY_ALPHA = "#1E1E1E", 200
#: Syntax colours by Pygments token name: ``(colour, bold, italic)``; the most specific wins.
TOKEN_COLOURS: dict[str, tuple[str, bool, bool]] = {
    "Keyword": ("#0b3d91", True, False),
    "Keyword.Type": ("#00796b", False, False),
    "Keyword.Constant": ("#0b3d91", False, False),
    "Name.Function": ("#6a1b9a", True, False),
    "Name.Class": ("#6a1b9a", True, False),
    "Name.Exception": ("#c62828", True, False),
    "Name.Builtin": ("#0b5394", False, False),
    "Name.Decorator": ("#8d6e00", False, False),
    "Name.Variable": ("#1a1a1a", False, False),
    "Name.Attribute": ("#6b7280", False, False),
    "Name.Namespace": ("#6b7280", False, False),
    "Name.Label": ("#8d6e00", False, False),
    "String": ("#a0522d", False, False),
    "String.Doc": ("#4b6b3a", False, True),
    "Number": ("#b35c00", False, False),
    "Comment": ("#5f6b5f", False, True),
    "Operator": ("#374151", False, False),
    "Operator.Word": ("#0b3d91", True, False),
    "Error": ("#c62828", False, False),
}
#: The same token kinds on dark paper (a slide's dark theme): lighter hues of the same
#: families, each at least 4.5:1 against ``SLIDE_PAPER["dark"]``.
DARK_TOKEN_COLOURS: dict[str, tuple[str, bool, bool]] = {
    "Keyword": ("#8AB8FF", True, False),
    "Keyword.Type": ("#4FD1C5", False, False),
    "Keyword.Constant": ("#8AB8FF", False, False),
    "Name.Function": ("#D7A6FF", True, False),
    "Name.Class": ("#D7A6FF", True, False),
    "Name.Exception": ("#FF8A80", True, False),
    "Name.Builtin": ("#8CC4F5", False, False),
    "Name.Decorator": ("#E6C35C", False, False),
    "Name.Variable": ("#E6EAF0", False, False),
    "Name.Attribute": ("#B4BCC6", False, False),
    "Name.Namespace": ("#B4BCC6", False, False),
    "Name.Label": ("#E6C35C", False, False),
    "String": ("#F0A878", False, False),
    "String.Doc": ("#A5D68C", False, True),
    "Number": ("#FFB86B", False, False),
    "Comment": ("#A3B0A3", False, True),
    "Operator": ("#C9D1D9", False, False),
    "Operator.Word": ("#8AB8FF", True, False),
    "Error": ("#FF8A80", False, False),
}


# --------------------------------------------------------------------------- #
# Device colours and colour arithmetic
# --------------------------------------------------------------------------- #
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
    if count <= len(DEVICE_COLOURS):
        return list(DEVICE_COLOURS[:count])
    out = []
    for k in range(count):
        r, c = divmod(k, cols) if cols > 0 else (k, 0)
        out.append(structured_colour(r, rows, c, cols))
    return out


def device_grid(axis_sizes: list[int], count: int) -> tuple[int, int]:
    """The ``(rows, columns)`` the device view lays ``count`` devices out on.

    No mesh or a 1-D mesh: one strip (``count`` rows, one column), however many
    devices: never wrapped into a grid that would look like a second mesh axis.
    Two or more axes: the first axis down, the others across.
    """
    if len(axis_sizes) >= 2:
        rows = axis_sizes[0]
        return rows, count // max(rows, 1)
    return count, 1


def device_colour_map(axis_sizes: list[int], device_ids: list[int]) -> dict[int, str]:
    """Device id -> its colour in the device view, for devices in mesh order.

    Example:
        >>> device_colour_map([2], [5, 3])
        {5: '#E69F00', 3: '#56B4E9'}
    """
    rows, cols = device_grid(axis_sizes, len(device_ids))
    return dict(zip(device_ids, device_colours(rows, cols, len(device_ids))))


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
        v = c / 255
        return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4
    r, g, b = (lin(c) for c in rgb(colour))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


#: Colours at most this luminous get white text (:func:`text_on`).
DARK_LUMINANCE = 0.22


def text_on(colour: str) -> str:
    """Black or white, whichever reads better on ``colour``."""
    return BLACK if luminance(colour) > DARK_LUMINANCE else WHITE


@functools.lru_cache(maxsize=8192)
def mix(a: str, b: str, t: float) -> str:
    """Linear blend from colour ``a`` (t=0) to ``b`` (t=1)."""
    t = min(max(t, 0.0), 1.0)
    ca, cb = rgb(a), rgb(b)
    return "#" + "".join(f"{round(x + (y - x) * t):02X}" for x, y in zip(ca, cb))
#: The program strip's marks (:mod:`jaxviz.views.devices.strip`), by what a phase does:
#: compute, each collective kind, and the phases about the arrays (host, transfer, result).
STRIP_COLOURS = {
    "compute": "#8c9bab",
    "all-gather": OKABE_ITO["blue"],
    "all-reduce": OKABE_ITO["vermillion"],
    "reduce-scatter": OKABE_ITO["reddish_purple"],
    "all-to-all": OKABE_ITO["bluish_green"],
    "collective-permute": OKABE_ITO["orange"],
    "collective-broadcast": OKABE_ITO["sky_blue"],
    "ragged-all-to-all": "#117733",
    "arrays": "#c8c8c8",
}
