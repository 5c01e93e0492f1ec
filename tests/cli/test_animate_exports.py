"""`jaxviz animate` as video, animated PNG, PDF and SVG, read back as their consumers read them.

The reference is the PNG of each phase (``--out f.png``, Qt's raster). Videos
are decoded with PyAV (the codec, pixel format, size, frame rate and frame
count a player sees, and every phase's picture among the frames), the APNG
with Pillow (lossless: its held frames are the PNGs), the PDF with poppler
(one page per phase, drawn like the PNG, its text extractable) and the SVG
frames with librsvg and CairoSVG.
"""

from __future__ import annotations

import re
import struct
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageFilter, ImageSequence

from jaxviz.views.palette import DEVICE_COLOURS
from tests.helpers.cli import run_animate
from tests.helpers.rasters import cairosvg, hex_rgb, pdf_pages, pdftoppm, pdftotext, png, rsvg

# Not in the fast tier: the jaxviz command in subprocesses, each with an engine.
pytestmark = pytest.mark.slow

W, H = 640, 360
ARGS = ("example:convolve", "--variant", "pmap", "--devices", "8", "--size", f"{W}x{H}")


def animate(tmp_path: Path, out: str, *more: str) -> tuple[str, list[str]]:
    """Run ``jaxviz animate``; its output line and the phases it names (last parentheses)."""
    done = run_animate(*ARGS, "--out", out, *more, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    phases = re.findall(r"\(([^()]*)\)\s*$", done.stdout)[-1].split(", ")
    return done.stdout, phases


@pytest.fixture(scope="module")
def phases_png(tmp_path_factory) -> list[np.ndarray]:
    """Each phase, finished, as the PNG export draws it."""
    out = tmp_path_factory.mktemp("png")
    _, phases = animate(out, "f.png")
    assert len(phases) >= 4  # host, split, ..., assemble
    return [png(out / f"f-{k:02d}.png") for k in range(1, len(phases) + 1)]


@pytest.fixture(scope="module")
def svg_frames(tmp_path_factory) -> Path:
    """The folder holding each phase as SVG (s-01.svg, ...)."""
    out = tmp_path_factory.mktemp("svg")
    animate(out, "s.svg")
    return out


def device_pixels(rgb: np.ndarray, tolerance: int = 10) -> dict[str, int]:
    """How many pixels have each device's colour."""
    return {c: int((np.abs(rgb.astype(np.int16) - hex_rgb(c)).max(axis=-1) <= tolerance).sum())
            for c in DEVICE_COLOURS}


def mean_difference(a: np.ndarray, b: np.ndarray) -> float:
    """The mean largest-channel difference of two pictures (every other pixel), each
    softened by a 3x3 box blur first: renderers put anti-aliased edges differently
    (poppler's pdftoppm snaps thin strokes to whole pixels, Qt blends them over two)."""
    def soft(rgb: np.ndarray) -> np.ndarray:
        return np.asarray(Image.fromarray(rgb).filter(ImageFilter.BoxBlur(1)), np.int16)

    return float(np.abs(soft(a)[::2, ::2] - soft(b)[::2, ::2]).max(axis=-1).mean())


def looks_like(picture: np.ndarray, reference: np.ndarray) -> list[str]:
    """How a vector rendering differs from the PNG of the same frame; empty if it looks
    the same: same size, close on average, every device colour about as present (tiles,
    badges, legend)."""
    if picture.shape != reference.shape:
        return [f"size {picture.shape[1]}x{picture.shape[0]}, the PNG is {W}x{H}"]
    found = []
    if (diff := mean_difference(picture, reference)) > 5:
        found.append(f"differs by {diff:.1f} levels on average")
    ours = device_pixels(picture)
    for colour, count in device_pixels(reference).items():
        if count > 100 and not 0.75 <= ours[colour] / count <= 1.33:
            found.append(f"{colour}: {ours[colour]} pixels, the PNG {count}")
    return found


# -- video ---------------------------------------------------------------------------- #

def mp4_boxes(path: Path) -> list[str]:
    """The top-level boxes of an MP4 file, in order (read with the format's 8-byte headers)."""
    data, names, at = path.read_bytes(), [], 0
    while at + 8 <= len(data):
        size, name = struct.unpack(">I4s", data[at:at + 8])
        names.append(name.decode("latin-1"))
        if size == 1:
            size = struct.unpack(">Q", data[at + 8:at + 16])[0]
        if size < 8:
            break
        at += size
    return names


@pytest.mark.parametrize("suffix, codec", [(".mp4", "h264"), (".webm", "vp9")])
def test_video_plays_every_phase_at_the_chosen_size_and_rate(tmp_path, phases_png, suffix,
                                                             codec):
    import av

    fps = 6
    stdout, _ = animate(tmp_path, f"v{suffix}", "--fps", str(fps))
    written = int(re.search(r"(\d+) frames at 6 fps", stdout).group(1))
    with av.open(str(tmp_path / f"v{suffix}")) as container:
        stream = container.streams.video[0]
        context = stream.codec_context
        assert (context.name, context.width, context.height) == (codec, W, H)
        assert context.pix_fmt == "yuv420p" and stream.average_rate == fps
        frames = [f.to_ndarray(format="rgb24") for f in container.decode(stream)]
        duration = container.duration / av.time_base
    assert len(frames) == written
    assert duration == pytest.approx(written / fps, abs=1.5 / fps)
    # Every phase's finished picture is in the video, in order, within a few levels
    # (lossy: small patches of colour blur, the picture as a whole stays).
    at = 0
    for k, reference in enumerate(phases_png):
        diffs = [mean_difference(frame, reference) for frame in frames[at:]]
        best = int(np.argmin(diffs))
        assert diffs[best] < 6, f"phase {k + 1} is not in the video ({diffs[best]:.1f})"
        at += best
    assert mean_difference(frames[-1], phases_png[-1]) < 6
    if suffix == ".mp4":
        assert context.profile == "High"
        assert (context.colorspace, context.color_primaries, context.color_trc) == (1, 1, 1)
        boxes = mp4_boxes(tmp_path / "v.mp4")
        assert boxes.index("moov") < boxes.index("mdat")  # faststart: plays while loading


def test_an_odd_size_for_mp4_is_refused_with_the_size_to_use(tmp_path):
    done = run_animate("example:convolve", "--size", "641x360", "--out", "v.mp4", cwd=tmp_path)
    assert done.returncode == 2
    assert "even width and height" in done.stderr and "642x360" in done.stderr
    assert not (tmp_path / "v.mp4").exists()
    done = run_animate("example:convolve", "--fps", "0", "--out", "v.mp4", cwd=tmp_path)
    assert done.returncode == 2 and "--fps" in done.stderr


def test_apng_is_lossless_and_holds_each_phase(tmp_path, phases_png):
    animate(tmp_path, "a.apng", "--frames-per-phase", "3")
    with Image.open(tmp_path / "a.apng") as apng:
        assert apng.format == "PNG" and apng.is_animated
        assert apng.n_frames == 3 * len(phases_png)
        frames = [np.asarray(f.convert("RGB")).copy() for f in ImageSequence.Iterator(apng)]
        durations = []
        for k in range(apng.n_frames):
            apng.seek(k)
            durations.append(apng.info["duration"])
    held = frames[2::3]
    assert all(np.array_equal(h, p) for h, p in zip(held, phases_png))  # every pixel exact
    assert durations[2::3] == [max(durations)] * len(phases_png)
    assert min(durations) < max(durations)


# -- vector ---------------------------------------------------------------------------- #

def test_pdf_has_a_page_per_phase_drawn_like_the_png(tmp_path, phases_png, svg_frames):
    stdout, _ = animate(tmp_path, "p.pdf")
    assert f"{len(phases_png)} pages" in stdout
    pages, points = pdf_pages(tmp_path / "p.pdf")
    assert pages == len(phases_png) and points == pytest.approx((W * 0.75, H * 0.75), abs=0.5)
    for k, reference in enumerate(phases_png, start=1):
        assert looks_like(pdftoppm(tmp_path / "p.pdf", page=k), reference) == [], k
        # the text is text: the phase's title (the SVG's description) is on its page
        title = ET.parse(svg_frames / f"s-{k:02d}.svg").getroot().find(
            "{http://www.w3.org/2000/svg}desc").text
        assert title and " ".join(title.split()) in pdftotext(tmp_path / "p.pdf", page=k)
    # --phase K: that phase alone, one vector page (\includegraphics without page=)
    done = run_animate(*ARGS, "--out", "one.pdf", "--phase", "3", cwd=tmp_path)
    assert done.returncode == 0 and f"phase 3 of {len(phases_png)}" in done.stdout, done.stderr
    assert pdf_pages(tmp_path / "one.pdf") == (1, pytest.approx((W * 0.75, H * 0.75), abs=0.5))
    assert looks_like(pdftoppm(tmp_path / "one.pdf"), phases_png[2]) == []


@pytest.mark.parametrize("renderer", [rsvg, cairosvg], ids=["rsvg-convert", "CairoSVG"])
def test_svg_frames_render_like_the_png(svg_frames, phases_png, renderer):
    for k, reference in enumerate(phases_png, start=1):
        assert looks_like(renderer(svg_frames / f"s-{k:02d}.svg"), reference) == [], k
