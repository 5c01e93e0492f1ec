"""The projection figures, painted with QPainter: the projected timeline and the what-if plot.

One painting function per figure paints onto any paint device -- the widget on
screen (:mod:`jaxviz.ui.timing.projected`), a QImage for PNG, the SVG writer of
:mod:`jaxviz.ui.vector` -- so every format shows the same drawing. The data come
from the Qt-free halves (:mod:`jaxviz.views.timing.projected`,
:mod:`jaxviz.model.what_if`); nothing is computed here but geometry.

Projected lanes are hatched and use colours the measured plots never use
(:data:`jaxviz.views.palette.PROJECTED_LANES`), under a heading that says
"projected" and names the chip and mesh.
"""

from __future__ import annotations

import math
from pathlib import Path

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QImage, QPainter, QPen

from jaxviz.model.chips import Chip
from jaxviz.model.cost_model import byte_size, seconds
from jaxviz.model.what_if import (
    WhatIfResult,
    comm_bound_at,
    hbm_exceeded_at,
    variants_of,
    what_if_rows,
)
from jaxviz.views.palette import (
    PROJECTED_LANES,
    WHAT_IF_MARKS,
    WHAT_IF_VARIANTS,
    WINE,
)
from jaxviz.views.palette import (
    theme as theme_of,
)
from jaxviz.views.timing.projected import LANES, ProjectedTimeline, caption

#: The lanes' names as the legend writes them.
LANE_WORDS = {"compute": "compute (FLOPs / peak)", "memory": "memory (HBM bytes / bandwidth)",
              "communication": "communication (collectives / links)"}


def _font(px: float, bold: bool = False) -> QFont:
    f = QFont()
    f.setPixelSize(max(8, round(px)))
    f.setBold(bold)
    return f


def _colour(text: str, alpha: int = 255) -> QColor:
    c = QColor(text)
    c.setAlpha(alpha)
    return c


def nice_step(span: float, ticks: int = 5) -> float:
    """A 1-2-5 step that cuts ``span`` into about ``ticks`` parts."""
    if span <= 0:
        return 1.0
    raw = span / ticks
    mag = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 5, 10):
        if m * mag >= raw:
            return m * mag
    return 10 * mag


def _wrap(p: QPainter, text: str, rect: QRectF) -> float:
    """Draw ``text`` word-wrapped in ``rect``; returns the height used."""
    used = p.boundingRect(rect, int(Qt.TextFlag.TextWordWrap), text)
    p.drawText(rect, int(Qt.TextFlag.TextWordWrap), text)
    return used.height()


# --------------------------------------------------------------------------- #
# The projected timeline
# --------------------------------------------------------------------------- #


def hatched(p: QPainter, r: QRectF, lane: str, spacing: float) -> None:
    """A projected bar: a light fill, diagonal lines in the lane's colour, an outline.

    The hatching is drawn as lines (not a pattern brush), so the SVG and PDF writers
    keep it too.
    """
    colour = PROJECTED_LANES[lane]
    p.fillRect(r, _colour(colour, 110))
    p.save()
    p.setClipRect(r)
    p.setPen(QPen(QColor(colour), max(1.0, spacing / 5)))
    x = r.left() - r.height()
    while x < r.right():
        p.drawLine(QPointF(x, r.bottom()), QPointF(x + r.height(), r.top()))
        x += spacing
    p.restore()
    p.setPen(QPen(QColor(colour), 1.2))
    p.drawRect(r)


#: Text heights (in units of the figure's text size) of the projected timeline: fixed
#: parts, and each variant's block (3 lanes, 3 label lines); of the what-if plot.
PROJECTED_LINES = (9.0, 4.4)
WHAT_IF_LINES = 34.0


def projected_height(variants: int, px: float) -> int:
    """The height the projected timeline of ``variants`` needs with text ``px`` high."""
    fixed, each = PROJECTED_LINES
    return math.ceil(px * (fixed + each * max(1, variants)))


