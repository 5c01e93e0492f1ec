"""Type sizes, fonts and colours of the slides, and code drawn token by token.

Shared by :mod:`jaxviz.ui.present.paint` (the slide's frame and text views) and
:mod:`jaxviz.ui.present.paint_views` (the picture views).
"""

from __future__ import annotations

from dataclasses import dataclass

from pygments.lexer import Lexer
from pygments.token import Text, Whitespace
from PySide6.QtCore import QPointF
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter

from jaxviz.ui.theme import style
from jaxviz.views import palette

#: Sizes in pixels at 1920x1080 (scaled with the slide).
HEADING_PX, CAPTION_PX, CODE_PX, SMALL_PX, TITLE_PX = 40.0, 34.0, 30.0, 24.0, 64.0
#: The smallest code the whole-text key (Z) shrinks to, at 1920x1080.
MIN_WHOLE_PX = 14.0
#: Code blocks are drawn on a light paper in both themes (the syntax colours are light-theme).
PAPER = palette.SLIDE_PAPER
LIT = palette.PHASE_COLOUR  # a line that matters for the slide (the panes' phase colour)
FOLD = palette.GUTTER_TEXT


@dataclass(frozen=True)
class Sizes:
    """Text sizes and margins for one slide size."""

    scale: float

    @classmethod
    def for_size(cls, width: int, height: int) -> Sizes:
        return cls(min(width / 1920.0, height / 1080.0))

    def px(self, at_1080: float) -> float:
        return max(6.0, at_1080 * self.scale)

    @property
    def margin(self) -> float:
        return self.px(44)


def ui_font(px: float, bold: bool = False) -> QFont:
    font = style.ui_font()
    font.setPixelSize(max(6, round(px)))
    font.setBold(bold)
    return font


def mono_font(px: float) -> QFont:
    font = style.code_font()
    font.setPixelSize(max(6, round(px)))
    return font


def draw_tokens(p: QPainter, at: QPointF, text: str, lexer: Lexer, font: QFont,
                metrics: QFontMetricsF) -> None:
    """One line of code coloured by ``lexer`` with the panes' syntax colours."""
    x = at.x()
    y = at.y() + metrics.ascent()
    default = QColor(palette.SLIDE_INK)
    for ttype, value in lexer.get_tokens(text):
        value = value.rstrip("\n")
        if not value:
            continue
        found = style.style_for(ttype) if ttype not in (Text, Whitespace) else None
        colour, bold, italic = found if found is not None else ("", False, False)
        piece = QFont(font)
        piece.setBold(bold)
        piece.setItalic(italic)
        p.setFont(piece)
        p.setPen(QColor(colour) if colour else default)
        p.drawText(QPointF(x, y), value)
        x += metrics.horizontalAdvance(value)
    p.setFont(font)


