"""Reading exports the way other programs do: SVG and PDF rasterised by independent renderers.

* :func:`rsvg` -- librsvg's ``rsvg-convert`` (GNOME, Inkscape and LaTeX pipelines);
* :func:`cairosvg` -- CairoSVG (a pure-Python SVG renderer on cairo);
* :func:`pdftoppm` -- poppler (Evince, Okular, most Linux PDF viewers), and
  :func:`pdftotext` for the text a reader can search.

Each gives an ``(height, width, 3)`` uint8 array, for :func:`differences` to
compare with the PNG export of the same picture: the colours at the places
where the picture has something to show (markers, bars, tiles), the ink in its
text boxes, and no large area of a series colour where the PNG has background.

``scripts/setup.sh --test`` installs the renderers (Debian: librsvg2-bin,
poppler-utils; CairoSVG from the test extras). A test needing one that is
missing is skipped and says which package to install.
"""

from __future__ import annotations

import html
import io
import re
import shutil
import subprocess
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest
from PIL import Image


def _tool(name: str, package: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.skip(f"{name} is not installed (Debian package {package}; "
                    f"`bash scripts/setup.sh --test` installs it)")
    return path


def png(path: str | Path) -> np.ndarray:
    """An image file as RGB (alpha dropped)."""
    with Image.open(path) as image:
        return np.asarray(image.convert("RGB")).copy()


def rsvg(svg: str | Path, size: tuple[int, int] | None = None) -> np.ndarray:
    """The SVG as librsvg draws it: at the SVG's own size (its width and height), or
    scaled to ``size`` (``rsvg-convert -w W -h H``)."""
    exe = _tool("rsvg-convert", "librsvg2-bin")
    scale = ["-w", str(size[0]), "-h", str(size[1])] if size else []
    out = subprocess.run([exe, *scale, str(svg)], capture_output=True, timeout=120, check=True)
    return _rgb_over_white(out.stdout)


def cairosvg(svg: str | Path) -> np.ndarray:
    """The SVG as CairoSVG draws it, at the SVG's own size."""
    try:
        import cairosvg as renderer
    except (ImportError, OSError) as exc:  # OSError: the cairo library is missing
        pytest.skip(f"CairoSVG cannot run ({exc}); `bash scripts/setup.sh --test` installs "
                    f"it and cairo")
    return _rgb_over_white(renderer.svg2png(url=str(svg)))


def pdftoppm(pdf: str | Path, page: int = 1, dpi: int = 96) -> np.ndarray:
    """Page ``page`` of a PDF as poppler draws it (at 96 dpi: one pixel per PDF pixel)."""
    exe = _tool("pdftoppm", "poppler-utils")
    out = subprocess.run([exe, "-r", str(dpi), "-f", str(page), "-l", str(page), "-png",
                          "-singlefile", str(pdf)], capture_output=True, timeout=120, check=True)
    return _rgb_over_white(out.stdout)


def pdftotext(pdf: str | Path, page: int | None = None) -> str:
    """The text a PDF reader finds (ligatures such as "ﬁ" spelled out), words single-spaced."""
    exe = _tool("pdftotext", "poppler-utils")
    pages = ["-f", str(page), "-l", str(page)] if page else []
    out = subprocess.run([exe, *pages, str(pdf), "-"], capture_output=True, text=True,
                         timeout=120, check=True)
    return " ".join(unicodedata.normalize("NFKC", out.stdout).split())


def pdf_pages(pdf: str | Path) -> tuple[int, tuple[float, float]]:
    """The number of pages and the first page's size in points, as poppler reads them."""
    exe = _tool("pdfinfo", "poppler-utils")
    out = subprocess.run([exe, str(pdf)], capture_output=True, text=True, timeout=60,
                         check=True).stdout
    info = dict(line.split(":", 1) for line in out.splitlines() if ":" in line)
    w, _, h = info["Page size"].split()[:3]
    return int(info["Pages"]), (float(w), float(h))


def _rgb_over_white(data: bytes) -> np.ndarray:
    with Image.open(io.BytesIO(data)) as image:
        rgba = image.convert("RGBA")
    white = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
    return np.asarray(Image.alpha_composite(white, rgba).convert("RGB")).copy()


def hex_rgb(colour: str) -> np.ndarray:
    return np.array([int(colour[i:i + 2], 16) for i in (1, 3, 5)])


def near(rgb: np.ndarray, xy: tuple[float, float], colour: str, tolerance: int = 28,
         radius: int = 1) -> bool:
    """Some pixel within ``radius`` of ``xy`` has ``colour`` (up to ``tolerance`` levels)."""
    x, y = int(round(xy[0])), int(round(xy[1]))
    patch = rgb[max(0, y - radius): y + radius + 1, max(0, x - radius): x + radius + 1]
    return bool((np.abs(patch.astype(int) - hex_rgb(colour)).max(axis=-1) <= tolerance).any())


def visible_at(rgb: np.ndarray, xy: tuple[float, float], colour: str,
               reach: int) -> tuple[int, int] | None:
    """The pixel nearest ``xy``, within ``reach``, that has ``colour`` exactly (to 12
    levels) and so do its eight neighbours -- inside the shape, not on an edge that a
    marker drawn over it antialiases, which renderers blend differently; None if there is
    none (a later marker covers this one)."""
    x, y = int(round(xy[0])), int(round(xy[1]))
    h, w = rgb.shape[:2]
    hit = np.abs(rgb.astype(int) - hex_rgb(colour)).max(axis=-1) <= 12
    for r in range(reach + 1):
        for dy in range(-r, r + 1):
            for dx in range(-r, r + 1):
                cx, cy = x + dx, y + dy
                if max(abs(dx), abs(dy)) != r or not (1 <= cx < w - 1 and 1 <= cy < h - 1):
                    continue
                if hit[cy - 1:cy + 2, cx - 1:cx + 2].all():
                    return cx, cy
    return None


def ink(rgb: np.ndarray, box: tuple[int, int, int, int], background: str) -> float:
    """The share of pixels in ``box`` (x0, y0, x1, y1) that are not the background."""
    x0, y0, x1, y1 = box
    patch = rgb[y0:y1, x0:x1].astype(int)
    return float((np.abs(patch - hex_rgb(background)).max(axis=-1) > 60).mean())


@dataclass
class Landmarks:
    """What a picture must show, and where (pixels of the picture).

    Attributes:
        spots: ``(name, (x, y), colour)``: a marker's, bar's or tile's centre.
        reach: how far from a spot's centre its colour may be looked for (pixels):
            a marker partly covered by another shows its colour beside its centre.
        texts: ``(name, (x0, y0, x1, y1))``: a box of text.
        background: the picture's background colour.
        colours: the series colours (and the foreground), which must not spread
            over the background.
    """

    background: str
    colours: list[str]
    reach: int = 3
    spots: list[tuple[str, tuple[float, float], str]] = field(default_factory=list)
    texts: list[tuple[str, tuple[int, int, int, int]]] = field(default_factory=list)


def differences(reference: np.ndarray, other: np.ndarray, marks: Landmarks,
                block: int = 16) -> list[str]:
    """How ``other`` (a renderer's raster) differs from ``reference`` (the PNG) where it
    matters; empty when they show the same picture.

    * the same size;
    * every spot shows its colour in the other where the reference shows it (at the
      centre, or the nearest pixel within ``reach`` that has it; a spot a later marker
      covers whole is left out, but at least a third of them must show);
    * every text box has ink in both, about as much (0.8x to 1.25x: faces differ a
      little between renderers, a missing or doubled text does not pass);
    * no block of ``block`` x ``block`` pixels that is background in the reference
      is mostly a series colour in the other (what a 1-unit stroke scaled 20x paints).
    """
    if reference.shape != other.shape:
        return [f"size {other.shape[1]}x{other.shape[0]}, the PNG is "
                f"{reference.shape[1]}x{reference.shape[0]}"]
    found = []
    shown = 0
    for name, xy, colour in marks.spots:
        spot = visible_at(reference, xy, colour, marks.reach)
        if spot is None:
            continue  # covered by a marker drawn later: nothing to compare
        shown += 1
        if not near(other, spot, colour):
            found.append(f"{name}: {colour} at {spot} in the PNG, "
                         f"#{''.join(f'{v:02x}' for v in other[spot[1], spot[0]])} here")
    if shown < max(2, len(marks.spots) / 3):
        found.append(f"the PNG shows only {shown} of {len(marks.spots)} landmarks in their "
                     f"colours: wrong landmarks")
    for name, box in marks.texts:
        a, b = ink(reference, box, marks.background), ink(other, box, marks.background)
        if a < 0.01:
            found.append(f"the PNG has no ink in the {name} box {box}: a wrong landmark")
        elif not 0.8 <= b / a <= 1.25:
            found.append(f"{name}: {b:.1%} ink in its box {box}, the PNG {a:.1%}")
    h, w = reference.shape[:2]
    hb, wb = h // block, w // block
    blocks = (slice(0, hb * block), slice(0, wb * block))

    def share(rgb: np.ndarray, colour: str, tolerance: int) -> np.ndarray:
        hit = np.abs(rgb[blocks].astype(int) - hex_rgb(colour)).max(axis=-1) <= tolerance
        return hit.reshape(hb, block, wb, block).mean(axis=(1, 3))

    empty = share(reference, marks.background, 8) >= 0.98
    for colour in marks.colours:
        spread = empty & (share(other, colour, 24) >= 0.5)
        if spread.any():
            ys, xs = np.nonzero(spread)
            found.append(f"{int(spread.sum())} blocks of {colour} where the PNG is background, "
                         f"e.g. at x={xs[0] * block}, y={ys[0] * block}")
    return found


def plain_title(fig) -> str:
    """The figure's title as a reader sees it (the label holds wrapped HTML)."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", fig.title.text)).split())
