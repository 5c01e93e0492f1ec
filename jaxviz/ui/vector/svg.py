"""A QPaintDevice that writes plain SVG 1.1: every shape in output coordinates.

Qt's own :class:`PySide6.QtSvg.QSvgGenerator` writes SVG Tiny 1.2: each shape
keeps the painter's transform (pyqtgraph plots data under transforms that
scale by hundreds, scatter markers as unit shapes scaled by their size) and
cosmetic pens become ``vector-effect="non-scaling-stroke"``. Qt's renderer and
Chromium honour that; librsvg and CairoSVG do not, and scale the 1-unit
strokes into huge filled shapes. Its fonts are Qt's names (``Sans Serif``),
which no CSS renderer knows, so browsers fall back to a serif face.

:class:`SvgDevice` receives the same painting as the PNG (any ``QPainter``
code: a whole ``QGraphicsScene``, the device view) through a small paint
engine and writes what each call drew:

* paths, polygons, rectangles and ellipses as ``<path>`` elements whose
  coordinates are already mapped to the output (pixels of the viewBox), with
  the stroke width the pen had on screen (a cosmetic pen's width as is, a
  scaled pen's width times the scale): no transforms, no ``vector-effect``;
* text as ``<text>`` (selectable, searchable) at Qt's baseline position, in
  the font Qt used followed by a portable stack ending in a CSS generic family
  (``DejaVu Sans, Helvetica, Arial, sans-serif``);
* clipping as ``<clipPath>`` (SVG 1.1), images as embedded PNG;
* a ``width``/``height`` in px and a ``viewBox`` of the same size.

Solid colours (with alpha and the painter's opacity) are written exactly;
other brushes (gradients, patterns: nothing jaxviz draws uses them) are
written in their first colour.

Example:
    >>> device = SvgDevice(1280, 720, title="timeline")           # doctest: +SKIP
    >>> painter = QPainter(device); scene.render(painter); painter.end()  # doctest: +SKIP
    >>> device.save("timeline.svg")                               # doctest: +SKIP
"""

from __future__ import annotations

import base64
import html
import math
from pathlib import Path

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QPoint, QPointF, QRect, QRectF, Qt
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontInfo,
    QImage,
    QPaintDevice,
    QPaintEngine,
    QPaintEngineState,
    QPainter,
    QPainterPath,
    QPen,
    QPixmap,
    QPolygonF,
    QTextItem,
    QTransform,
)

#: Fonts after the one Qt used, by kind: the faces slide programs and browsers have.
FONT_STACKS = {
    "sans-serif": ["DejaVu Sans", "Helvetica", "Arial", "sans-serif"],
    "monospace": ["DejaVu Sans Mono", "Menlo", "Consolas", "monospace"],
    "serif": ["DejaVu Serif", "Times New Roman", "Times", "serif"],
}
#: Qt's family names that are no font of their own (fontconfig aliases).
_QT_ALIASES = {"sans serif", "sans", "serif", "monospace", "mono", "helvetica"}

_CAPS = {Qt.PenCapStyle.FlatCap: "butt", Qt.PenCapStyle.SquareCap: "square",
         Qt.PenCapStyle.RoundCap: "round"}
_JOINS = {Qt.PenJoinStyle.MiterJoin: "miter", Qt.PenJoinStyle.SvgMiterJoin: "miter",
          Qt.PenJoinStyle.BevelJoin: "bevel", Qt.PenJoinStyle.RoundJoin: "round"}
_Metric = QPaintDevice.PaintDeviceMetric
_Element = QPainterPath.ElementType
_Feature = QPaintEngine.PaintEngineFeature
_Dirty = QPaintEngine.DirtyFlag
_CLIP_FLAGS = _Dirty.DirtyClipPath | _Dirty.DirtyClipRegion | _Dirty.DirtyClipEnabled


