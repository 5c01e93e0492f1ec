"""Vector files from any QPainter drawing: plain SVG 1.1 and PDF.

The plots (:mod:`jaxviz.ui.plots`) and the device view
(:mod:`jaxviz.ui.devices`) paint with QPainter; painting the same calls
onto these devices gives their vector exports, so every format shows the
same drawing as the PNG.

Modules:
    svg: :class:`~jaxviz.ui.vector.svg.SvgDevice`, a paint device that writes plain
        SVG 1.1 (shapes in output pixels, text as text, generic font families), which
        Qt, librsvg, CairoSVG and browsers render alike.
    pdf: :func:`~jaxviz.ui.vector.pdf.pdf_pages`, a PDF with one page per drawing, sized
        in the drawing's pixels (text stays text, fonts embedded).

May import: Qt only.
"""
