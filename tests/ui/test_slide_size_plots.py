"""Exported timing plots are slide-ready: at their size, the text that carries the plot
(tick labels, axis labels, legend, caption) is at least 18 pt on the slide they fill.

The arithmetic, once: a 16:9 slide is 13.33 x 7.5 in. A 1920x1080 image filling it has
1920 / 13.33 = 144 px per inch; a point is 1/72 in, so 2 px per point and 18 pt = 36 px.
At 1280x720 (96 px per inch) 18 pt = 24 px. These numbers are written out here, not read
from jaxviz.

Measured in the SVG (every ``<text>``'s font-size, in the SVG's pixels) and in the PNG
(the ink height of the digits of the tick labels: DejaVu Sans digits are 0.729 em tall).
"""

from __future__ import annotations

import contextlib
import io
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from jaxviz.views.timing.stats import header_line
from tests.helpers.rasters import png

pytestmark = pytest.mark.slow  # the run is measured by `jaxviz time` in an engine process

SVG = "{http://www.w3.org/2000/svg}"
#: 18 pt in pixels for an image filling a 13.33 x 7.5 in slide (see the module docstring).
PT18 = {(1920, 1080): 36.0, (1280, 720): 24.0}
#: The height of a digit of DejaVu Sans (the plots' font here), in em (its cap height).
DIGIT_EM = 0.729


@pytest.fixture(scope="module")
def run(measured_run):
    return measured_run


def texts(svg_path) -> list[tuple[str, float, float, float, str | None]]:
    """``(text, x, y, font-size, transform)`` of every text of an SVG."""
    root = ET.parse(svg_path).getroot()
    return [(t.text or "", float(t.get("x")), float(t.get("y")), float(t.get("font-size")),
             t.get("transform")) for t in root.iter(f"{SVG}text")]


def carrying(run, found):
    """The texts that carry the plot: all but the title (larger) and the footer (where and
    when the run was recorded, small print)."""
    footer = header_line(run)  # wrapped over lines: each line a piece of it
    return [t for t in found if t[0].strip() and t[0].strip() not in footer]


@pytest.mark.parametrize("size", [(1920, 1080), (1280, 720)])
@pytest.mark.parametrize("kind", ["dispatch_vs_complete", "timeline", "variants", "sweep"])
def test_svg_text_is_at_least_18_pt_on_the_slide(run, tmp_path, size, kind):
    from jaxviz.ui.exporters import find

    path = find("plot", "svg").write(run, tmp_path / f"{kind}.svg", kind=kind, size=size,
                                     theme="light")
    found = carrying(run, texts(path))
    assert len(found) >= 5, found  # ticks, labels, legend, caption are there
    small = [(t[0], t[3]) for t in found if t[3] < PT18[size] - 0.5]
    assert not small, f"text under 18 pt ({PT18[size]:g} px) at {size}: {small}"
    # and nothing runs off the picture: every text starts inside it
    for text, x, y, _px, transform in found:
        if transform is None:
            assert 0 <= x < size[0] and 0 < y <= size[1], (text, x, y)


def test_the_font_scale_multiplies_every_text(run, tmp_path):
    from jaxviz.ui.exporters import write_plot_file

    [one] = write_plot_file(run, tmp_path / "one.svg", (1920, 1080), kinds=["variants"])
    [big] = write_plot_file(run, tmp_path / "big.svg", (1920, 1080), kinds=["variants"],
                            font_scale=1.5)
    a = {t[0]: t[3] for t in texts(one)}
    b = {t[0]: t[3] for t in texts(big)}
    for word in ("NumPy", "jit", "pmap"):  # the variants' tick labels
        assert b[word] == pytest.approx(1.5 * a[word], abs=1), word
    both = [w for w in a if w in b and w.strip()]  # ticks, legend entries kept by both
    assert len(both) >= 8
    assert all(b[w] == pytest.approx(1.5 * a[w], abs=1) for w in both), both
    assert min(a[w] for w in ("NumPy", "jit")) >= 36


def digit_height(rgb: np.ndarray, x: float, y: float, width: float, px: float,
                 background=(255, 255, 255)) -> int:
    """Rows of ink of a text whose baseline starts at (x, y), ``width`` wide, in a box one
    em high above the baseline (digits have no descenders)."""
    x0, x1 = int(x), int(x + width)
    y0, y1 = int(y - 1.2 * px), int(y) + 1
    box = rgb[y0:y1, x0:x1].astype(int)
    ink = (np.abs(box - np.array(background)).max(axis=-1) > 100).any(axis=1)
    rows = np.nonzero(ink)[0]
    return int(rows[-1] - rows[0] + 1) if len(rows) else 0


@pytest.mark.parametrize("size", [(1920, 1080), (1280, 720)])
def test_png_tick_digits_are_drawn_18_pt_tall(run, tmp_path, size):
    """The PNG (a raster, not font-size attributes): the tick labels' digits are as tall as
    the digits of 18 pt text, measured in the pixels."""
    from PySide6.QtGui import QFont, QFontMetricsF

    from jaxviz.ui.exporters import find

    kind = "dispatch_vs_complete"
    svg = find("plot", "svg").write(run, tmp_path / "p.svg", kind=kind, size=size)
    image = find("plot", "png").write(run, tmp_path / "p.png", kind=kind, size=size)
    rgb = png(image)
    assert rgb.shape[:2] == (size[1], size[0])
    ticks = [t for t in texts(svg) if t[0].strip().isdigit() and t[4] is None]  # call numbers
    assert len(ticks) >= 3
    wanted = DIGIT_EM * PT18[size]
    for text, x, y, px, _ in ticks:
        font = QFont()
        font.setPixelSize(round(px))
        width = QFontMetricsF(font).horizontalAdvance(text)
        tall = digit_height(rgb, x, y, width, px)
        assert tall >= wanted - 1.5, (text, tall, wanted)


def test_time_takes_the_font_scale_with_animates_rule():
    """One rule for --font-scale: jaxviz time refuses what jaxviz animate refuses, with the
    same message, exit 2 (argparse, before anything runs)."""
    from jaxviz.cli import main

    def refused(*argv: str) -> str:
        err = io.StringIO()
        with contextlib.redirect_stderr(err), pytest.raises(SystemExit) as exit_:
            main(list(argv))
        assert exit_.value.code == 2, argv
        return err.getvalue().strip().splitlines()[-1]

    for bad in ("nan", "inf", "0", "-1", "1e9", "big"):
        said_time = refused("time", "example:convolve", "--out", "t", "--font-scale", bad)
        said_animate = refused("animate", "example:convolve", "--out", "a.gif",
                               "--font-scale", bad)
        assert "argument --font-scale: the font scale" in said_time, said_time
        assert said_time.split("--font-scale:")[1].split("(see")[0] \
            == said_animate.split("--font-scale:")[1].split("(see")[0], (said_time, bad)
