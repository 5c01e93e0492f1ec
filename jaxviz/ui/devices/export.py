"""Render a scene without a window: frames as images, PNG/SVG/PDF files, animated GIFs.

Needs a ``QGuiApplication`` (or ``QApplication``) for fonts; the headless
command line creates one on the ``offscreen`` platform.

Example:
    >>> renderer = Renderer(build_scene(result, "pmap"), 1280, 720, "dark")  # doctest: +SKIP
    >>> renderer.save(0, 1.0, "host.png")                                   # doctest: +SKIP
    >>> save_gif(renderer, "convolve.gif")                                   # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from PySide6.QtGui import QGuiApplication, QImage, QPainter

from jaxviz.ui.devices.painter import ItemPainter
from jaxviz.ui.vector.pdf import pdf_pages
from jaxviz.ui.vector.svg import SvgDevice
from jaxviz.views import palette
from jaxviz.views.devices import Scene, geometry
from jaxviz.views.devices.frames import FrameBuilder
from jaxviz.views.devices.items import Item

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp")


def app_font() -> tuple[str, float]:
    """The application font's family and pixel size (0 without an application)."""
    app = QGuiApplication.instance()
    if app is None:
        return "", 0.0
    font = QGuiApplication.font()
    px: float = font.pixelSize()
    if px <= 0:
        px = font.pointSizeF() * 96.0 / 72.0
    return font.family(), float(px)


class Renderer:
    """Draws any frame of one scene at one size and theme.

    Args:
        scene: what to draw.
        width, height: the canvas in pixels.
        theme: ``light`` or ``dark``.
        font_scale: multiplies the text size (1.0 follows the app font, with a
            floor that keeps text readable on a projector at this size).
        expanded: pytree groups drawn leaf by leaf (the others folded).
        phases: the scene's phases to draw, as ``(first, last)`` (inclusive; default
            all): phase ``k`` of the renderer is the scene's phase ``first + k``
            (``jaxviz animate --group``).
    """

    def __init__(self, scene: Scene, width: int, height: int, theme: str = "light",
                 font_scale: float = 1.0, expanded: frozenset[str] = frozenset(),
                 phases: tuple[int, int] | None = None):
        family, px = app_font()
        self.scene = scene
        self.first, self.last = phases if phases is not None else (0, len(scene.phases) - 1)
        self.width, self.height = int(width), int(height)
        self.theme = palette.theme(theme).device_view
        self.unit = geometry.default_unit(width, height, px, font_scale)
        self.layout = geometry.canvas_geometry(scene, width, height, self.unit, expanded)
        self.builder = FrameBuilder(scene, self.layout, self.theme)
        self.painter = ItemPainter(family)

    @property
    def phase_count(self) -> int:
        return max(self.last - self.first + 1, 0)

    @property
    def durations(self) -> list[float]:
        """Each drawn phase's duration at 1x, in seconds."""
        return [p.duration for p in self.scene.phases[self.first:self.last + 1]]

    def items(self, phase: int, t: float) -> list[Item]:
        return self.builder.frame(self.first + phase, t)

    def paint(self, p: QPainter, phase: int, t: float) -> None:
        """Draw frame (``phase``, ``t``) with an active painter."""
        self.painter.draw(p, self.items(phase, t))

    def image(self, phase: int, t: float = 1.0) -> QImage:
        """Frame (``phase``, ``t``) as an RGB image."""
        img = QImage(self.width, self.height, QImage.Format.Format_RGB32)
        img.fill(self.painter.colour(self.theme.bg))
        p = QPainter(img)
        try:
            self.paint(p, phase, t)
        finally:
            p.end()
        return img

    @property
    def title(self) -> str:
        """What the pictures show, for the files' metadata."""
        return f"jaxviz device view: {self.scene.function} {self.scene.variant}"

    def save(self, phase: int, t: float, path: str | Path) -> Path:
        """Write frame (``phase``, ``t``) as PNG/JPEG, SVG or PDF (by the file's suffix).

        Raises:
            ValueError: for another suffix.
            OSError: the file cannot be written.
        """
        path = Path(path)
        suffix = path.suffix.lower()
        if suffix == ".svg":
            device = SvgDevice(self.width, self.height, title=self.title,
                               description=self._phase_title(phase))
            p = QPainter(device)
            try:
                self.paint(p, phase, t)
            finally:
                p.end()
            device.save(path)
        elif suffix == ".pdf":
            save_pdf(self, path, [(phase, t)])
        elif suffix in IMAGE_SUFFIXES:
            if not self.image(phase, t).save(str(path)):
                raise OSError(f"could not write {path}")
        else:
            raise ValueError(f"cannot export a frame as {suffix or 'a file without suffix'}: "
                             f"use .png, .svg or .pdf")
        return path

    def _phase_title(self, phase: int) -> str:
        k = self.first + phase
        return self.scene.phases[k].title if 0 <= k < len(self.scene.phases) else ""


