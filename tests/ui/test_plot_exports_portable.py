"""Every timing plot's SVG and PDF, read by other programs' renderers, shows what its PNG shows.

The PNG is Qt's raster of the plot. The SVG is rasterised by librsvg
(``rsvg-convert``) and by CairoSVG, the PDF by poppler (``pdftoppm``), and each
is compared with the PNG where the picture has something to say: the colour
at the centre of every marker and bar, the ink in the title, legend and caption
boxes, and no large area of a series colour where the PNG has background (what
the SVG Tiny markers Qt writes look like in librsvg: the last test shows the
comparison catches that). The PDF's text is read back with ``pdftotext``.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pyqtgraph as pg
import pytest
from PySide6.QtCore import QPointF

from jaxviz.model.timing import TimingRun
from tests.helpers.rasters import (
    Landmarks,
    cairosvg,
    differences,
    pdf_pages,
    pdftoppm,
    pdftotext,
    plain_title,
    png,
    rsvg,
)

# Not in the fast tier: every export written and read back by external programs.
pytestmark = pytest.mark.slow

SIZE = (1280, 720)
KINDS = ("dispatch_vs_complete", "timeline", "variants", "sweep")
SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def run(measured_run) -> TimingRun:
    return measured_run


def _centre(view, plot, x: float, y: float) -> tuple[float, float]:
    p = view.mapFromScene(plot.vb.mapViewToScene(QPointF(float(x), float(y))))
    return p.x(), p.y()


def landmarks(fig, view) -> Landmarks:
    """Every solid marker and every bar of the figure, and its text boxes, in pixels."""
    colours = fig.style.colours
    # Markers are 8+ pixels: their colour is within a quarter of their size of the centre
    # (the dispatch plot's connectors run through the centres).
    marks = Landmarks(background=colours.background, reach=max(2, fig.style.marker_px // 4),
                      colours=[colours.dispatch, colours.ready, colours.device,
                               colours.foreground, *colours.phases.values()])
    for plot in fig.plots:
        for item in plot.items:
            scatter = item.scatter if isinstance(item, pg.PlotDataItem) else item
            if isinstance(scatter, pg.ScatterPlotItem) and scatter.isVisible():
                brush = scatter.opts["brush"]
                if brush is None or brush.color().alpha() < 255 or scatter.opts["size"] < 8:
                    continue  # the faint dots of every call, the invisible hover targets
                for k, (x, y) in enumerate(zip(scatter.data["x"], scatter.data["y"])):
                    marks.spots.append((f"marker {k} of {type(item).__name__}",
                                        _centre(view, plot, x, y), brush.color().name()))
            elif isinstance(item, pg.BarGraphItem):
                o = item.opts
                for k, (x0, w, y) in enumerate(zip(o["x0"], o["width"], o["y"])):
                    (xa, ya), (xb, yb) = (_centre(view, plot, x0, y - o["height"] / 2),
                                          _centre(view, plot, x0 + w, y + o["height"] / 2))
                    if abs(xb - xa) >= 8 and abs(yb - ya) >= 8:
                        marks.spots.append((f"bar {k}", ((xa + xb) / 2, (ya + yb) / 2),
                                            pg.mkBrush(o["brush"]).color().name()))
    for name in ("title", "legend", "caption_label"):
        label = getattr(fig, name).item
        r = view.mapFromScene(label.sceneBoundingRect()).boundingRect()
        marks.texts.append((name, (max(r.left(), 0), max(r.top(), 0),
                                   min(r.right(), SIZE[0]), min(r.bottom(), SIZE[1]))))
    return marks


@pytest.fixture(scope="module")
def exported(run, tmp_path_factory):
    """(kind, theme) -> (the figure's landmarks, its title, the PNG, SVG and PDF written)."""
    from jaxviz.ui.exporters import find
    from jaxviz.ui.plots import build_figure
    from jaxviz.ui.plots.render import laid_out

    out = tmp_path_factory.mktemp("plots")
    cache = {}

    def get(kind: str, theme: str):
        if (kind, theme) not in cache:
            fig = build_figure(kind, run, SIZE, theme)
            with laid_out(fig, SIZE) as view:
                marks = landmarks(fig, view)
            files = {ext: find("plot", ext).write(run, out / f"{kind}_{theme}.{ext}", kind=kind,
                                                  size=SIZE, theme=theme, figure=fig)
                     for ext in ("png", "svg", "pdf")}
            cache[kind, theme] = marks, plain_title(fig), files
        return cache[kind, theme]

    return get


RENDERERS = {"rsvg-convert": ("svg", rsvg), "CairoSVG": ("svg", cairosvg),
             "pdftoppm": ("pdf", pdftoppm)}


@pytest.mark.parametrize("renderer", list(RENDERERS))
@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("kind", KINDS)
def test_vector_exports_render_like_the_png(exported, kind, theme, renderer):
    marks, _title, files = exported(kind, theme)
    assert len(marks.spots) >= 4, "the figure shows no markers or bars to compare"
    ext, rasterise = RENDERERS[renderer]
    picture = rasterise(files[ext])
    assert differences(png(files["png"]), picture, marks) == []


@pytest.mark.parametrize("kind", KINDS)
def test_text_stays_text_searchable_in_svg_and_pdf(exported, kind):
    _marks, title, files = exported(kind, "light")
    root = ET.parse(files["svg"]).getroot()
    svg_words = " ".join(" ".join((t.text or "").split()) for t in root.iter(f"{SVG}text"))
    assert title in svg_words
    families = {t.get("font-family") for t in root.iter(f"{SVG}text")}
    assert families and all(f.split(", ")[-1] in ("sans-serif", "monospace") for f in families)
    assert title in pdftotext(files["pdf"])
    pages, points = pdf_pages(files["pdf"])
    assert pages == 1 and points == pytest.approx((SIZE[0] * 0.75, SIZE[1] * 0.75), abs=0.5)


def test_the_comparison_catches_svg_tiny_markers(run, exported, tmp_path):
    """The SVG Qt's own generator writes (scatter markers as unit shapes under a x20
    scale, strokes relying on vector-effect) differs in librsvg: the comparison says so."""
    from PySide6.QtCore import QRect, QSize
    from PySide6.QtSvg import QSvgGenerator

    from jaxviz.ui.plots import build_figure
    from jaxviz.ui.plots.render import paint_figure

    marks, _title, files = exported("variants", "light")
    generator = QSvgGenerator()
    generator.setFileName(str(tmp_path / "tiny.svg"))
    generator.setSize(QSize(*SIZE))
    generator.setViewBox(QRect(0, 0, *SIZE))
    generator.setResolution(96)
    paint_figure(build_figure("variants", run, SIZE, "light"), generator, SIZE)
    found = differences(png(files["png"]), rsvg(tmp_path / "tiny.svg", SIZE), marks)
    assert any("where the PNG is background" in f for f in found), found


def test_one_pdf_holds_every_plot_a_page_each(run, exported, tmp_path):
    """``jaxviz time --out timing.pdf``: a page per plot, in order, each drawn like its PNG."""
    from jaxviz.ui.exporters import write_plot_file

    [pdf] = write_plot_file(run, tmp_path / "timing.pdf", SIZE, "dark")
    pages, points = pdf_pages(pdf)
    assert pages == len(KINDS) and points == pytest.approx((SIZE[0] * 0.75, SIZE[1] * 0.75),
                                                           abs=0.5)
    for page, kind in enumerate(KINDS, start=1):
        marks, title, files = exported(kind, "dark")
        assert title in pdftotext(pdf, page)
        assert differences(png(files["png"]), pdftoppm(pdf, page), marks) == [], kind


def test_one_image_file_per_plot_or_the_one_asked_for(run, tmp_path):
    from jaxviz.ui.exporters import write_plot_file

    written = write_plot_file(run, tmp_path / "timing.png", SIZE)
    assert [p.name for p in written] == [f"timing-{kind}.png" for kind in KINDS]
    assert all(png(p).shape == (SIZE[1], SIZE[0], 3) for p in written)
    [svg] = write_plot_file(run, tmp_path / "v.svg", SIZE, kinds=["variants"])
    assert svg == tmp_path / "v.svg" and sorted(tmp_path.glob("v*")) == [svg]
    assert ET.parse(svg).getroot().find(f"{SVG}title").text == "jaxviz timing: variants"
    with pytest.raises(ValueError, match=r"\.png, \.svg, \.pdf"):
        write_plot_file(run, tmp_path / "timing.csv", SIZE)
