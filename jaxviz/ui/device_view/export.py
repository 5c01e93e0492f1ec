"""Render a scene without a window: frames as images, PNG/SVG files, animated GIFs.

Needs a ``QGuiApplication`` (or ``QApplication``) for fonts; the headless
command line creates one on the ``offscreen`` platform.

Example:
    >>> renderer = Renderer(build_scene(result, "pmap"), 1280, 720, "dark")  # doctest: +SKIP
    >>> renderer.save(0, 1.0, "host.png")                                   # doctest: +SKIP
    >>> save_gif(renderer, "convolve.gif")                                   # doctest: +SKIP
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QRectF, QSize
from PySide6.QtGui import QGuiApplication, QImage, QPainter

from jaxviz.model import palette
from jaxviz.scene import Scene, geometry
from jaxviz.scene.frames import FrameBuilder
from jaxviz.scene.items import Item
from jaxviz.ui.device_view.painter import ItemPainter

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
    """

    def __init__(self, scene: Scene, width: int, height: int, theme: str = "light",
                 font_scale: float = 1.0, expanded: frozenset[str] = frozenset()):
        family, px = app_font()
        self.scene = scene
        self.width, self.height = int(width), int(height)
        self.theme = palette.theme(theme).device_view
        self.unit = geometry.default_unit(width, height, px, font_scale)
        self.layout = geometry.layout(scene, width, height, self.unit, expanded)
        self.builder = FrameBuilder(scene, self.layout, self.theme)
        self.painter = ItemPainter(family)

    @property
    def phase_count(self) -> int:
        return len(self.scene.phases)

    def items(self, phase: int, t: float) -> list[Item]:
        return self.builder.frame(phase, t)

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

    def save(self, phase: int, t: float, path: str | Path) -> Path:
        """Write frame (``phase``, ``t``) as PNG/JPEG or SVG (by the file's suffix).

        Raises:
            ValueError: for another suffix.
            OSError: the file cannot be written.
        """
        path = Path(path)
        suffix = path.suffix.lower()
        if suffix == ".svg":
            self._save_svg(phase, t, path)
        elif suffix in IMAGE_SUFFIXES:
            if not self.image(phase, t).save(str(path)):
                raise OSError(f"could not write {path}")
        else:
            raise ValueError(f"cannot export a frame as {suffix or 'a file without suffix'}: "
                             f"use .png or .svg")
        return path

    def _save_svg(self, phase: int, t: float, path: Path) -> None:
        from PySide6.QtSvg import QSvgGenerator

        gen = QSvgGenerator()
        gen.setFileName(str(path))
        gen.setSize(QSize(self.width, self.height))
        gen.setViewBox(QRectF(0, 0, self.width, self.height))
        gen.setTitle(f"jaxviz device view: {self.scene.function} {self.scene.variant}")
        gen.setDescription(self.scene.phases[phase].title if self.scene.phases else "")
        p = QPainter(gen)
        try:
            self.paint(p, phase, t)
        finally:
            p.end()
        if not path.is_file():
            raise OSError(f"could not write {path}")


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


def save_gif(renderer: Renderer, path: str | Path, frames_per_phase: int = 6,
             step_ms: int = 110, hold_ms: int = 1800) -> int:
    """Write the whole animation as a looping GIF; returns the number of frames.

    Raises:
        ValueError: the scene has no phases (a failed variant).
        OSError: the file cannot be written.
    """
    from PIL import Image

    if renderer.phase_count == 0:
        raise ValueError(f"nothing to animate: {renderer.scene.error or 'no phases'}")
    frames, durations = [], []
    for phase, t, ms in animation_frames(renderer.phase_count, frames_per_phase, step_ms,
                                         hold_ms):
        img = to_pil(renderer.image(phase, t))
        frames.append(img.quantize(colors=255, method=Image.Quantize.MEDIANCUT,
                                   dither=Image.Dither.NONE))
        durations.append(ms)
    path = Path(path)
    frames[0].save(path, save_all=True, append_images=frames[1:], duration=durations,
                   loop=0, disposal=1)
    return len(frames)