def paint_projected(p: QPainter, size: tuple[int, int], timeline: ProjectedTimeline,
                    theme: str = "light", min_px: float = 8.0) -> list[tuple[QRectF, str]]:
    """Paint the projected timeline; returns each bar's rectangle and its hover text.
    ``min_px``: the smallest text (on screen, the window's own: the widget grows to it)."""
    w, h = size
    cols = theme_of(theme).plots
    count = max(1, len(timeline.variants))
    fixed, each = PROJECTED_LINES
    # the text size that fits every variant's block and the rest
    px = max(min_px, min(w / 75, h / (fixed + each * count), 24.0))
    p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    p.fillRect(QRectF(0, 0, w, h), QColor(cols.background))
    m = px
    hits: list[tuple[QRectF, str]] = []
    p.setPen(QColor(cols.foreground))
    p.setFont(_font(px * 1.3, True))
    p.drawText(QRectF(m, m * 0.5, w - 2 * m, px * 1.8), int(Qt.AlignmentFlag.AlignLeft),
               f"PROJECTED on {timeline.chip_name} -- a roofline, not a measurement")
    y = m * 0.5 + px * 1.9
    # legend: hatched swatches
    p.setFont(_font(px))
    x = m
    fm = QFontMetricsF(_font(px))
    for lane in LANES:
        hatched(p, QRectF(x, y + px * 0.15, px * 1.6, px), lane, px * 0.4)
        p.setPen(QColor(cols.foreground))
        p.drawText(QPointF(x + px * 2.0, y + px * 1.0), LANE_WORDS[lane])
        x += px * 2.6 + fm.horizontalAdvance(LANE_WORDS[lane]) + px
    y += px * 1.9
    # the caption (bottom), measured first so the lanes fit above it
    cap = caption(timeline)
    p.setFont(_font(px * 0.9))
    cap_rect = QRectF(m, 0, w - 2 * m, h)
    cap_h = p.boundingRect(cap_rect, int(Qt.TextFlag.TextWordWrap), cap).height()
    axis_h = px * 2.2
    bottom = h - m * 0.5 - cap_h - axis_h
    label_w = min(w * 0.32, px * 24)
    x0, x1 = m + label_w, w - m * 1.5
    block = max(px * 4.4, (bottom - y) / count)
    end = timeline.end or 1e-9
    scale = (x1 - x0) / end
    lane_h = max(px * 1.1, min(px * 2.4, (block - px * 1.2) / 3 - px * 0.2))
    speed = timeline.speedups()
    for i, v in enumerate(timeline.variants):
        top = y + i * block
        # the variant's label: its name, what it is projected on, its step time
        step_text = (f"step >= {seconds(v.projection.total.t_lower.value)}, "
                     f"<= {seconds(v.projection.total.t_upper.value)}")
        if len(speed) > 1 and v.variant in speed:
            step_text += f"  ({speed[v.variant]:.3g}x)"
        p.setPen(QColor(cols.foreground))
        p.setFont(_font(px * 1.05, True))
        p.drawText(QRectF(m, top + px * 0.2, label_w - px * 0.5, px * 1.3),
                   int(Qt.AlignmentFlag.AlignLeft), v.variant)
        p.setFont(_font(px * 0.9))
        for k, line in enumerate((v.title, step_text)):
            p.drawText(QRectF(m, top + px * (1.5 + 1.15 * k), label_w - px * 0.5, px * 1.2),
                       int(Qt.AlignmentFlag.AlignLeft), line)
        # lanes
        for k, lane in enumerate(LANES):
            ly = top + px * 0.3 + k * (lane_h + px * 0.2)
            p.fillRect(QRectF(x0, ly, x1 - x0, lane_h), _colour(cols.grid, 70))
            for bar in (b for b in v.bars if b.lane == lane):
                r = QRectF(x0 + bar.start * scale, ly, max(1.5, bar.length * scale), lane_h)
                hatched(p, r, lane, px * 0.45)
                hits.append((r, f"{v.title}\n{bar.label}, {lane}: {seconds(bar.length)}\n"
                                f"{bar.formula}"))
    # time axis
    ay = y + count * block
    p.setPen(QPen(QColor(cols.foreground), 1))
    p.drawLine(QPointF(x0, ay), QPointF(x1, ay))
    step = nice_step(end)
    p.setFont(_font(px * 0.85))
    for k in range(int(end / step * 1.0001) + 1):
        t = k * step
        xx = x0 + t * scale
        p.drawLine(QPointF(xx, ay), QPointF(xx, ay + px * 0.4))
        p.drawText(QRectF(xx - px * 4, ay + px * 0.5, px * 8, px * 1.2),
                   int(Qt.AlignmentFlag.AlignHCenter), seconds(t))
    p.drawText(QRectF(m, ay + px * 0.5, label_w - px, px * 1.2),
               int(Qt.AlignmentFlag.AlignLeft), "projected time, per device")
    p.setPen(QColor(cols.muted))
    p.setFont(_font(px * 0.9))
    _wrap(p, cap, QRectF(m, h - m * 0.5 - cap_h, w - 2 * m, cap_h + 2))
    if not timeline.variants:
        p.setPen(QColor(cols.muted))
        p.setFont(_font(px * 1.1))
        p.drawText(QRectF(0, y, w, px * 3), int(Qt.AlignmentFlag.AlignHCenter),
                   "no variant with a compiled program to project")
    return hits


