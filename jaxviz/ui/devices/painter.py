"""Draw a display list with QPainter: on screen, into images, into SVG."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetricsF,
    QPainter,
    QPen,
    QPolygonF,
)

from jaxviz.ui.theme.style import qcolor
from jaxviz.views.devices.items import Box, Grid, Item, Path, Ring, Stripes, Text, ring_segments

_ALIGN = {"left": Qt.AlignmentFlag.AlignLeft, "center": Qt.AlignmentFlag.AlignHCenter,
          "right": Qt.AlignmentFlag.AlignRight}
_VALIGN = {"center": Qt.AlignmentFlag.AlignVCenter, "top": Qt.AlignmentFlag.AlignTop}
MONO_FAMILIES = ["DejaVu Sans Mono", "Menlo", "Consolas", "Liberation Mono", "monospace"]


class ItemPainter:
    """Draws items; caches colours, pens and fonts across frames.

    Args:
        family: the font family for text (the app font's); monospaced text
            (shapes, calls) uses a monospaced family.
    """

    def __init__(self, family: str = ""):
        self.family = family
        #: The smallest text (px) a wrapped text shrinks to (0: 80% of its size).
        self.floor = 0.0
        self._colours: dict[str, QColor] = {}
        self._fonts: dict[tuple, QFont] = {}
        self._metrics: dict[tuple, QFontMetricsF] = {}
        self._elided: dict[tuple, str] = {}
        self._fitted: dict[tuple, tuple[QFont, str]] = {}
        #: Every text that did not fit its place and was shortened with "…" (tests read it).
        self.cut: list[str] = []
        self._brushes: dict[str, QBrush] = {}
        self._pens: dict[tuple, QPen] = {}
        # Shared objects, not enum values: passing Qt.NoBrush/NoPen to every
        # setBrush/setPen call trips a reference-count bug in PySide6 6.12.
        self._no_brush = QBrush(Qt.BrushStyle.NoBrush)
        self._no_pen = QPen(Qt.PenStyle.NoPen)
        #: What draw() set on its QPainter last: pen, brush, opacity, font.
        self._on: tuple[QPen | None, QBrush | None, float, QFont | None] = (
            None, None, -1.0, None)

    def brush(self, name: str | None) -> QBrush:
        if name is None:
            return self._no_brush
        b = self._brushes.get(name)
        if b is None:
            b = self._brushes[name] = QBrush(self.colour(name))
        return b

    def colour(self, name: str) -> QColor:
        c = self._colours.get(name)
        if c is None:
            c = self._colours[name] = qcolor(name)
        return c

    def font(self, size: float, bold: bool = False, mono: bool = False) -> QFont:
        key = (round(size * 4) / 4, bold, mono)
        f = self._fonts.get(key)
        if f is None:
            f = QFont()
            if mono:
                f.setFamilies(MONO_FAMILIES)
                f.setStyleHint(QFont.StyleHint.Monospace)
            elif self.family:
                f.setFamily(self.family)
            f.setPixelSize(max(int(key[0]), 1))  # never larger than the layout sized it
            f.setBold(bold)
            self._fonts[key] = f
            self._metrics[key] = QFontMetricsF(f)
        return f

    def draw(self, p: QPainter, items: list[Item]) -> None:
        """Draw ``items`` in order."""
        p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        p.setRenderHint(QPainter.RenderHint.TextAntialiasing, True)
        # the pen, brush, opacity and font last set on ``p``: each is set again only when
        # an item needs another (a train step's layer is a thousand boxes, most alike)
        self._on = (None, None, -1.0, None)
        for item in items:
            if isinstance(item, Box):
                self._box(p, item)
            elif isinstance(item, Text):
                self._text(p, item)
            elif isinstance(item, Ring):
                self._ring(p, item)
            elif isinstance(item, Stripes):
                self._stripes(p, item)
            elif isinstance(item, Path):
                self._path(p, item)
            elif isinstance(item, Grid):
                self._grid(p, item)
        p.setOpacity(1.0)

    def _set(self, p: QPainter, pen: QPen | None = None, brush: QBrush | None = None,
             opacity: float | None = None, font: QFont | None = None) -> None:
        """Set what is given on ``p``, where it is not what :meth:`draw` set last (the
        pens, brushes and fonts are this painter's cached objects: compared by identity)."""
        on_pen, on_brush, on_opacity, on_font = self._on
        if pen is not None and pen is not on_pen:
            p.setPen(pen)
            on_pen = pen
        if brush is not None and brush is not on_brush:
            p.setBrush(brush)
            on_brush = brush
        if opacity is not None and opacity != on_opacity:
            p.setOpacity(opacity)
            on_opacity = opacity
        if font is not None and font is not on_font:
            p.setFont(font)
            on_font = font
        self._on = (on_pen, on_brush, on_opacity, on_font)

    def _pen(self, colour: str | None, width: float, dashed: bool = False) -> QPen:
        if colour is None:
            return self._no_pen
        key = (colour, width, dashed)
        pen = self._pens.get(key)
        if pen is None:
            pen = QPen(self.colour(colour), width)
            pen.setJoinStyle(Qt.PenJoinStyle.MiterJoin)
            if dashed:
                pen.setStyle(Qt.PenStyle.DashLine)
            self._pens[key] = pen
        return pen

    def _box(self, p: QPainter, b: Box) -> None:
        x, y, w, h = b.rect
        if w <= 0 or h <= 0:
            return
        self._set(p, self._pen(b.stroke, b.width, b.dashed), self.brush(b.fill), b.alpha)
        if b.stroke is not None:  # keep the outline inside the rect, crisp (as Qt's
            half = b.width / 2  # QRectF.adjusted(half, half, -half, -half) computes it)
            rect = QRectF(x + half, y + half, w + -half - half, h + -half - half)
        else:
            rect = QRectF(x, y, w, h)
        if b.radius > 0:
            p.drawRoundedRect(rect, b.radius, b.radius)
        else:
            p.drawRect(rect)

    def _stripes(self, p: QPainter, s: Stripes) -> None:
        x, y, w, h = s.rect
        if w <= 0 or h <= 0 or not s.colours:
            return
        self._set(p, self._no_pen, opacity=s.alpha)
        n = len(s.colours)
        across = s.horizontal if s.horizontal is not None else h > w
        for k, colour in enumerate(s.colours):
            if across:  # horizontal bands, top to bottom
                y0, y1 = y + h * k / n, y + h * (k + 1) / n
                p.fillRect(QRectF(x, y0, w, y1 - y0), self.brush(colour))
            else:
                x0, x1 = x + w * k / n, x + w * (k + 1) / n
                p.fillRect(QRectF(x0, y, x1 - x0, h), self.brush(colour))
        if s.stroke is not None:
            self._set(p, self._pen(s.stroke, 1.0), self._no_brush)
            p.drawRect(QRectF(x + 0.5, y + 0.5, w - 1, h - 1))

    def _ring(self, p: QPainter, r: Ring) -> None:
        self._set(p, self._no_pen, opacity=r.alpha)
        for (x, y, w, h), colour in ring_segments(r):
            p.fillRect(QRectF(x, y, w, h), self.brush(colour))

    def _grid(self, p: QPainter, g: Grid) -> None:
        x, y, w, h = g.rect
        self._set(p, self._pen(g.colour, 1.0), opacity=g.alpha)
        for r in range(1, g.rows):
            yy = y + h * r / g.rows
            p.drawLine(QPointF(x, yy), QPointF(x + w, yy))
        for c in range(1, g.cols):
            xx = x + w * c / g.cols
            p.drawLine(QPointF(xx, y), QPointF(xx, y + h))

    def _path(self, p: QPainter, path: Path) -> None:
        if len(path.points) < 2:
            return
        self._set(p, self._pen(path.colour, path.width), self._no_brush, path.alpha)
        p.drawPolyline(QPolygonF([QPointF(x, y) for x, y in path.points]))

    def _text(self, p: QPainter, t: Text) -> None:
        x, y, w, h = t.rect
        if w <= 2 or h <= 2 or not t.text:
            return
        self._set(p, self._pen(t.colour, 1.0), opacity=1.0)
        flags = _ALIGN.get(t.align, Qt.AlignmentFlag.AlignLeft) | _VALIGN.get(
            t.valign, Qt.AlignmentFlag.AlignVCenter)
        rect = QRectF(x, y, w, h)
        if t.wrap:
            font, text = self._fit(t, w, h)
            self._set(p, font=font)
            p.drawText(rect, int(flags | Qt.TextFlag.TextWordWrap), text)
            return
        font = self.font(t.size, t.bold, t.mono)
        self._set(p, font=font)
        key = (t.text, round(w), round(t.size * 4), t.bold, t.mono)
        elided = self._elided.get(key)
        if elided is None:
            metrics = self._metrics[(round(t.size * 4) / 4, t.bold, t.mono)]
            elided = metrics.elidedText(t.text, Qt.TextElideMode.ElideRight, w)
            self._elided[key] = elided
            if elided != t.text:
                self.cut.append(t.text)
        p.drawText(rect, int(flags), elided)

    def _fit(self, t: Text, w: float, h: float) -> tuple[QFont, str]:
        """The largest font (down to 80%, never below :attr:`floor`) at which wrapped text
        fits; cut at a word if not."""
        key = (t.text, round(w), round(h), round(t.size * 4), t.bold, t.mono, self.floor)
        hit = self._fitted.get(key)
        if hit is not None:
            return hit
        size = t.size
        lowest = max(t.size * 0.8, min(self.floor, t.size))
        while True:
            font = self.font(size, t.bold, t.mono)
            metrics = QFontMetricsF(font)
            bound = metrics.boundingRect(QRectF(0, 0, w, 1e6),
                                         int(Qt.TextFlag.TextWordWrap), t.text)
            if bound.height() <= h or size <= lowest:
                break
            size = max(size - max(t.size * 0.05, 0.5), lowest)
        text = t.text
        if bound.height() > h:  # still too long: as many words as fit, then "…"
            words = text.split()

            def fits(n: int) -> bool:
                cut = " ".join(words[:n]) + " …"
                return metrics.boundingRect(QRectF(0, 0, w, 1e6), int(Qt.TextFlag.TextWordWrap),
                                            cut).height() <= h

            # a binary search (more words never take fewer lines): a long caption measured
            # word by word was hundreds of layouts, 0.15 s, on the first frame of a phase
            lo, hi = 0, len(words) - 1  # fits(lo) is assumed (nothing but "…"); hi untried
            while lo < hi:
                mid = (lo + hi + 1) // 2
                if fits(mid):
                    lo = mid
                else:
                    hi = mid - 1
            text = " ".join(words[:lo]) + " …"
            self.cut.append(t.text)
        self._fitted[key] = (font, text)
        return font, text

