"""Paint one slide with a QPainter: the same drawing for the screen, PNG and PDF.

:class:`SlidePainter` draws a :class:`~jaxviz.views.present.deck.Slide` into a
``width`` x ``height`` rectangle of any paint device: the presentation window
paints it (through an image cache), ``jaxviz present --export`` paints it onto
images and PDF pages. Text is sized for the room (:class:`Sizes`: at
1920x1080 captions 34 px and code 30 px, scaled with the screen), code is
coloured by the panes' Pygments lexers and colours, and long texts are folded
to the lines that matter (:func:`jaxviz.views.present.presentation.fold_lines`).

The pictures come from the views that draw them in the window: the device
view's :class:`~jaxviz.ui.devices.export.Renderer`, the timing figures of
:mod:`jaxviz.ui.plots`, the values panel's model
(:func:`jaxviz.views.stepper.panel.build_panel`) with its colour scale.
"""

from __future__ import annotations

from pygments.lexer import Lexer
from pygments.lexers.python import PythonLexer
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPen

from jaxviz.ui.present import paint_views
from jaxviz.ui.present.style import (
    CAPTION_PX,
    CODE_PX,
    FOLD,
    HEADING_PX,
    LIT,
    MIN_WHOLE_PX,
    PAPER,
    SMALL_PX,
    TITLE_PX,
    Sizes,
    draw_tokens,
    mono_font,
    ui_font,
)
from jaxviz.views import palette
from jaxviz.views.present.deck import Slide
from jaxviz.views.present.presentation import Row, fold_lines
from jaxviz.views.text.lexers import JaxprLexer


