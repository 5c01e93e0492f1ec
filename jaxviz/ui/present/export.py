"""The deck as handouts: one PDF page per slide, or one PNG per slide.

The pages are painted by :class:`~jaxviz.ui.present.paint.SlidePainter`, the
drawing the presentation window shows, at the size asked for. Needs a Qt
application (``ensure_app``: offscreen without a display).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QImage, QPainter

from jaxviz.ui.present.paint import SlidePainter
from jaxviz.ui.vector.pdf import pdf_pages
from jaxviz.views.present.deck import Slide


def slide_image(slide: Slide, size: tuple[int, int], theme: str = "light", number: int = 1,
                count: int = 1, title: str = "", whole: bool = False) -> QImage:
    """One slide as an RGB image of ``size``."""
    image = QImage(size[0], size[1], QImage.Format.Format_RGB32)
    painter = QPainter(image)
    try:
        SlidePainter(slide, theme, number, count, whole, title).paint(painter, *size)
    finally:
        painter.end()
    return image


def write_pdf(slides: list[Slide], path: str | Path, size: tuple[int, int],
              theme: str = "light", title: str = "") -> Path:
    """Every slide as one page of a vector PDF.

    Raises:
        OSError: the file cannot be written.
    """
    path = Path(path)
    with pdf_pages(path, size, title=title or "jaxviz lecture") as pages:
        for number, slide in enumerate(slides, 1):
            painter = pages.next_page()
            SlidePainter(slide, theme, number, len(slides), title=title).paint(painter, *size)
    return path


def write_pngs(slides: list[Slide], folder: str | Path, size: tuple[int, int],
               theme: str = "light", title: str = "") -> list[Path]:
    """Every slide as ``folder/slide-01.png`` ... (the folder is made if missing).

    Raises:
        OSError: a file cannot be written.
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    digits = max(2, len(str(len(slides))))
    paths = []
    for number, slide in enumerate(slides, 1):
        path = folder / f"slide-{number:0{digits}d}.png"
        if not slide_image(slide, size, theme, number, len(slides), title).save(str(path)):
            raise OSError(f"could not write {path}")
        paths.append(path)
    return paths
