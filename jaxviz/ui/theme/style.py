"""Fonts, colours and the application theme, sized for a projector.

Every colour in the window means something, so they are all named here:

* :data:`LINK_COLOURS` -- one pastel background per Python source line, shared
  by that line in the editor and by every equation it produced (as Compiler
  Explorer does for assembly). :data:`LINK_STRONG` are the same hues, darker,
  for the line under the mouse or the one clicked.
* :data:`MARK_COLOURS` -- the "what changed" marks: batched, new primitive,
  sharding wrapper, collective.
* :data:`TOKEN_COLOURS` -- syntax colours for Python, jaxprs and HLO (Pygments
  token types).

Text sizes follow one zoom step (Ctrl+= / Ctrl+-): :func:`ui_font` and
:func:`code_font` give the fonts for a zoom level.
"""

from __future__ import annotations

from PySide6.QtGui import QColor, QFont, QFontDatabase, QPalette
from PySide6.QtWidgets import QApplication, QStyleFactory
from pygments.token import (
    Comment, Error, Keyword, Name, Number, Operator, String, Token, _TokenType,
)

#: Point sizes at zoom 0: big enough to read from the back of a lecture hall.
BASE_UI_POINTS = 12
BASE_CODE_POINTS = 13
#: The jaxpr and HLO panes use a slightly smaller code font: more of each equation fits.
PANE_CODE_DELTA = -1
MIN_ZOOM, MAX_ZOOM = -6, 16

#: Backgrounds shared by a source line and its equations (light, so dark text stays readable).
LINK_COLOURS = [QColor(c) for c in (
    "#cfe3fa",  # blue
    "#fde0c2",  # orange
    "#d2f0d9",  # green
    "#f7d4e4",  # pink
    "#f3edb4",  # yellow
    "#e2d7f5",  # purple
    "#cdeeee",  # teal
    "#eadccd",  # brown
)]
#: The same hues, stronger: the hovered or selected source line and its equations.
LINK_STRONG = [QColor(c) for c in (
    "#9cc4f2", "#f9c28c", "#9fdcae", "#f2a9c8", "#e8dc7a", "#c6b5ee", "#99dcdc", "#d8bd9f",
)]
#: Background of the equations the device view's current phase is about.
PHASE_COLOUR = QColor("#ffe08a")
#: The frame drawn around the active (hovered/selected) lines.
ACTIVE_OUTLINE = QColor("#1f3a93")

MARK_COLOURS = {
    "batched": QColor("#d9731a"),     # the equation gained the batch axis (vmap)
    "new": QColor("#8e24aa"),         # a primitive that only the batched version has
    "wrapper": QColor("#1e6fd9"),     # shard_map / sharded jit: the per-device program
    "collective": QColor("#d62728"),  # psum, all_gather, ppermute ... data moves
}
MARK_GLYPHS = {"batched": "▲", "new": "✚", "wrapper": "▣", "collective": "⇄"}

ERROR_COLOUR = QColor("#c62828")
ERROR_BACKGROUND = QColor("#fde7e7")
BANNER_BACKGROUND = QColor("#fff3cd")
GUTTER_BACKGROUND = QColor("#f3f4f6")
GUTTER_TEXT = QColor("#6b7280")

#: Syntax colours by Pygments token type (the most specific match wins).
TOKEN_COLOURS: dict[_TokenType, tuple[str, bool, bool]] = {
    # token: (colour, bold, italic)
    Keyword: ("#0b3d91", True, False),
    Keyword.Type: ("#00796b", False, False),
    Keyword.Constant: ("#0b3d91", False, False),
    Name.Function: ("#6a1b9a", True, False),
    Name.Class: ("#6a1b9a", True, False),
    Name.Exception: ("#c62828", True, False),
    Name.Builtin: ("#0b5394", False, False),
    Name.Decorator: ("#8d6e00", False, False),
    Name.Variable: ("#1a1a1a", False, False),
    Name.Attribute: ("#6b7280", False, False),
    Name.Namespace: ("#6b7280", False, False),
    Name.Label: ("#8d6e00", False, False),
    String: ("#a0522d", False, False),
    String.Doc: ("#4b6b3a", False, True),
    Number: ("#b35c00", False, False),
    Comment: ("#5f6b5f", False, True),
    Operator: ("#374151", False, False),
    Operator.Word: ("#0b3d91", True, False),
    Error: ("#c62828", False, False),
}


