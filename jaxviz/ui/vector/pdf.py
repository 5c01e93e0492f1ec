"""PDF pages sized in pixels: vector shapes, text kept as text (fonts embedded).

Qt's PDF writer draws every QPainter call as PDF vectors and writes text with
its font embedded (subset) and mapped back to Unicode, so a PDF viewer can
select and search it and ``pdftotext`` reads it. Pages are the drawing's size
at 96 pixels per inch (a 1920x1080 plot is a 20 x 11.25 inch page), so pen
widths and font sizes are those of the PNG; LaTeX scales it with
``\\includegraphics[width=...]``.

Example:
    >>> with pdf_pages("frames.pdf", (1280, 720), title="convolve") as pages:  # doctest: +SKIP
    ...     for phase in range(3):
    ...         painter = pages.next_page()
    ...         renderer.paint(painter, phase, 1.0)
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from PySide6.QtCore import QMarginsF, QSizeF
from PySide6.QtGui import QPageLayout, QPageSize, QPainter, QPdfWriter

#: Pixels per inch of a PDF page: a QImage's, so sizes match the PNG.
DPI = 96


class PdfPages:
    """The pages of one PDF being written: :meth:`next_page` gives a painter for the next."""

    def __init__(self, path: Path, size: tuple[int, int], title: str = ""):
        self.path = path
        self.size = size
        self.writer = QPdfWriter(str(path))
        self.writer.setResolution(DPI)
        self.writer.setCreator("jaxviz")
        if title:
            self.writer.setTitle(title)
        points = QSizeF(size[0] * 72.0 / DPI, size[1] * 72.0 / DPI)
        self.writer.setPageLayout(QPageLayout(
            QPageSize(points, QPageSize.Unit.Point, "", QPageSize.SizeMatchPolicy.ExactMatch),
            QPageLayout.Orientation.Portrait, QMarginsF(0, 0, 0, 0)))
        self.painter: QPainter | None = None
        self.pages = 0

    def next_page(self) -> QPainter:
        """A painter on a new page, its coordinates in pixels of the drawing.

        Raises:
            OSError: the file cannot be written.
        """
        if self.painter is None:
            self.painter = QPainter()
            if not self.painter.begin(self.writer):
                raise OSError(f"could not write {self.path}")
        elif not self.writer.newPage():
            raise OSError(f"could not add a page to {self.path}")
        self.pages += 1
        for hint in (QPainter.RenderHint.Antialiasing, QPainter.RenderHint.TextAntialiasing):
            self.painter.setRenderHint(hint, True)
        return self.painter

    def close(self) -> None:
        if self.painter is not None and self.painter.isActive():
            self.painter.end()


@contextmanager
def pdf_pages(path: str | Path, size: tuple[int, int], title: str = "") -> Iterator[PdfPages]:
    """A PDF at ``path`` whose pages are ``size`` pixels; closed (written) on leaving.

    Raises:
        OSError: the file could not be written, or no page was drawn.
    """
    path = Path(path)
    pages = PdfPages(path, size, title)
    try:
        yield pages
    finally:
        pages.close()
    if pages.pages == 0 or not path.is_file() or path.stat().st_size == 0:
        raise OSError(f"could not write {path}")