# --------------------------------------------------------------------------- #
# The what-if plot
# --------------------------------------------------------------------------- #


def variant_colour(variant: str) -> str:
    return WHAT_IF_VARIANTS.get(variant, WINE)


def paint_what_if(p: QPainter, size: tuple[int, int], result: WhatIfResult, chip: Chip,
                  theme: str = "light", min_px: float = 8.0) -> None:
    """Paint the what-if plot: step time and memory per device against N (text at least
    ``min_px`` high)."""
    w, h = size
    cols = theme_of(theme).plots
    px = max(min_px, min(w / 80, h / WHAT_IF_LINES))
    m = px
    p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    p.fillRect(QRectF(0, 0, w, h), QColor(cols.background))
    rows = what_if_rows(result, chip)
    ok = [r for r in rows if not r.error]
    p.setPen(QColor(cols.foreground))
    p.setFont(_font(px * 1.3, True))
    p.drawText(QRectF(m, m * 0.5, w - 2 * m, px * 1.8), int(Qt.AlignmentFlag.AlignLeft),
               f"What if: {result.function} on N x {chip.name} -- PROJECTED, per device")
    p.setFont(_font(px * 0.9))
    p.setPen(QColor(cols.muted))
    p.drawText(QRectF(m, m * 0.5 + px * 1.8, w - 2 * m, px * 1.4),
               int(Qt.AlignmentFlag.AlignLeft), f"How: {result.method}.")
    variants = variants_of(rows)
    # legend
    y = m * 0.5 + px * 3.4
    x = m
    p.setFont(_font(px))
    fm = QFontMetricsF(_font(px))
    for v in variants:
        c = QColor(variant_colour(v))
        p.setPen(QPen(c, px * 0.22))
        p.drawLine(QPointF(x, y + px * 0.6), QPointF(x + px * 1.8, y + px * 0.6))
        p.setPen(QColor(cols.foreground))
        p.drawText(QPointF(x + px * 2.2, y + px), v)
        x += px * 3.2 + fm.horizontalAdvance(v)
    legend = [("comm", "communication-bound from here (T_comm > T_compute)"),
              ("hbm", "stops fitting in HBM")]
    for key, words in legend:
        p.setPen(QPen(QColor(WHAT_IF_MARKS[key]), 2, Qt.PenStyle.DashLine))
        p.drawLine(QPointF(x + px * 0.5, y), QPointF(x + px * 0.5, y + px * 1.2))
        p.setPen(QColor(cols.foreground))
        p.drawText(QPointF(x + px * 1.2, y + px), words)
        x += px * 2.4 + fm.horizontalAdvance(words)
    top = y + px * 3.6
    notes = []
    for v in variants:
        at, full = comm_bound_at(rows, v), hbm_exceeded_at(rows, v)
        notes.append(f"{v}: " + (f"communication-bound from N = {at}" if at else
                                 "never communication-bound")
                     + (f", out of HBM from N = {full}" if full else ", fits at every N"))
    errors = sorted({f"N = {r.devices}: {r.error}" for r in rows if r.error})
    foot = "; ".join(notes) + ("." if notes else "") + (
        " Not compiled: " + "; ".join(errors[:4]) + ("..." if len(errors) > 4 else "")
        if errors else "")
    p.setFont(_font(px * 0.9))
    foot_h = p.boundingRect(QRectF(m, 0, w - 2 * m, h), int(Qt.TextFlag.TextWordWrap),
                            foot).height()
    bottom = h - m * 0.5 - foot_h - px * 3.2
    gap = px * 5
    left = QRectF(m + px * 5, top, (w - 2 * m - gap - px * 10) / 2, bottom - top)
    right = QRectF(left.right() + gap + px * 5, top, left.width(), bottom - top)
    counts = sorted({r.devices for r in rows}) or [1]
    times = [t for r in ok for t in (r.t_lower, r.t_upper) if t > 0]
    mems = [float(r.memory_bytes) for r in ok if r.memory_bytes]
    _panel(p, left, px, cols, counts, times, "step time (projected)", seconds)
    _panel(p, right, px, cols, counts, mems + [float(chip.hbm_bytes)],
           "memory per device (XLA's memory analysis)", byte_size)
    for i, v in enumerate(variants):
        c = QColor(variant_colour(v))
        mine = [r for r in ok if r.variant == v]
        # earlier variants wider: lines that coincide still show every colour
        weight = px * (1.0 + 0.6 * (len(variants) - 1 - i))
        lower = [(r.devices, r.t_lower) for r in mine]
        upper = [(r.devices, r.t_upper) for r in mine]
        _line(p, left, counts, times, lower, c, weight, Qt.PenStyle.SolidLine, True)
        _line(p, left, counts, times, upper, c, px * 0.6, Qt.PenStyle.DashLine, False)
        _line(p, right, counts, mems + [float(chip.hbm_bytes)],
              [(r.devices, float(r.memory_bytes)) for r in mine if r.memory_bytes], c, weight,
              Qt.PenStyle.SolidLine, True)
        at = comm_bound_at(rows, v)
        if at is not None:
            _mark(p, left, counts, at, QColor(WHAT_IF_MARKS["comm"]), f"{v}: comm-bound",
                  px, variants.index(v))
        full = hbm_exceeded_at(rows, v)
        if full is not None:
            _mark(p, right, counts, full, QColor(WHAT_IF_MARKS["hbm"]), f"{v}: > HBM", px,
                  variants.index(v))
    # the chip's HBM
    yy = _ymap(right, mems + [float(chip.hbm_bytes)], float(chip.hbm_bytes))
    p.setPen(QPen(QColor(WHAT_IF_MARKS["hbm"]), 2, Qt.PenStyle.DashLine))
    p.drawLine(QPointF(right.left(), yy), QPointF(right.right(), yy))
    p.setFont(_font(px * 0.85))
    p.drawText(QRectF(right.left(), yy + px * 0.2, right.width() - px * 0.3, px * 1.2),
               int(Qt.AlignmentFlag.AlignRight), f"{chip.name} HBM {byte_size(chip.hbm_bytes)}")
    p.setPen(QColor(cols.muted))
    p.setFont(_font(px * 0.9))
    _wrap(p, foot, QRectF(m, h - m * 0.5 - foot_h, w - 2 * m, foot_h + 2))