class SlidePainter:
    """Draws one slide.

    Args:
        slide: what to draw.
        theme: ``light`` or ``dark``.
        number, count: the slide's place (shown in the footer).
        whole: show long texts whole (smaller) instead of folded.
        title: the lecture's title (footer).
    """

    def __init__(self, slide: Slide, theme: str = "light", number: int = 1, count: int = 1,
                 whole: bool = False, title: str = ""):
        self.slide = slide
        self.theme_name = theme
        self.colours = palette.theme(theme).device_view
        self.number, self.count = number, count
        self.whole = whole
        self.title = title
        #: The code rows drawn by the last paint (tests read them).
        self.rows: list[Row] = []
        #: The rectangle of the caption drawn by the last paint.
        self.caption_rect = QRectF()
        #: The heading as the last paint drew it: its font, lines and box (tests read them).
        self.heading_font = QFont()
        self.heading_lines: list[str] = []
        self.heading_rect = QRectF()

    # ------------------------------------------------------------------ frame
    def paint(self, p: QPainter, width: int, height: int) -> None:
        """Draw the slide into ``(0, 0, width, height)``."""
        sizes = Sizes.for_size(width, height)
        p.save()
        try:
            p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
            p.setRenderHint(QPainter.RenderHint.TextAntialiasing, True)
            p.fillRect(QRectF(0, 0, width, height), QColor(self.colours.bg))
            body = self._frame(p, sizes, width, height)
            s = self.slide
            if s.error:
                self._message(p, body, sizes, s.error)
            elif s.view == "title":
                self._title(p, body, sizes)
            elif s.view in ("source", "jaxpr", "program"):
                lexer = PythonLexer() if s.view == "source" else JaxprLexer()
                self.code(p, body, sizes, s.lines, s.lit, lexer,
                          s.first_line if s.view == "source" else None)
            elif s.view == "diff":
                paint_views.paint_diff(self, p, body, sizes)
            elif s.view == "device":
                paint_views.paint_device(self, p, body, sizes, width, height)
            elif s.view == "timing":
                paint_views.paint_timing(self, p, body, sizes, width, height)
            elif s.view == "stepping":
                paint_views.paint_stepping(self, p, body, sizes)
            elif s.view == "summary":
                self._bullets(p, body, sizes, s.bullets)
        finally:
            p.restore()

    def _frame(self, p: QPainter, sizes: Sizes, width: int, height: int) -> QRectF:
        """Heading, caption and footer; returns the body's rectangle."""
        m = sizes.margin
        s = self.slide
        top = m * 0.6
        if s.view != "title":
            font, lines = fit_heading(s.heading, width - 2 * m, sizes)
            p.setFont(font)
            p.setPen(QColor(self.colours.accent))
            h = QFontMetricsF(font).height()
            self.heading_font, self.heading_lines = font, lines
            self.heading_rect = QRectF(m, top, width - 2 * m, h * len(lines))
            for k, line in enumerate(lines):
                p.drawText(QRectF(m, top + k * h, width - 2 * m, h), Qt.AlignmentFlag.AlignLeft
                           | Qt.AlignmentFlag.AlignVCenter, line)
            top += h * (len(lines) + 0.1)
            caption = self.caption_text()
            if caption:
                font = ui_font(sizes.px(CAPTION_PX))
                rect = self.wrapped(p, QRectF(m, top, width - 2 * m, height), caption, font,
                                    QColor(self.colours.fg), max_lines=3)
                self.caption_rect = rect
                top = rect.bottom() + sizes.px(16)
        small = ui_font(sizes.px(SMALL_PX))
        p.setFont(small)
        p.setPen(QColor(self.colours.muted))
        fh = QFontMetricsF(small).height()
        foot = QRectF(m, height - fh - m * 0.35, width - 2 * m, fh)
        p.drawText(foot, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                   f"{self.number} / {self.count}")
        if self.title:
            p.drawText(foot.adjusted(0, 0, -sizes.px(160), 0),
                       Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                       _elide(self.title, small, foot.width() - sizes.px(160)))
        return QRectF(m, top, width - 2 * m, foot.top() - top - sizes.px(10))

    def caption_text(self) -> str:
        s = self.slide
        if s.view == "timing" and not s.caption and s.timing is not None and not s.error:
            return paint_views.timing_caption(s, self.theme_name)
        return s.caption

    # ------------------------------------------------------------------ parts
    def wrapped(self, p: QPainter, rect: QRectF, text: str, font: QFont, colour: QColor,
                max_lines: int = 0, align: Qt.AlignmentFlag = Qt.AlignmentFlag.AlignLeft
                ) -> QRectF:
        """Draw ``text`` word-wrapped from the top of ``rect``; returns the rectangle used."""
        metrics = QFontMetricsF(font)
        lines = wrap_words(text, metrics, rect.width())
        if max_lines and len(lines) > max_lines:
            lines = lines[:max_lines]
            lines[-1] = _elide(lines[-1] + " …", font, rect.width())
        p.setFont(font)
        p.setPen(colour)
        y = rect.top()
        for line in lines:
            p.drawText(QRectF(rect.left(), y, rect.width(), metrics.height()),
                       align | Qt.AlignmentFlag.AlignVCenter, line)
            y += metrics.height()
        return QRectF(rect.left(), rect.top(), rect.width(), y - rect.top())

    def code(self, p: QPainter, rect: QRectF, sizes: Sizes, lines: list[str], lit: list[int],
             lexer: Lexer, first_number: int | None, px: float | None = None) -> None:
        """A code block: ``lines`` coloured by ``lexer``, ``lit`` lines lit, folded to fit."""
        px = px or sizes.px(CODE_PX)
        pad = sizes.px(14)
        rows, font = self._fit(lines, lit, rect, sizes, px, first_number, pad)
        self.rows = rows
        metrics = QFontMetricsF(font)
        gutter = (len(str(first_number + len(lines))) + 1) * metrics.horizontalAdvance("0") \
            if first_number is not None else metrics.horizontalAdvance("0")
        height = min(rect.height(), len(rows) * metrics.height() + 2 * pad)
        paper = QRectF(rect.left(), rect.top(), rect.width(), height)
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(QColor(PAPER[self.theme_name]))
        p.drawRoundedRect(paper, sizes.px(10), sizes.px(10))
        p.setFont(font)
        lit_set = set(lit)
        y = rect.top() + pad
        x = rect.left() + pad
        for row in rows:
            line_rect = QRectF(rect.left(), y, rect.width(), metrics.height())
            if row.line in lit_set:
                p.fillRect(line_rect, QColor(LIT[self.theme_name]))
            if row.line < 0:
                p.setPen(QColor(FOLD[self.theme_name]))
                p.drawText(QPointF(x + gutter, y + metrics.ascent()), row.text)
            else:
                if first_number is not None and not row.continued:
                    p.setPen(QColor(FOLD[self.theme_name]))
                    p.drawText(QPointF(x, y + metrics.ascent()),
                               str(first_number + row.line).rjust(len(str(first_number
                                                                          + len(lines)))))
                draw_tokens(p, QPointF(x + gutter, y), row.text, lexer, font, metrics,
                            self.theme_name)
            y += metrics.height()

    def _fit(self, lines: list[str], lit: list[int], rect: QRectF, sizes: Sizes, px: float,
             first_number: int | None, pad: float) -> tuple[list[Row], QFont]:
        """The rows and the font: folded at ``px``, or (whole) the largest font that fits."""
        while True:
            font = mono_font(px)
            metrics = QFontMetricsF(font)
            digits = len(str((first_number or 0) + len(lines))) + 1 if first_number else 1
            chars = int((rect.width() - 2 * pad) / metrics.horizontalAdvance("0")) - digits
            capacity = int((rect.height() - 2 * pad) / metrics.height())
            if self.whole and px > sizes.px(MIN_WHOLE_PX):
                rows = fold_lines(lines, lit, 10 ** 6, chars)
                if len(rows) <= capacity:
                    return rows, font
                px = max(sizes.px(MIN_WHOLE_PX), px * 0.9)
                continue
            return fold_lines(lines, lit, capacity, chars), font

    def _title(self, p: QPainter, body: QRectF, sizes: Sizes) -> None:
        s = self.slide
        font = ui_font(sizes.px(TITLE_PX), bold=True)
        metrics = QFontMetricsF(font)
        lines = wrap_words(s.heading, metrics, body.width())
        top = body.top() + body.height() * 0.28
        used = self.wrapped(p, QRectF(body.left(), top, body.width(), body.height()), s.heading,
                            font, QColor(self.colours.accent), align=Qt.AlignmentFlag.AlignHCenter)
        del lines
        if s.caption:
            cap = ui_font(sizes.px(CAPTION_PX))
            rect = self.wrapped(p, QRectF(body.left() + body.width() * 0.08,
                                          used.bottom() + sizes.px(30), body.width() * 0.84,
                                          body.height()), s.caption, cap,
                                QColor(self.colours.fg), max_lines=6,
                                align=Qt.AlignmentFlag.AlignHCenter)
            self.caption_rect = rect

    def _bullets(self, p: QPainter, body: QRectF, sizes: Sizes, bullets: list[str]) -> None:
        px = sizes.px(CAPTION_PX)
        while px > sizes.px(CAPTION_PX * 0.7):  # every bullet on the slide, smaller if need be
            metrics = QFontMetricsF(ui_font(px))
            width = body.width() - sizes.px(40)
            lines = sum(min(3, len(wrap_words(b, metrics, width))) for b in bullets)
            if lines * metrics.height() + len(bullets) * sizes.px(14) <= body.height():
                break
            px *= 0.93
        font = ui_font(px)
        y = body.top() + sizes.px(10)
        for text in bullets:
            used = self.wrapped(p, QRectF(body.left() + sizes.px(40), y,
                                          body.width() - sizes.px(40), body.bottom() - y),
                                text, font, QColor(self.colours.fg), max_lines=3)
            p.setBrush(QColor(self.colours.accent))
            p.setPen(Qt.PenStyle.NoPen)
            r = sizes.px(7)
            p.drawEllipse(QPointF(body.left() + sizes.px(16), y + used.height() / max(
                1, round(used.height() / QFontMetricsF(font).height())) / 2), r, r)
            y = used.bottom() + sizes.px(14)
            if y > body.bottom():
                break

    def _message(self, p: QPainter, body: QRectF, sizes: Sizes, text: str) -> None:
        font = ui_font(sizes.px(CAPTION_PX))
        box = QRectF(body.left(), body.top(), body.width(), body.height() * 0.6)
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(QColor(self.colours.warning_bg))
        p.drawRoundedRect(box, sizes.px(10), sizes.px(10))
        self.wrapped(p, box.adjusted(sizes.px(24), sizes.px(20), -sizes.px(24), 0), text, font,
                     QColor(self.colours.warning_fg), max_lines=8)