def num(value: float) -> str:
    """A coordinate for SVG: at most 2 decimals, no trailing zeros (``12``, ``3.5``)."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def path_data(path: QPainterPath) -> str:
    """SVG path data (``M``, ``L``, ``C``, ``Z``) of a path already in output coordinates."""
    parts: list[str] = []
    start: tuple[float, float] | None = None
    last: tuple[float, float] | None = None
    count = path.elementCount()
    i = 0
    while i < count:
        e = path.elementAt(i)
        if e.type == _Element.MoveToElement:
            parts.append(f"M{num(e.x)} {num(e.y)}")
            start = last = (e.x, e.y)
        elif e.type == _Element.LineToElement:
            closes = start is not None and last != start and (e.x, e.y) == start
            parts.append("Z" if closes else f"L{num(e.x)} {num(e.y)}")
            last = (e.x, e.y)
        elif e.type == _Element.CurveToElement and i + 2 < count:
            c2, end = path.elementAt(i + 1), path.elementAt(i + 2)
            parts.append(f"C{num(e.x)} {num(e.y)} {num(c2.x)} {num(c2.y)} "
                         f"{num(end.x)} {num(end.y)}")
            last = (end.x, end.y)
            i += 2
        i += 1
    return "".join(parts)


def font_family(font: QFont) -> str:
    """A CSS font-family list: the face Qt used, then a portable stack and a generic family."""
    if font.styleHint() == QFont.StyleHint.Monospace or font.fixedPitch():
        generic = "monospace"
    elif font.styleHint() == QFont.StyleHint.Serif:
        generic = "serif"
    else:
        generic = "sans-serif"
    used = QFontInfo(font).family()
    names = [used] if used and used.lower() not in _QT_ALIASES else []
    names += [n for n in FONT_STACKS[generic] if n not in names]
    return ", ".join(n if n.replace(" ", "").isalnum() or n == generic
                     else "'" + n.replace("'", "") + "'" for n in names)


def _colour(colour: QColor) -> str:
    return colour.name(QColor.NameFormat.HexRgb)


def _scale(t: QTransform) -> float:
    """The length scale of ``t`` (its area scale's square root)."""
    return math.sqrt(abs(t.determinant())) or 1.0


def _isotropic(t: QTransform) -> bool:
    """True when ``t`` scales lengths equally in every direction (no skew, no squash)."""
    a, b, c, d = t.m11(), t.m12(), t.m21(), t.m22()
    return math.isclose(a * a + b * b, c * c + d * d, rel_tol=1e-3) and \
        abs(a * c + b * d) <= 1e-3 * (a * a + b * b + 1e-12)


class _SvgEngine(QPaintEngine):
    """Turns each drawing call into SVG elements (see the module docstring)."""

    def __init__(self, device: SvgDevice):
        super().__init__(_Feature.AllFeatures & ~_Feature.PerspectiveTransform)
        self.device = device
        self._clip_dirty = True
        self._clip_id = ""
        self._clip_enabled = False
        self._clip_shape: QPainterPath | None = None

    # -- what QPaintEngine asks ------------------------------------------- #

    def begin(self, pdev: QPaintDevice) -> bool:  # noqa: ARG002 - the device is ours
        self._clip_dirty, self._clip_enabled, self._clip_shape = True, False, None
        return True

    def end(self) -> bool:
        return True

    def type(self) -> QPaintEngine.Type:
        return QPaintEngine.Type.User

    def updateState(self, state: QPaintEngineState) -> None:  # noqa: N802 - Qt's name
        # The clip is followed here, in output coordinates, as QPainter sets it:
        # QPainter.clipPath() would map it back through the current transform via
        # integer regions, and under a plot's data transform that rounds the clip
        # to whole data units.
        flags = state.state()
        if flags & _Dirty.DirtyClipEnabled:
            self._clip_enabled = state.isClipEnabled()
            self._clip_dirty = True
        if flags & (_Dirty.DirtyClipPath | _Dirty.DirtyClipRegion):
            if flags & _Dirty.DirtyClipPath:
                shape = state.clipPath()
            else:
                shape = QPainterPath()
                shape.addRegion(state.clipRegion())
            shape = state.transform().map(shape)
            op = state.clipOperation()
            if op == Qt.ClipOperation.NoClip:
                self._clip_shape = None
            elif op == Qt.ClipOperation.IntersectClip and self._clip_shape is not None:
                self._clip_shape = self._clip_shape.intersected(shape)
            else:
                self._clip_shape = shape
            self._clip_dirty = True

    def drawPath(self, path: QPainterPath) -> None:  # noqa: N802 - Qt's name
        self._shape(path, filled=True)

    def drawPolygon(self, points, mode: QPaintEngine.PolygonDrawMode) -> None:  # noqa: N802
        path = QPainterPath()
        path.addPolygon(QPolygonF([QPointF(p) for p in points]))
        polyline = mode == QPaintEngine.PolygonDrawMode.PolylineMode
        if not polyline:
            path.closeSubpath()
            path.setFillRule(Qt.FillRule.OddEvenFill
                             if mode == QPaintEngine.PolygonDrawMode.OddEvenMode
                             else Qt.FillRule.WindingFill)
        self._shape(path, filled=not polyline)

    def drawPixmap(self, r: QRectF | QRect, pm: QPixmap | QImage,  # noqa: N802 - Qt's name
                   sr: QRectF | QRect) -> None:
        self._image(QRectF(r), pm.toImage() if isinstance(pm, QPixmap) else pm, QRectF(sr))

    def drawImage(self, r: QRectF | QRect, pm: QImage, sr: QRectF | QRect,  # noqa: N802
                  flags: Qt.ImageConversionFlag = Qt.ImageConversionFlag.AutoColor) -> None:
        self._image(QRectF(r), pm, QRectF(sr))

    def drawTextItem(self, p: QPointF | QPoint | QPainterPath.Element,  # noqa: N802 - Qt's name
                     textItem: QTextItem) -> None:  # noqa: N803 - Qt's name
        p = QPointF(p.x, p.y) if isinstance(p, QPainterPath.Element) else QPointF(p)
        text = textItem.text()
        if not text.strip():
            return
        painter = self.painter()
        font = textItem.font()
        px = font.pixelSize()
        size = float(px) if px > 0 else font.pointSizeF() * self.device.dpi / 72.0
        t = painter.deviceTransform()
        attrs = {"font-family": font_family(font), "font-weight": str(int(font.weight())),
                 "fill": _colour(painter.pen().color())}
        if font.italic():
            attrs["font-style"] = "italic"
        opacity = painter.pen().color().alphaF() * painter.opacity()
        if opacity < 1.0:
            attrs["fill-opacity"] = num(opacity)
        # (QTransform.type() is not used: int() of its result crashes PySide6 6.11.)
        if t.m12() == 0 and t.m21() == 0 and t.isAffine() and _isotropic(t) \
                and t.m11() > 0 and t.m22() > 0:
            at = t.map(p)
            attrs.update({"x": num(at.x()), "y": num(at.y()),
                          "font-size": num(size * t.m11())})
            length = textItem.width() * t.m11()
        else:  # rotated (a vertical axis label) or mirrored: keep the transform
            attrs.update({"x": num(p.x()), "y": num(p.y()), "font-size": num(size),
                          "transform": self._matrix(t)})
            length = textItem.width()
        if length > 0 and len(text) > 1:
            # The width Qt laid the text out in: a renderer whose face is a little
            # wider or narrower (another font, other hinting) spaces the letters to
            # fit, so text never runs into its neighbours or out of its box.
            attrs["textLength"] = num(length)
        # A clip that cut nothing of the text in Qt (a text item's own box, say) is
        # left out: a renderer whose face is wider must not lose the last letters.
        box = QRectF(p.x(), p.y() - textItem.ascent(), textItem.width(),
                     textItem.ascent() + textItem.descent())
        clip = self._clip()
        if clip and self._clip_shape is not None and self._clip_shape.contains(t.mapRect(box)):
            clip = ""
        self.device._add(clip, "text", attrs, html.escape(text, quote=False))

    # -- writing ---------------------------------------------------------- #

    @staticmethod
    def _matrix(t: QTransform) -> str:
        values = (t.m11(), t.m12(), t.m21(), t.m22(), t.dx(), t.dy())
        return "matrix(" + " ".join(f"{v:.6g}" for v in values) + ")"

    def _clip(self) -> str:
        """The id of the current clip (``""`` without one), writing it on first use."""
        if self._clip_dirty:
            self._clip_dirty = False
            if not self._clip_enabled or self._clip_shape is None:
                self._clip_id = ""
            else:
                self._clip_id = self.device._clip_path(path_data(self._clip_shape))
        return self._clip_id

    def _emit(self, tag: str, attrs: dict[str, str], content: str = "") -> None:
        self.device._add(self._clip(), tag, attrs, content)

    def _shape(self, path: QPainterPath, filled: bool) -> None:
        painter = self.painter()
        pen, brush, t = painter.pen(), painter.brush(), painter.deviceTransform()
        opacity = painter.opacity()
        attrs: dict[str, str] = {}
        no_fill = not filled or brush.style() == Qt.BrushStyle.NoBrush
        if no_fill:
            attrs["fill"] = "none"
        else:
            self._paint_attrs(attrs, "fill", self._brush_colour(brush), opacity)
            if path.fillRule() == Qt.FillRule.OddEvenFill:
                attrs["fill-rule"] = "evenodd"
        if pen.style() == Qt.PenStyle.NoPen:
            if no_fill:
                return
            attrs["stroke"] = "none"
            keep_transform = False
        else:
            keep_transform = not pen.isCosmetic() and not _isotropic(t)
            scale = 1.0 if pen.isCosmetic() or keep_transform else _scale(t)
            self._stroke_attrs(attrs, pen, scale, opacity)
        if not painter.testRenderHint(QPainter.RenderHint.Antialiasing):
            attrs["shape-rendering"] = "crispEdges"
        if keep_transform:  # a scaled pen squashed by the transform: SVG 1.1 squashes it too
            attrs["d"] = path_data(path)
            attrs["transform"] = self._matrix(t)
        else:
            attrs["d"] = path_data(t.map(path))
        if attrs["d"]:
            self._emit("path", attrs)

    @staticmethod
    def _brush_colour(brush: QBrush) -> QColor:
        gradient = brush.gradient()
        if gradient is not None and gradient.stops():
            return gradient.stops()[0][1]
        return brush.color()

    @staticmethod
    def _paint_attrs(attrs: dict[str, str], what: str, colour: QColor, opacity: float) -> None:
        attrs[what] = _colour(colour)
        alpha = colour.alphaF() * opacity
        if alpha < 1.0:
            attrs[f"{what}-opacity"] = num(alpha) if alpha >= 0.005 else "0"

    def _stroke_attrs(self, attrs: dict[str, str], pen: QPen, scale: float,
                      opacity: float) -> None:
        colour = pen.color() if pen.brush().style() == Qt.BrushStyle.SolidPattern \
            else self._brush_colour(pen.brush())
        self._paint_attrs(attrs, "stroke", colour, opacity)
        width = (pen.widthF() or 1.0) if pen.isCosmetic() else pen.widthF() * scale
        # Qt draws a zero-width non-cosmetic pen one pixel wide too.
        width = width or 1.0
        attrs["stroke-width"] = num(width)
        attrs["stroke-linecap"] = _CAPS.get(pen.capStyle(), "square")
        join = _JOINS.get(pen.joinStyle(), "bevel")
        attrs["stroke-linejoin"] = join
        if join == "miter":
            attrs["stroke-miterlimit"] = num(max(pen.miterLimit(), 1.0))
        if pen.style() not in (Qt.PenStyle.SolidLine, Qt.PenStyle.NoPen):
            unit = max(width, 1.0)  # Qt's dash pattern is in pen widths
            dashes = [d * unit for d in pen.dashPattern()]
            if dashes:
                attrs["stroke-dasharray"] = ",".join(num(max(d, 0.01)) for d in dashes)
                if pen.dashOffset():
                    attrs["stroke-dashoffset"] = num(pen.dashOffset() * unit)

    def _image(self, r: QRectF, image: QImage, sr: QRectF) -> None:
        if image.isNull():
            return
        part = image.copy(sr.toRect()) if sr.isValid() and sr.toRect() != image.rect() \
            else image
        data = QByteArray()
        buffer = QBuffer(data)
        buffer.open(QIODevice.OpenModeFlag.WriteOnly)
        part.save(buffer, "PNG")  # type: ignore[call-overload]  # (stub: bytes)
        buffer.close()
        href = "data:image/png;base64," + base64.b64encode(bytes(data.data())).decode("ascii")
        attrs = {"x": num(r.x()), "y": num(r.y()), "width": num(r.width()),
                 "height": num(r.height()), "preserveAspectRatio": "none",
                 "xlink:href": href}
        t = self.painter().deviceTransform()
        if not t.isIdentity():
            attrs["transform"] = self._matrix(t)
        if self.painter().opacity() < 1.0:
            attrs["opacity"] = num(self.painter().opacity())
        self._emit("image", attrs)


class SvgDevice(QPaintDevice):
    """Paint on it like on a QImage; :meth:`save` writes what was drawn as SVG 1.1.

    Args:
        width, height: the picture in pixels (also its viewBox).
        dpi: the resolution fonts given in points are sized for (96, as a QImage).
        title, description: the SVG's ``<title>`` and ``<desc>`` (what it shows, for
            screen readers and file browsers).
    """

    def __init__(self, width: int, height: int, dpi: int = 96, title: str = "",
                 description: str = ""):
        super().__init__()
        self.size_px, self.dpi = (int(width), int(height)), int(dpi)
        self.title, self.description = title, description
        self._engine = _SvgEngine(self)
        self._clips: dict[str, str] = {}
        self._body: list[str] = []
        self._open_clip = ""

    def paintEngine(self) -> QPaintEngine:  # noqa: N802 - Qt's name
        return self._engine

    def metric(self, metric: QPaintDevice.PaintDeviceMetric) -> int:
        w, h = self.size_px
        mm = 25.4 / self.dpi
        values: dict[QPaintDevice.PaintDeviceMetric, int] = {
            _Metric.PdmWidth: w, _Metric.PdmHeight: h,
            _Metric.PdmWidthMM: round(w * mm), _Metric.PdmHeightMM: round(h * mm),
            _Metric.PdmDpiX: self.dpi, _Metric.PdmDpiY: self.dpi,
            _Metric.PdmPhysicalDpiX: self.dpi, _Metric.PdmPhysicalDpiY: self.dpi,
            _Metric.PdmDepth: 32, _Metric.PdmNumColors: 0x7FFFFFFF,
            _Metric.PdmDevicePixelRatio: 1,
            # Qt reads the ratio scaled by QPaintDevice.devicePixelRatioFScale() (65536).
            _Metric.PdmDevicePixelRatioScaled: int(QPaintDevice.devicePixelRatioFScale()),
        }
        return values.get(metric, 0)

    # -- the engine's side ------------------------------------------------- #

    def _clip_path(self, data: str) -> str:
        if not data:
            return ""
        w, h = self.size_px
        full = f"M0 0L{w} 0L{w} {h}L0 {h}Z"
        if data == full:
            return ""
        if data not in self._clips:
            self._clips[data] = f"clip{len(self._clips) + 1}"
        return self._clips[data]

    def _add(self, clip: str, tag: str, attrs: dict[str, str], content: str) -> None:
        if clip != self._open_clip:
            if self._open_clip:
                self._body.append("</g>")
            if clip:
                self._body.append(f'<g clip-path="url(#{clip})">')
            self._open_clip = clip
        text = " ".join(f'{k}="{html.escape(v)}"' for k, v in attrs.items())
        if tag == "text":
            self._body.append(f'<text xml:space="preserve" {text}>{content}</text>')
        else:
            self._body.append(f"<{tag} {text}/>")

    # -- the result -------------------------------------------------------- #

    def svg(self) -> str:
        """The document: what was painted so far."""
        w, h = self.size_px
        head = [
            '<?xml version="1.0" encoding="UTF-8" standalone="no"?>',
            f'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"'
            f' version="1.1" width="{w}px" height="{h}px" viewBox="0 0 {w} {h}">',
        ]
        if self.title:
            head.append(f"<title>{html.escape(self.title, quote=False)}</title>")
        if self.description:
            head.append(f"<desc>{html.escape(self.description, quote=False)}</desc>")
        if self._clips:
            head.append("<defs>")
            head += [f'<clipPath id="{cid}" clipPathUnits="userSpaceOnUse"><path d="{d}"/>'
                     f"</clipPath>" for d, cid in self._clips.items()]
            head.append("</defs>")
        tail = ["</g>"] if self._open_clip else []
        return "\n".join(head + self._body + tail + ["</svg>", ""])

    def save(self, path: str | Path) -> Path:
        """Write the document to ``path``.

        Raises:
            OSError: the file could not be written.
        """
        path = Path(path)
        path.write_text(self.svg(), encoding="utf-8")
        return path
