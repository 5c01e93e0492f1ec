"""Rectangles and text widths, without Qt: what the layout measures with.

Text widths are estimated from character classes, a little wider than DejaVu
Sans (and exact for DejaVu Sans Mono), so text sized by them fits when Qt
paints it (a test measures every label with Qt's own metrics).
"""

from __future__ import annotations

from functools import lru_cache

from jaxviz.views.devices.tiles import Block

Rect = tuple[float, float, float, float]  # x, y, width, height

#: Advance of one character of a monospaced font, as a fraction of the font's pixel size.
MONO_W = 0.61


def sub_rect(rect: Rect, block: Block) -> Rect:
    """A block's rectangle inside an array's rectangle."""
    x, y, w, h = rect
    return x + block.x0 * w, y + block.y0 * h, (block.x1 - block.x0) * w, (block.y1 - block.y0) * h


def inset(rect: Rect, d: float) -> Rect:
    """``rect`` shrunk by ``d`` on every side (never below 1 px)."""
    x, y, w, h = rect
    d = min(d, w / 2 - 0.5, h / 2 - 0.5) if d > 0 else d
    d = max(d, 0.0)
    return x + d, y + d, w - 2 * d, h - 2 * d


def _char_w(ch: str) -> float:
    if ch.isdigit():
        return 0.64
    if ch.isupper():
        return 0.74
    if ch in "il|!.,:;'` ":
        return 0.33
    if ch in "()[]{}-_/\\\"*":
        return 0.42
    if ch.isascii():
        return 0.58 if ch not in "mw" else 0.9
    return 0.9  # arrows, symbols, ellipses


def text_width(text: str, px: float, bold: bool = False, mono: bool = False) -> float:
    """Estimated width of ``text`` at font size ``px`` (no font metrics without Qt).

    A little wider than DejaVu Sans (and exact for DejaVu Sans Mono), so text
    sized by it fits when painted.
    """
    if mono:
        return len(text) * px * MONO_W
    return _ems(text) * px * (1.1 if bold else 1.0)


#: Each ASCII character's width (a fraction of the font's pixel size).
_ASCII = {chr(c): _char_w(chr(c)) for c in range(128)}


@lru_cache(maxsize=16384)
def _ems(text: str) -> float:
    """``text``'s width in units of the font's pixel size (remembered: every frame of the
    device view measures the same labels, and a big program's layout measures hundreds
    of captions each time the canvas is resized)."""
    table = _ASCII
    return sum(table[ch] if ch in table else _char_w(ch) for ch in text)


def fit_size(text: str, px: float, width: float, bold: bool = False, mono: bool = False,
             floor: float = 0.75) -> float:
    """The largest size down to ``floor * px`` at which ``text`` fits ``width`` (0: none)."""
    need = text_width(text, px, bold, mono)
    if need <= width:
        return px
    size = px * width / max(need, 1e-9)
    return size if size >= floor * px else 0.0