def wrap_words(text: str, metrics: QFontMetricsF, width: float) -> list[str]:
    """``text`` broken at spaces into lines no wider than ``width`` (long words are cut)."""
    out: list[str] = []
    for paragraph in text.split("\n"):
        line = ""
        for word in paragraph.split(" "):
            trial = f"{line} {word}" if line else word
            if metrics.horizontalAdvance(trial) <= width or not line:
                line = trial
            else:
                out.append(line)
                line = word
            while metrics.horizontalAdvance(line) > width and len(line) > 1:
                cut = max(1, int(len(line) * width / metrics.horizontalAdvance(line)) - 1)
                out.append(line[:cut])
                line = line[cut:]
        out.append(line)
    return out


#: The smallest a heading shrinks to before it takes a second line, and the smallest on
#: two lines, as fractions of :data:`HEADING_PX`.
HEADING_SHRINK, HEADING_FLOOR = 0.8, 0.6


def fit_heading(text: str, width: float, sizes: Sizes) -> tuple[QFont, list[str]]:
    """A heading whole, never clipped: on one line at :data:`HEADING_PX`, or shrunk (to
    :data:`HEADING_SHRINK`) to stay on one line, else on two lines, shrunk further where
    two lines need it. Only a heading that fits no two lines at :data:`HEADING_FLOOR`
    (a word longer than the slide) is cut, at its last line's end."""
    px = sizes.px(HEADING_PX)
    while True:
        font = ui_font(px, bold=True)
        metrics = QFontMetricsF(font)
        if metrics.horizontalAdvance(text) <= width:
            return font, [text]
        if px * 0.95 < sizes.px(HEADING_PX * HEADING_SHRINK):
            break
        px *= 0.95
    while True:
        font = ui_font(px, bold=True)
        lines = wrap_words(text, QFontMetricsF(font), width)
        if len(lines) <= 2:
            return font, lines
        if px * 0.95 < sizes.px(HEADING_PX * HEADING_FLOOR):
            return font, [lines[0], _elide(" ".join(lines[1:]), font, width)]
        px *= 0.95


def _elide(text: str, font: QFont, width: float) -> str:
    return QFontMetricsF(font).elidedText(text, Qt.TextElideMode.ElideRight, width)


def thin_pen(colour: str, width: float = 1.0) -> QPen:
    pen = QPen(QColor(colour))
    pen.setWidthF(width)
    return pen