def save_pdf(renderer: Renderer, path: str | Path,
             frames: list[tuple[int, float]] | None = None) -> int:
    """Write frames (default: every phase, finished) as a vector PDF, one page each.

    For LaTeX/Beamer: ``\\includegraphics[page=3,width=\\linewidth]{file.pdf}``
    shows the third phase. Returns the number of pages.

    Raises:
        ValueError: the scene has no phases (a failed variant).
        OSError: the file cannot be written.
    """
    if frames is None:
        if renderer.phase_count == 0:
            raise ValueError(f"nothing to export: {renderer.scene.error or 'no phases'}")
        frames = [(phase, 1.0) for phase in range(renderer.phase_count)]
    with pdf_pages(path, (renderer.width, renderer.height), renderer.title) as pages:
        for phase, t in frames:
            renderer.paint(pages.next_page(), phase, t)
    return len(frames)


def animation_frames(phases: int, frames_per_phase: int = 6, step_ms: int = 110,
                     hold_ms: int = 1800) -> list[tuple[int, float, int]]:
    """``(phase, t, duration_ms)`` of every frame: the motion, then a hold on the result."""
    frames_per_phase = max(int(frames_per_phase), 1)
    out = []
    for i in range(phases):
        if frames_per_phase == 1:
            out.append((i, 1.0, hold_ms))
            continue
        for k in range(frames_per_phase - 1):
            out.append((i, k / (frames_per_phase - 1), step_ms))
        out.append((i, 1.0, hold_ms))
    return out


def to_pil(img: QImage):
    """A QImage as a Pillow RGB image."""
    from PIL import Image

    rgb = img.convertToFormat(QImage.Format.Format_RGB888)
    data = bytes(rgb.constBits())
    return Image.frombuffer("RGB", (rgb.width(), rgb.height()), data, "raw", "RGB",
                            rgb.bytesPerLine(), 1).copy()


#: Called after each frame an animation writer renders, with (frames done, frames in
#: all); raising in it stops the export (the writer removes its partial file).
Progress = Callable[[int, int], None]


def _stills(renderer: Renderer, frames_per_phase: int, step_ms: int, hold_ms: int,
            progress: Progress | None) -> Iterator[tuple[QImage, int]]:
    """Each frame of the GIF/APNG schedule (:func:`animation_frames`) with its duration."""
    if renderer.phase_count == 0:
        raise ValueError(f"nothing to animate: {renderer.scene.error or 'no phases'}")
    schedule = animation_frames(renderer.phase_count, frames_per_phase, step_ms, hold_ms)
    for done, (phase, t, ms) in enumerate(schedule, start=1):
        yield renderer.image(phase, t), ms
        if progress is not None:
            progress(done, len(schedule))


def _save_animated(renderer: Renderer, path: str | Path, image_format: str,
                   convert: Callable[[QImage], Any], frames_per_phase: int, step_ms: int,
                   hold_ms: int, progress: Progress | None, **options: Any) -> int:
    """Render the GIF/APNG schedule, convert each frame and save them as one animated image
    with Pillow; on a failure or a stop, no partial file stays."""
    path = Path(path)
    try:
        frames, durations = [], []
        for image, ms in _stills(renderer, frames_per_phase, step_ms, hold_ms, progress):
            frames.append(convert(image))
            durations.append(ms)
        frames[0].save(path, format=image_format, save_all=True, append_images=frames[1:],
                       duration=durations, loop=0, **options)
        return len(frames)
    except BaseException:
        path.unlink(missing_ok=True)
        raise


def save_gif(renderer: Renderer, path: str | Path, frames_per_phase: int = 6,
             step_ms: int = 110, hold_ms: int = 1800, progress: Progress | None = None) -> int:
    """Write the whole animation as a looping GIF (255 colours); returns the number of frames.

    Raises:
        ValueError: the scene has no phases (a failed variant).
        OSError: the file cannot be written.
    """
    from PIL import Image

    def quantize(image: QImage) -> Any:
        return to_pil(image).quantize(colors=255, method=Image.Quantize.MEDIANCUT,
                                      dither=Image.Dither.NONE)

    return _save_animated(renderer, path, "GIF", quantize, frames_per_phase, step_ms,
                          hold_ms, progress, disposal=1)


def save_apng(renderer: Renderer, path: str | Path, frames_per_phase: int = 6,
              step_ms: int = 110, hold_ms: int = 1800, progress: Progress | None = None) -> int:
    """Write the whole animation as a looping animated PNG: every colour exact (lossless),
    the frames of :func:`save_gif`; returns the number of frames.

    Pillow writes APNG for a PNG with several frames; each frame after the first
    stores only the part that changed.

    Raises:
        ValueError: the scene has no phases (a failed variant).
        OSError: the file cannot be written.
    """
    return _save_animated(renderer, path, "PNG", to_pil, frames_per_phase, step_ms, hold_ms,
                          progress, default_image=False)