def style_for(token: _TokenType) -> tuple[str, bool, bool] | None:
    """The colour, boldness and italics of a token type (inherited from its parents)."""
    while token is not Token:
        found = TOKEN_COLOURS.get(token)
        if found is not None:
            return found
        token = token.parent
    return None


def link_colour(index: int, strong: bool = False) -> QColor:
    """The colour of the ``index``-th linked source line."""
    palette = LINK_STRONG if strong else LINK_COLOURS
    return QColor(palette[index % len(palette)])


def _monospace_family() -> str:
    families = set(QFontDatabase.families())
    for name in ("DejaVu Sans Mono", "JetBrains Mono", "Cascadia Mono", "Menlo", "Consolas",
                 "Liberation Mono"):
        if name in families:
            return name
    return QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont).family()


def code_font(zoom: int = 0) -> QFont:
    """The monospace font for code, jaxprs and HLO at a zoom level."""
    font = QFont(_monospace_family())
    font.setStyleHint(QFont.StyleHint.Monospace)
    font.setPointSize(max(6, BASE_CODE_POINTS + zoom))
    return font


def ui_font(zoom: int = 0) -> QFont:
    """The font for labels, menus and fields at a zoom level."""
    font = QFont(QApplication.font())
    families = set(QFontDatabase.families())
    for name in ("Inter", "Noto Sans", "DejaVu Sans", "Segoe UI", "Helvetica Neue"):
        if name in families:
            font.setFamily(name)
            break
    font.setPointSize(max(6, BASE_UI_POINTS + zoom))
    return font


def apply_theme(app: QApplication, zoom: int = 0) -> None:
    """A light, high-contrast Fusion theme: it reads well on washed-out projectors.

    Applied once per application: a QApplication that outlives a window (tests,
    benchmarks) keeps its theme, since swapping the style under live widgets
    can crash Qt.
    """
    if app.property("jaxviz_themed"):
        return
    app.setProperty("jaxviz_themed", True)
    app.setStyle(QStyleFactory.create("Fusion"))
    pal = QPalette()
    pal.setColor(QPalette.ColorRole.Window, QColor("#eef0f3"))
    pal.setColor(QPalette.ColorRole.WindowText, QColor("#111827"))
    pal.setColor(QPalette.ColorRole.Base, QColor("#ffffff"))
    pal.setColor(QPalette.ColorRole.AlternateBase, QColor("#f6f7f9"))
    pal.setColor(QPalette.ColorRole.Text, QColor("#111827"))
    pal.setColor(QPalette.ColorRole.Button, QColor("#e5e7eb"))
    pal.setColor(QPalette.ColorRole.ButtonText, QColor("#111827"))
    pal.setColor(QPalette.ColorRole.Highlight, QColor("#2563eb"))
    pal.setColor(QPalette.ColorRole.HighlightedText, QColor("#ffffff"))
    pal.setColor(QPalette.ColorRole.ToolTipBase, QColor("#fffbe6"))
    pal.setColor(QPalette.ColorRole.ToolTipText, QColor("#111827"))
    pal.setColor(QPalette.ColorRole.PlaceholderText, QColor("#6b7280"))
    pal.setColor(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text, QColor("#9ca3af"))
    pal.setColor(QPalette.ColorGroup.Disabled, QPalette.ColorRole.WindowText, QColor("#9ca3af"))
    app.setPalette(pal)
    app.setFont(ui_font(zoom))
    app.setStyleSheet(STYLE_SHEET)


#: Widget styling that the palette cannot express (field error frames, banners, headers).
STYLE_SHEET = """
QLineEdit[error="true"], QSpinBox[error="true"] {
    border: 2px solid #c62828; background: #fff5f5; border-radius: 3px;
}
QLabel[role="field-error"] { color: #b71c1c; }
QLabel[role="banner"] {
    background: #fff3cd; color: #5c3c00; border: 1px solid #e0b100;
    border-radius: 4px; padding: 4px 8px;
}
QLabel[role="banner"][severity="error"] {
    background: #fde7e7; color: #7f1010; border: 1px solid #c62828;
}
QLabel[role="pane-title"] { font-weight: bold; }
QLabel[role="pane-call"] { color: #374151; }
QLabel[role="legend"] { color: #374151; }
QFrame[role="pane-header"] { background: #e3e7ee; border-bottom: 1px solid #c8ced8; }
QDockWidget::title { background: #dde2ea; padding: 4px 8px; }
QTabBar::tab { padding: 4px 12px; }
QTabBar::tab:selected { font-weight: bold; }
QStatusBar QLabel { padding: 0 4px; }
"""
