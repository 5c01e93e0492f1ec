"""Type sizes, fonts and colours of the slides, and code drawn token by token.

Shared by :mod:`jaxviz.ui.present.paint` (the slide's frame and text views) and
:mod:`jaxviz.ui.present.paint_views` (the picture views).
"""

from __future__ import annotations

from dataclasses import dataclass

from pygments.lexer import Lexer
from pygments.token import Text, Whitespace, string_to_tokentype
from PySide6.QtCore import QPointF
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter

from jaxviz.ui.theme import style
from jaxviz.views import palette

#: Sizes in pixels at 1920x1080 (scaled with the slide).
HEADING_PX, CAPTION_PX, CODE_PX, SMALL_PX, TITLE_PX = 40.0, 34.0, 30.0, 24.0, 64.0
#: The smallest code the whole-text key (Z) shrinks to, at 1920x1080.
MIN_WHOLE_PX = 14.0
#: Code blocks' paper, by slide theme: light on a light slide, dark on a dark one.
PAPER = palette.SLIDE_PAPER
#: A line that matters for the slide (the panes' phase colour; dark amber on dark paper).
LIT = palette.SLIDE_LIT
#: Line numbers, folds and marks, by slide theme.
FOLD = palette.SLIDE_FOLD
#: Syntax colours by Pygments token type on dark paper (light paper: the panes' own).
DARK_TOKENS = {string_to_tokentype(name): value
               for name, value in palette.DARK_TOKEN_COLOURS.items()}


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


def token_style(ttype, theme: str = "light") -> tuple[str, bool, bool] | None:
    """A token's colour, boldness and italics on the ``theme`` slide's paper (inherited
    from its parents): the panes' colours on light paper, :data:`DARK_TOKENS` on dark."""
    if ttype in (Text, Whitespace):
        return None
    return style.style_for(ttype, DARK_TOKENS if theme == "dark" else None)


def draw_tokens(p: QPainter, at: QPointF, text: str, lexer: Lexer, font: QFont,
                metrics: QFontMetricsF, theme: str = "light") -> None:
    """One line of code coloured by ``lexer`` with the syntax colours of the ``theme``
    slide's code paper."""
    x = at.x()
    y = at.y() + metrics.ascent()
    default = QColor(palette.SLIDE_CODE_INK[theme])
    for ttype, value in lexer.get_tokens(text):
        value = value.rstrip("\n")
        if not value:
            continue
        found = token_style(ttype, theme)
        colour, bold, italic = found if found is not None else ("", False, False)
        piece = QFont(font)
        piece.setBold(bold)
        piece.setItalic(italic)
        p.setFont(piece)
        p.setPen(QColor(colour) if colour else default)
        p.drawText(QPointF(x, y), value)
        x += metrics.horizontalAdvance(value)
    p.setFont(font)