def _log_range(values: list[float]) -> tuple[float, float]:
    vals = [v for v in values if v > 0] or [1.0]
    lo, hi = math.floor(math.log10(min(vals))), math.ceil(math.log10(max(vals)))
    return lo, max(hi, lo + 1)


def _xmap(r: QRectF, counts: list[int], n: float) -> float:
    a, b = math.log2(counts[0]), math.log2(counts[-1])
    return r.left() + (r.width() * 0.5 if b == a else (math.log2(n) - a) / (b - a) * r.width())


def _ymap(r: QRectF, values: list[float], v: float) -> float:
    lo, hi = _log_range(values)
    return r.bottom() - (math.log10(max(v, 1e-30)) - lo) / (hi - lo) * r.height()


def _panel(p: QPainter, r: QRectF, px: float, cols, counts: list[int], values: list[float],
           title: str, fmt) -> None:
    p.setPen(QPen(QColor(cols.foreground), 1))
    p.drawRect(r)
    # a title wider than its panel shrinks (to 3/4), then ends in an ellipsis: never cut
    font = _font(px, True)
    need = QFontMetricsF(font).horizontalAdvance(title)
    if need > r.width():
        font = _font(max(px * 0.75, px * r.width() / need), True)
    p.setFont(font)
    p.drawText(QRectF(r.left(), r.top() - px * 1.5, r.width(), px * 1.3),
               int(Qt.AlignmentFlag.AlignLeft),
               QFontMetricsF(font).elidedText(title, Qt.TextElideMode.ElideRight, r.width()))
    p.setFont(_font(px * 0.85))
    for n in counts:
        x = _xmap(r, counts, n)
        p.setPen(QPen(_colour(cols.grid), 1))
        p.drawLine(QPointF(x, r.top()), QPointF(x, r.bottom()))
        p.setPen(QColor(cols.foreground))
        p.drawText(QRectF(x - px * 2, r.bottom() + px * 0.3, px * 4, px * 1.2),
                   int(Qt.AlignmentFlag.AlignHCenter), str(n))
    p.drawText(QRectF(r.left(), r.bottom() + px * 1.5, r.width(), px * 1.2),
               int(Qt.AlignmentFlag.AlignHCenter), "devices N (log scale)")
    lo, hi = _log_range(values)
    for e in range(int(lo), int(hi) + 1):
        y = r.bottom() - (e - lo) / (hi - lo) * r.height()
        p.setPen(QPen(_colour(cols.grid), 1))
        p.drawLine(QPointF(r.left(), y), QPointF(r.right(), y))
        p.setPen(QColor(cols.foreground))
        p.drawText(QRectF(r.left() - px * 5.2, y - px * 0.6, px * 5, px * 1.2),
                   int(Qt.AlignmentFlag.AlignRight), fmt(10.0 ** e))


