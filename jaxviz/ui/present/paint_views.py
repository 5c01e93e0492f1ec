"""The picture slides: the jaxpr diff, the device view, the timing plots, a stepped equation.

Each draws into the body rectangle :class:`~jaxviz.ui.present.paint.SlidePainter`
leaves under the heading and caption, with the renderer the window uses for
the same picture.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFontMetricsF, QPainter

from jaxviz.ui.present.style import (
    CODE_PX,
    FOLD,
    LIT,
    PAPER,
    SMALL_PX,
    Sizes,
    draw_tokens,
    mono_font,
    ui_font,
)
from jaxviz.views import palette
from jaxviz.views.compare.diff_layout import CATEGORY_MARKS, row_category
from jaxviz.views.compare.jaxpr_diff import DiffRow
from jaxviz.views.present.deck import Slide
from jaxviz.views.present.presentation import wrap_line
from jaxviz.views.text.lexers import JaxprLexer

#: The slide painter drawing the view (jaxviz.ui.present.paint.SlidePainter: its code
#: blocks, colours and theme), typed loosely so this module does not import it back.
SlidePainter = Any

#: The device view's text at a slide's size: larger than in the window's tab.
DEVICE_FONT_SCALE = 1.3


# --------------------------------------------------------------------------- #
# diff
# --------------------------------------------------------------------------- #


def paint_diff(sp: SlidePainter, p: QPainter, body: QRectF, sizes: Sizes) -> None:
    """The two jaxprs side by side, rows paired by the jaxpr diff, changes lit."""
    diff = sp.slide.diff
    assert diff is not None
    pad = sizes.px(12)
    px = sizes.px(CODE_PX)
    while True:
        font = mono_font(px)
        metrics = QFontMetricsF(font)
        half = (body.width() - 3 * pad) / 2
        chars = int(half / metrics.horizontalAdvance("0")) - 2
        head = QFontMetricsF(ui_font(sizes.px(SMALL_PX), bold=True)).height()
        capacity = int((body.height() - head - 2 * pad) / metrics.height())
        blocks = diff_blocks(diff.rows, chars, capacity)
        if blocks is not None or not sp.whole or px <= sizes.px(14):
            break
        px *= 0.9
    if blocks is None:
        blocks = diff_blocks(diff.rows, chars, capacity, force=True) or []
    header = ui_font(sizes.px(SMALL_PX), bold=True)
    p.setFont(header)
    p.setPen(QColor(sp.colours.muted))
    left_x, right_x = body.left() + pad, body.left() + 2 * pad + half
    for x, name in ((left_x, diff.left), (right_x, diff.right)):
        p.drawText(QRectF(x, body.top(), half, head), Qt.AlignmentFlag.AlignVCenter, name)
    y = body.top() + head + pad / 2
    p.setPen(Qt.PenStyle.NoPen)
    p.setBrush(QColor(PAPER[sp.theme_name]))
    p.drawRoundedRect(QRectF(body.left(), y, body.width(),
                             min(body.bottom() - y, sum(len(b[1]) for b in blocks)
                                 * metrics.height() + 2 * pad)), sizes.px(10), sizes.px(10))
    y += pad
    lexer = JaxprLexer()
    drawn = 0
    for kind, pairs in blocks:
        for n, (left, right) in enumerate(pairs):
            if kind in CATEGORY_MARKS and kind != "same":  # tinted as the compare layout
                p.fillRect(QRectF(body.left(), y, body.width(), metrics.height()),
                           QColor(diff_tint(kind, sp.theme_name)))
            p.setFont(font)
            if kind == "fold" or kind == "note":
                p.setPen(QColor(FOLD[sp.theme_name]))
                p.drawText(QPointF(right_x if kind == "note" else left_x, y + metrics.ascent()),
                           right if kind == "note" else left)
            else:
                if n == 0:
                    p.setPen(QColor(FOLD[sp.theme_name]))
                    p.drawText(QPointF(body.left() + pad / 4, y + metrics.ascent()),
                               CATEGORY_MARKS.get(kind, " "))
                draw_tokens(p, QPointF(left_x, y), left, lexer, font, metrics, sp.theme_name)
                draw_tokens(p, QPointF(right_x, y), right, lexer, font, metrics, sp.theme_name)
            y += metrics.height()
            drawn += 1
    sp.rows = []  # the diff's rows are its blocks
    sp.slide.cache["diff_rows_drawn"] = drawn


def diff_tint(kind: str, theme: str) -> str:
    """A diff row's tint on the ``theme`` slide's code paper: the compare layout's tint
    on light paper; on dark paper the same hue mixed toward the paper, not toward white."""
    if theme == "light":
        return palette.diff_colour(kind, palette.DIFF_TINT_MIX)
    return palette.mix(palette.DIFF_COLOURS[kind], PAPER[theme], 0.72)


Block = tuple[str, list[tuple[str, str]]]


def diff_blocks(rows: list[DiffRow], chars: int, capacity: int, force: bool = False
                ) -> list[Block] | None:
    """The diff's rows as blocks of (left, right) text lines that fit ``capacity`` lines.

    A block's kind is its row's category (:func:`~jaxviz.views.compare.diff_layout.row_category`),
    or ``fold`` / ``note``.

    Everything when it fits; else the changed rows with what changed under
    each shape change, unchanged runs folded to one line; else without the
    notes. ``None`` when even that does not fit (``force``: cut at the room).
    """
    def block(row: DiffRow) -> Block:
        left = [s for t in (row.left.text if row.left else []) for s in wrap_line(t, chars)]
        right = [s for t in (row.right.text if row.right else []) for s in wrap_line(t, chars)]
        n = max(len(left), len(right), 1)
        left += [""] * (n - len(left))
        right += [""] * (n - len(right))
        return row_category(row), list(zip(left, right))

    full = [block(r) for r in rows]
    if sum(len(b[1]) for b in full) <= capacity:
        return full
    for notes in (True, False):
        out: list[Block] = []
        run = 0
        for row, b in zip(rows, full):
            if row.kind == "same":
                run += 1
                continue
            if run:
                out.append(("fold", [(f"⋯ {run} unchanged equation{'' if run == 1 else 's'}"
                                      f" folded (Z: all)", "")]))
                run = 0
            out.append(b)
            if notes and row.text:
                out.append(("note", [("", f"# {row.text}"[:chars])]))
        if run:
            out.append(("fold", [(f"⋯ {run} unchanged equation{'' if run == 1 else 's'} "
                                  f"folded (Z: all)", "")]))
        if sum(len(b[1]) for b in out) <= capacity:
            return out
    if not force:
        return None
    cut: list[Block] = []
    used = 0
    for b in out:
        if used + len(b[1]) > capacity - 1:
            cut.append(("fold", [("⋯ more rows (Z: all)", "")]))
            break
        cut.append(b)
        used += len(b[1])
    return cut


# --------------------------------------------------------------------------- #
# device view
# --------------------------------------------------------------------------- #


def paint_device(sp: SlidePainter, p: QPainter, body: QRectF, sizes: Sizes, width: int,
                 height: int) -> None:
    """The device view's phase, as the window's Devices tab draws it; the phase's
    jaxpr lines lit in a band beneath."""
    from jaxviz.ui.devices.export import Renderer

    slide = sp.slide
    assert slide.data is not None and slide.data.result is not None and slide.phase is not None
    scene = slide.cache.get("scene")
    if scene is None:
        from jaxviz.views.devices import build_scene

        scene = slide.cache["scene"] = build_scene(slide.data.result, slide.variant)
    band = 0.0
    shown = phase_lines(slide.lines, slide.lit)
    if shown:
        metrics = QFontMetricsF(mono_font(sizes.px(CODE_PX)))
        band = min(4, len(shown)) * metrics.height() + 2 * sizes.px(14) + sizes.px(10)
    view = QRectF(body.left(), body.top(), body.width(), body.height() - band)
    renderer = Renderer(scene, int(view.width()), int(view.height()), sp.theme_name,
                        font_scale=DEVICE_FONT_SCALE)
    p.save()
    p.translate(view.topLeft())
    p.setClipRect(QRectF(0, 0, view.width(), view.height()))
    p.fillRect(QRectF(0, 0, view.width(), view.height()), QColor(renderer.theme.bg))
    renderer.paint(p, slide.phase, 1.0)
    p.restore()
    if band:
        code = QRectF(body.left(), view.bottom() + sizes.px(10), body.width(),
                      band - sizes.px(10))
        sp.code(p, code, sizes, shown, list(range(len(shown))), JaxprLexer(), None)


def phase_lines(lines: list[str], lit: list[int]) -> list[str]:
    """The jaxpr lines a phase is about, dedented (the band under the device view)."""
    chosen = [lines[i] for i in lit if 0 <= i < len(lines)]
    indent = min((len(t) - len(t.lstrip(" ")) for t in chosen if t.strip()), default=0)
    return [t[indent:] for t in chosen]


# --------------------------------------------------------------------------- #
# timing
# --------------------------------------------------------------------------- #


#: The timing figure's body text on a slide, in pixels per pixel of slide height (20 px at
#: 720, 30 px at 1080): the presentation's caption and code size, not an exported plot's
#: (:meth:`~jaxviz.ui.plots.base.Style.for_size`, which fills a whole slide with the
#: plot; here the plot shares the slide with its heading and caption, and larger text
#: would crowd the timeline's lanes).
FIGURE_TEXT = 1 / 36


def _figure(slide: Slide, theme: str, width: int, height: int, body_width: int):
    from jaxviz.ui.plots import FIGURES, Style
    from jaxviz.views.palette import theme as palette_theme

    base = max(10.0, min(height * FIGURE_TEXT, width / 58.0))
    figure = FIGURES[slide.plot](Style(theme=palette_theme(theme), base_px=base),
                                 width=body_width, show_caption=False)
    assert slide.timing is not None
    figure.update(slide.timing)
    return figure


def timing_caption(slide: Slide, theme: str) -> str:
    """The plot's own one-sentence caption, computed from the run (as the timing view's)."""
    if "caption" not in slide.cache:
        slide.cache["caption"] = _figure(slide, theme, 1920, 1080, 1800).caption()
    return str(slide.cache["caption"])


def paint_timing(sp: SlidePainter, p: QPainter, body: QRectF, sizes: Sizes, width: int,
                 height: int) -> None:
    """The timing plot, drawn by the timing view's figure at the slide's text size."""
    from jaxviz.ui.plots import paint_figure

    slide = sp.slide
    size = (int(body.width()), int(body.height()))
    figure = _figure(slide, sp.theme_name, width, height, size[0])
    p.save()
    p.translate(body.topLeft())
    paint_figure(figure, p, size)
    p.restore()


# --------------------------------------------------------------------------- #
# stepping
# --------------------------------------------------------------------------- #


def paint_stepping(sp: SlidePainter, p: QPainter, body: QRectF, sizes: Sizes) -> None:
    """One stepped equation: its jaxpr line, then every lane's inputs and outputs
    (one column per device in the device view's colours, as the Values tab)."""
    from jaxviz.ui.stepper.cells import Scale
    from jaxviz.views.stepper.panel import build_panel

    slide = sp.slide
    result = slide.stepping
    assert result is not None and slide.data is not None and slide.data.target is not None
    panel = build_panel(result, slide.step_index, slide.data.target.source.splitlines())
    font = mono_font(sizes.px(CODE_PX))
    metrics = QFontMetricsF(font)
    equation = [panel.equation] if panel.equation else []
    eq_rect = QRectF(body.left(), body.top(), body.width(),
                     min(3, len(wrap_line(panel.equation, 80)) if equation else 0)
                     * metrics.height() + 2 * sizes.px(14))
    if equation:
        sp.code(p, eq_rect, sizes, equation, [0], JaxprLexer(), None)
    top = eq_rect.bottom() + sizes.px(16)
    scale = (Scale(panel.scale[0], panel.scale[1], panel.diverging)
             if panel.scale is not None else None)
    columns = panel.columns or []
    if not columns:
        return
    gap = sizes.px(12)
    col_w = (body.width() - gap * (len(columns) - 1)) / len(columns)
    title_font = ui_font(sizes.px(SMALL_PX), bold=True)
    tm = QFontMetricsF(title_font)
    for k, column in enumerate(columns):
        x = body.left() + k * (col_w + gap)
        box = QRectF(x, top, col_w, body.bottom() - top)
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(QColor(PAPER[sp.theme_name]))
        p.drawRoundedRect(box, sizes.px(8), sizes.px(8))
        head = QRectF(x, top, col_w, tm.height() * 1.3)
        p.setBrush(QColor(column.colour))
        p.drawRoundedRect(head, sizes.px(8), sizes.px(8))
        p.setFont(title_font)
        from jaxviz.views.palette import text_on

        p.setPen(QColor(text_on(column.colour)))
        p.drawText(head, Qt.AlignmentFlag.AlignCenter, column.title)
        y = head.bottom() + sizes.px(8)
        for cell in column.cells:
            y = _paint_cell(sp, p, QRectF(x + sizes.px(8), y, col_w - sizes.px(16),
                                          box.bottom() - y), cell, scale, sizes)
            if y >= box.bottom():
                break


def _paint_cell(sp: SlidePainter, p: QPainter, rect: QRectF, cell, scale, sizes: Sizes
                ) -> float:
    """One value: its name and type, then numbers, a heat map or a summary; returns the
    y below it."""
    label_font = ui_font(sizes.px(SMALL_PX))
    lm = QFontMetricsF(label_font)
    arrow = "in " if cell.role == "in" else "→ "
    p.setFont(label_font)
    p.setPen(QColor(palette.NOTE_INK if sp.theme_name == "light" else FOLD["dark"]))
    p.drawText(QRectF(rect.left(), rect.top(), rect.width(), lm.height()),
               Qt.AlignmentFlag.AlignVCenter,
               lm.elidedText(f"{arrow}{cell.name}: {cell.type}", Qt.TextElideMode.ElideRight,
                             rect.width()))
    y = rect.top() + lm.height()
    if cell.kind == "heatmap" and cell.matrix and scale is not None:
        rows, cols = len(cell.matrix), max(len(r) for r in cell.matrix)
        side = min(rect.width() / cols, sizes.px(60), (rect.bottom() - y) / max(1, rows))
        for i, values in enumerate(cell.matrix):
            for j, value in enumerate(values):
                p.fillRect(QRectF(rect.left() + j * side, y + i * side, side - 1, side - 1),
                           scale.colour(value))
        return y + rows * side + sizes.px(10)
    px = sizes.px(CODE_PX * 1.5)  # numbers as large as the column allows
    lines = cell.text.splitlines() or [""]
    widest = max(lines, key=len)
    while px > sizes.px(14):
        font = mono_font(px)
        if QFontMetricsF(font).horizontalAdvance(widest) <= rect.width():
            break
        px *= 0.9
    font = mono_font(px)
    metrics = QFontMetricsF(font)
    p.setFont(font)
    p.setPen(QColor(palette.SLIDE_CODE_INK[sp.theme_name]))
    for line in lines:
        if y + metrics.height() > rect.bottom():
            break
        p.drawText(QPointF(rect.left(), y + metrics.ascent()), line)
        y += metrics.height()
    return y + sizes.px(10)


__all__ = ["LIT", "paint_device", "paint_diff", "paint_stepping", "paint_timing",
           "timing_caption"]
