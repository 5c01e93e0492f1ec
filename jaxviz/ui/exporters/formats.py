"""The timing plots' picture formats, registered once: PNG, SVG and PDF (the device
view registers its frames' and animation's formats itself: :mod:`jaxviz.ui.devices.formats`).

The registry itself is :mod:`jaxviz.views.exports` (it also holds the timing
run's data formats); importing this package adds the formats drawn with Qt.
Adding a format is one writer function and one
:func:`~jaxviz.views.exports.register` call here: the CLI (``jaxviz time``,
``jaxviz animate``) and the views' Export menus read the registry.

Every format paints the same drawing: the PNG is Qt's raster of it, the SVG
and PDF its vectors (:mod:`jaxviz.ui.vector`), the animations its frames.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtGui import QImage

from jaxviz.model.timing import TimingRun
from jaxviz.ui.plots.base import TimingFigure
from jaxviz.ui.plots.render import DEFAULT_SIZE, build_figure, figure_image, paint_figure
from jaxviz.ui.vector.pdf import pdf_pages
from jaxviz.ui.vector.svg import SvgDevice
from jaxviz.views.exports import Exporter, exporters, for_suffix, register
from jaxviz.views.timing.stats import available_plots


def _plot_png(run: TimingRun, path: str | Path, kind: str,
              size: tuple[int, int] = DEFAULT_SIZE, theme: str = "light",
              figure: TimingFigure | None = None, **options: Any) -> Path:
    path = Path(path)
    figure = figure or build_figure(kind, run, size, theme, **options)
    image: QImage = figure_image(figure, size)
    if not image.save(str(path), "PNG"):  # type: ignore[call-overload]  # (stub: bytes)
        raise OSError(f"could not write {path}")
    return path


def _plot_svg(run: TimingRun, path: str | Path, kind: str,
              size: tuple[int, int] = DEFAULT_SIZE, theme: str = "light",
              figure: TimingFigure | None = None, **options: Any) -> Path:
    figure = figure or build_figure(kind, run, size, theme, **options)
    device = SvgDevice(size[0], size[1], title=f"jaxviz timing: {figure.kind}",
                       description=figure.caption())
    paint_figure(figure, device, size)
    return device.save(path)


def _plot_pdf(run: TimingRun, path: str | Path, kind: str,
              size: tuple[int, int] = DEFAULT_SIZE, theme: str = "light",
              figure: TimingFigure | None = None, **options: Any) -> Path:
    figure = figure or build_figure(kind, run, size, theme, **options)
    return _figures_pdf([figure], path, size)


def _figures_pdf(figures: list[TimingFigure], path: str | Path,
                 size: tuple[int, int]) -> Path:
    """One PDF page per figure, in order."""
    title = "jaxviz timing: " + ", ".join(f.kind for f in figures)
    with pdf_pages(path, size, title=title) as pages:
        for figure in figures:
            paint_figure(figure, pages.next_page(), size)
    return Path(path)


register(Exporter("plot", "png", ".png", "Plot as PNG image", "PNG images", "{kind}.png",
                  _plot_png))
register(Exporter("plot", "svg", ".svg", "Plot as SVG (vector, for slides)", "SVG images",
                  "{kind}.svg", _plot_svg))
register(Exporter("plot", "pdf", ".pdf", "Plot as PDF (vector, for LaTeX/Beamer)",
                  "PDF documents", "{kind}.pdf", _plot_pdf))
def write_plots(run: TimingRun, out_dir: str | Path, size: tuple[int, int] = DEFAULT_SIZE,
                theme: str = "light", kinds: list[str] | None = None,
                font_scale: float = 1.0) -> list[Path]:
    """Every plot ``run`` has data for (or ``kinds``) in every plot format, into ``out_dir``.

    Every plot writer accepts ``figure=``: a figure already laid out for this
    size and theme (a format added later must accept it too). ``font_scale``
    multiplies the text size (1: the smallest text is 18 pt on a slide).

    Files are named by the formats' default names (``timeline.png``, ...); each
    plot is laid out once and written in every format.

    Raises:
        OSError: a file could not be written (files written before stay).
    """
    out = Path(out_dir)
    written = []
    for kind in kinds if kinds is not None else available_plots(run):
        figure = build_figure(kind, run, size, theme, font_scale)
        for exporter in exporters("plot"):
            written.append(exporter.write(run, out / exporter.default_name.format(kind=kind),
                                          kind=kind, size=size, theme=theme, figure=figure))
    return written


def write_plot_file(run: TimingRun, path: str | Path, size: tuple[int, int] = DEFAULT_SIZE,
                    theme: str = "light", kinds: list[str] | None = None,
                    font_scale: float = 1.0) -> list[Path]:
    """The plots of ``run`` (or ``kinds``) in the one file ``path`` names, by its suffix.

    A PDF gets one page per plot (for LaTeX/Beamer:
    ``\\includegraphics[page=2]{timing.pdf}``). A PNG or SVG holds one picture:
    a single plot goes to ``path`` itself, several to ``STEM-KIND.png`` beside it.

    Raises:
        ValueError: the suffix is no plot format, or there is no plot to draw.
        OSError: a file could not be written (files written before stay).
    """
    path = Path(path)
    kinds = kinds if kinds is not None else available_plots(run)
    if not kinds:
        raise ValueError("the run has no calls to plot")
    exporter = for_suffix("plot", path.suffix)
    if exporter is None:
        suffixes = ", ".join(e.extension for e in exporters("plot"))
        raise ValueError(f"{path.name}: plots are written as {suffixes}")
    figures = [build_figure(kind, run, size, theme, font_scale) for kind in kinds]
    if exporter.name == "pdf":
        return [_figures_pdf(figures, path, size)]
    if len(figures) == 1:
        return [exporter.write(run, path, kind=kinds[0], size=size, theme=theme,
                               figure=figures[0])]
    return [exporter.write(run, path.with_name(f"{path.stem}-{kind}{path.suffix}"), kind=kind,
                           size=size, theme=theme, figure=figure)
            for kind, figure in zip(kinds, figures, strict=True)]