def _line(p: QPainter, r: QRectF, counts: list[int], values: list[float],
          points: list[tuple[int, float]], c: QColor, width: float, style: Qt.PenStyle,
          dots: bool) -> None:
    pts = [QPointF(_xmap(r, counts, n), _ymap(r, values, v)) for n, v in points if v > 0]
    p.setPen(QPen(c, max(1.5, width * 0.18), style))
    for a, b in zip(pts, pts[1:]):
        p.drawLine(a, b)
    if dots:
        p.setBrush(QBrush(c))
        radius = min(width * 0.3, 6 + width * 0.1)
        for q in pts:
            p.drawEllipse(q, radius, radius)
        p.setBrush(Qt.BrushStyle.NoBrush)


def _mark(p: QPainter, r: QRectF, counts: list[int], n: int, c: QColor, text: str, px: float,
          row: int) -> None:
    x = _xmap(r, counts, n)
    p.setPen(QPen(c, 2, Qt.PenStyle.DashLine))
    p.drawLine(QPointF(x, r.top()), QPointF(x, r.bottom()))
    p.setFont(_font(px * 0.85, True))
    fm = QFontMetricsF(_font(px * 0.85, True))
    tw = fm.horizontalAdvance(text) + px * 0.6
    left = x + px * 0.3 if x + tw < r.right() else x - tw
    p.drawText(QRectF(left, r.top() + px * 0.3 + row * px * 1.2, tw, px * 1.2),
               int(Qt.AlignmentFlag.AlignLeft), text)


# --------------------------------------------------------------------------- #
# Files
# --------------------------------------------------------------------------- #


def _write(paint, path: str | Path, size: tuple[int, int], title: str) -> Path:
    from jaxviz.ui.theme.qt_guard import ensure_app

    ensure_app()
    path = Path(path)
    if path.suffix.lower() == ".svg":
        from jaxviz.ui.vector.svg import SvgDevice

        device = SvgDevice(size[0], size[1], title=title, description=title)
        painter = QPainter(device)
        try:
            paint(painter)
        finally:
            painter.end()
        return device.save(path)
    image = QImage(size[0], size[1], QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    try:
        paint(painter)
    finally:
        painter.end()
    if not image.save(str(path), "PNG"):  # type: ignore[call-overload]  # (stub: bytes)
        raise OSError(f"could not write {path}")
    return path


def write_what_if(result: WhatIfResult, chip: Chip, path: str | Path,
                  size: tuple[int, int] = (1920, 1080), theme: str = "light") -> Path:
    """The what-if plot as a PNG or SVG (by the path's suffix)."""
    return _write(lambda p: paint_what_if(p, size, result, chip, theme), path, size,
                  f"jaxviz what-if: {result.function} on {chip.name} (projected)")


def write_projected(timeline: ProjectedTimeline, path: str | Path,
                    size: tuple[int, int] = (1920, 1080), theme: str = "light") -> Path:
    """The projected timeline as a PNG or SVG (by the path's suffix)."""
    return _write(lambda p: paint_projected(p, size, timeline, theme), path, size,
                  f"jaxviz projected timeline on {timeline.chip_name}")
