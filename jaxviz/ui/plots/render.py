"""Render timing figures without a display: onto any paint device, a PNG, or a QImage.

Works under ``QT_QPA_PLATFORM=offscreen`` (set automatically when there is no
display). :func:`paint_figure` paints a figure onto any ``QPaintDevice``: the
image formats here, the vector formats (SVG, PDF) in :mod:`jaxviz.ui.exporters`,
so every format shows the same drawing.

Headless rendering starts with :func:`ensure_app`
(:func:`jaxviz.ui.theme.qt_guard.ensure_app`: offscreen without a display,
guarded against PySide6 6.12.0's reference bug).

Every render builds a fresh figure from the run, lays it out at the exact
size in a hidden view, paints it and tears the view down again (a view left
to the interpreter's exit can crash PySide6 during shutdown).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pyqtgraph as pg
from PySide6 import QtCore, QtGui

from jaxviz.model.timing import TimingRun
from jaxviz.ui.plots.base import Style, TimingFigure
from jaxviz.ui.plots.dispatch import DispatchFigure
from jaxviz.ui.plots.sweep import SweepFigure
from jaxviz.ui.plots.timeline import TimelineFigure
from jaxviz.ui.plots.variants import VariantsFigure
from jaxviz.ui.theme.qt_guard import ensure_app
from jaxviz.ui.theme.style import qcolor

DEFAULT_SIZE = (1920, 1080)


#: Every timing plot, by the name its files get.
FIGURES: dict[str, type[TimingFigure]] = {
    "dispatch_vs_complete": DispatchFigure,
    "timeline": TimelineFigure,
    "variants": VariantsFigure,
    "sweep": SweepFigure,
}


def build_figure(kind: str, run: TimingRun, size: tuple[int, int] = DEFAULT_SIZE,
                 theme: str = "light", font_scale: float = 1.0, **options) -> TimingFigure:
    """A figure of ``kind`` drawn from ``run``, sized for a ``size`` image filling a slide
    (its smallest text 18 pt there, times ``font_scale``: :meth:`Style.for_size`)."""
    try:
        cls = FIGURES[kind]
    except KeyError:
        raise ValueError(f"unknown plot {kind!r}; choose from {', '.join(FIGURES)}") from None
    ensure_app()
    figure = cls(Style.for_size(size[0], size[1], theme, font_scale), width=size[0], **options)
    figure.update(run)
    return figure


@contextmanager
def laid_out(figure: TimingFigure, size: tuple[int, int]) -> Iterator[pg.GraphicsView]:
    """A hidden view showing ``figure`` at ``size``; torn down afterwards."""
    app = ensure_app()
    view = pg.GraphicsView()
    view.setAttribute(QtCore.Qt.WidgetAttribute.WA_DontShowOnScreen, True)
    view.setBackground(figure.style.colours.background)
    view.setAntialiasing(True)
    view.setCentralItem(figure.layout)
    view.resize(*size)
    view.show()
    for _ in range(3):
        app.processEvents()
    try:
        yield view
    finally:
        view.setCentralItem(pg.GraphicsLayout())
        view.close()
        view.deleteLater()
        app.processEvents()


def _paint(view: pg.GraphicsView, painter: QtGui.QPainter, size: tuple[int, int],
           background: str) -> None:
    painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing, True)
    painter.setRenderHint(QtGui.QPainter.RenderHint.TextAntialiasing, True)
    rect = QtCore.QRectF(0, 0, *size)
    painter.fillRect(rect, qcolor(background))
    # Export mode, as pyqtgraph's exporters set it: scatter symbols are then
    # drawn as vector paths instead of cached bitmaps (crisp, real SVG).
    items = [i for i in view.scene().items() if hasattr(i, "setExportMode")]
    for item in items:
        item.setExportMode(True, {"antialias": True, "background": background,
                                  "painter": painter})
    try:
        view.scene().render(painter, rect, rect)
    finally:
        for item in items:
            item.setExportMode(False)


def paint_figure(figure: TimingFigure, target: QtGui.QPaintDevice | QtGui.QPainter,
                 size: tuple[int, int] = DEFAULT_SIZE) -> None:
    """Paint a figure, laid out at ``size``, onto ``target``: a paint device (an image,
    an SVG or PDF writer) or a painter already active on one (a PDF page). The
    background, then the scene, scatter symbols as vector paths.

    The figure's layout moves into a hidden view while it is painted: pass a
    figure built for the export (:func:`build_figure`), not one shown in a
    window -- :func:`render_image` builds one from the same run, with the
    same content, at the export's size and theme. The vector formats paint
    with this too (:mod:`jaxviz.ui.exporters`), so every format shows the
    same drawing.
    """
    with laid_out(figure, size) as view:
        if isinstance(target, QtGui.QPainter):
            target.save()
            try:
                _paint(view, target, size, figure.style.colours.background)
            finally:
                target.restore()
            return
        painter = QtGui.QPainter(target)
        try:
            _paint(view, painter, size, figure.style.colours.background)
        finally:
            painter.end()


def figure_image(figure: TimingFigure, size: tuple[int, int] = DEFAULT_SIZE) -> QtGui.QImage:
    """Paint a figure into an image of ``size`` (see :func:`paint_figure`)."""
    image = QtGui.QImage(size[0], size[1], QtGui.QImage.Format.Format_ARGB32)
    paint_figure(figure, image, size)
    return image


def render_image(kind: str, run: TimingRun, size: tuple[int, int] = DEFAULT_SIZE,
                 theme: str = "light", **options) -> QtGui.QImage:
    """A ``kind`` plot of ``run`` as a QImage of ``size``."""
    return figure_image(build_figure(kind, run, size, theme, **options), size)


def render_png(kind: str, run: TimingRun, path: str | Path, size: tuple[int, int] = DEFAULT_SIZE,
               theme: str = "light", **options) -> Path:
    """Write a ``kind`` plot of ``run`` as a PNG.

    Raises:
        OSError: the file could not be written.
    """
    path = Path(path)
    image = render_image(kind, run, size, theme, **options)
    if not image.save(str(path), "PNG"):  # type: ignore[call-overload]  # (stub: bytes)
        raise OSError(f"could not write {path}")
    return path
