"""Fonts, colours and the application theme, sized for a projector.

Every colour in the window means something; the colours are plain data in
:mod:`jaxviz.views.palette`, made into QColors here (:func:`qcolor`):

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

from collections.abc import Sequence
from pathlib import Path

from pygments.token import Token, _TokenType, string_to_tokentype
from PySide6.QtCore import QEvent, QObject, QRect, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontDatabase,
    QIcon,
    QPainter,
    QPaintEvent,
    QPalette,
)
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QDockWidget,
    QFrame,
    QStyleFactory,
    QTabBar,
    QWidget,
)

from jaxviz.model.resources import resources_dir
from jaxviz.views import palette

#: Point sizes at zoom 0: big enough to read from the back of a lecture hall.
BASE_UI_POINTS = 12
BASE_CODE_POINTS = 13
#: The jaxpr and HLO panes use a slightly smaller code font: more of each equation fits.
PANE_CODE_DELTA = -1
MIN_ZOOM, MAX_ZOOM = -6, 16


def icon_path() -> Path:
    """jaxviz's icon, an SVG: four devices of a 2 x 2 mesh in the device view's colours."""
    return resources_dir() / "icons" / "jaxviz.svg"


def app_icon() -> QIcon:
    """The window and application icon (drawn from :func:`icon_path` at any size)."""
    return QIcon(str(icon_path()))


def qcolor(colour: str) -> QColor:
    """A palette colour (``"#rrggbb"``, :mod:`jaxviz.views.palette`) as a QColor."""
    return QColor(colour)


#: Backgrounds shared by a source line and its equations (light, so dark text stays readable).
LINK_COLOURS = [qcolor(c) for c in palette.LINK_COLOURS]
#: The same hues, stronger: the hovered or selected source line and its equations.
LINK_STRONG = [qcolor(c) for c in palette.LINK_STRONG]
#: Background of the equations the device view's current phase is about.
PHASE_COLOUR = qcolor(palette.PHASE_COLOUR)
#: The frame drawn around the active (hovered/selected) lines.
ACTIVE_OUTLINE = qcolor(palette.ACTIVE_OUTLINE)
#: The "what changed" marks: batched, new primitive, sharding wrapper, collective.
MARK_COLOURS = {kind: qcolor(c) for kind, c in palette.MARK_COLOURS.items()}
MARK_GLYPHS = {"batched": "▲", "new": "✚", "wrapper": "▣", "collective": "⇄", "resharded": "@"}

ERROR_COLOUR = qcolor(palette.ERROR_COLOUR)
ERROR_BACKGROUND = qcolor(palette.ERROR_BACKGROUND)
BANNER_BACKGROUND = qcolor(palette.BANNER_BACKGROUND)
GUTTER_BACKGROUND = qcolor(palette.GUTTER_BACKGROUND)
GUTTER_TEXT = qcolor(palette.GUTTER_TEXT)

#: Syntax colours by Pygments token type: ``(colour, bold, italic)``.
TOKEN_COLOURS: dict[_TokenType, tuple[str, bool, bool]] = {
    string_to_tokentype(name): value for name, value in palette.TOKEN_COLOURS.items()}


def style_for(token: _TokenType | None,
              table: dict | None = None) -> tuple[str, bool, bool] | None:
    """The colour, boldness and italics of a token type in ``table`` (default: the panes'
    :data:`TOKEN_COLOURS`), inherited from its parents."""
    table = TOKEN_COLOURS if table is None else table
    while token is not None and token is not Token:
        found = table.get(token)
        if found is not None:
            return found
        token = token.parent
    return None


def link_colour(index: int, strong: bool = False) -> QColor:
    """The colour of the ``index``-th linked source line."""
    colours = LINK_STRONG if strong else LINK_COLOURS
    return QColor(colours[index % len(colours)])


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


def text_scale(zoom: int) -> float:
    """How much larger than the default the text is at a zoom level (1.0 at 0), for
    views that size their text themselves (the device view)."""
    return max(6, BASE_UI_POINTS + zoom) / BASE_UI_POINTS


def scale_fonts(widgets: Sequence[QWidget], fonts: Sequence[QFont], ratio: float) -> None:
    """Give each widget its font (as it was) ``ratio`` times larger: bold stays bold,
    a heading stays larger than the body text."""
    if ratio == 1.0:
        return
    for widget, font in zip(widgets, fonts):
        scaled = QFont(font)
        if font.pointSizeF() > 0:
            scaled.setPointSizeF(max(4.0, font.pointSizeF() * ratio))
        elif font.pixelSize() > 0:
            scaled.setPixelSize(max(5, round(font.pixelSize() * ratio)))
        widget.setFont(scaled)


#: Set on a QApplication started with Qt's ``-style Fusion`` (:func:`jaxviz.ui.app.main`).
FUSION_PROPERTY = "jaxviz_fusion"


def apply_theme(app: QApplication, zoom: int = 0) -> None:
    """A light, high-contrast Fusion theme: it reads well on washed-out projectors.

    Applied once per application: a QApplication that outlives a window (tests,
    benchmarks) keeps its theme, since swapping the style under live widgets
    can crash Qt.
    """
    if app.property("jaxviz_themed"):
        return
    app.setProperty("jaxviz_themed", True)
    if not app.property(FUSION_PROPERTY):  # else started with Fusion (jaxviz.ui.app)
        app.setStyle(QStyleFactory.create("Fusion"))
    pal = QPalette()
    for name, colour in palette.WINDOW_PALETTE.items():
        pal.setColor(getattr(QPalette.ColorRole, name), qcolor(colour))
    for disabled in (QPalette.ColorRole.Text, QPalette.ColorRole.WindowText):
        pal.setColor(QPalette.ColorGroup.Disabled, disabled, qcolor(palette.DISABLED_INK))
    app.setPalette(pal)
    app.setFont(ui_font(zoom))


def fill_as_tab_page(widget: QWidget) -> None:
    """Make ``widget`` opaque, filled with the colour the style paints a tab page in (a
    tab page is transparent: every change of a label on it repaints the tab widget, its
    dock and the window beneath it too). The colour is read from the style's own drawing
    of a tab widget's frame, so the page looks as before."""
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtWidgets import QStyle, QStyleOptionTabWidgetFrame

    option = QStyleOptionTabWidgetFrame()
    option.initFrom(widget)
    option.rect.setRect(0, 0, 32, 32)
    image = QImage(32, 32, QImage.Format.Format_ARGB32)
    image.fill(widget.palette().window().color())
    painter = QPainter(image)
    widget.style().drawPrimitive(QStyle.PrimitiveElement.PE_FrameTabWidget, option, painter)
    painter.end()
    pal = widget.palette()
    pal.setColor(QPalette.ColorRole.Window, image.pixelColor(16, 16))
    widget.setPalette(pal)
    widget.setAutoFillBackground(True)


def set_style_property(widget: QWidget, name: str, value: object) -> bool:
    """Set a property the widget's look follows (a banner's ``severity``, a field's
    ``error``) and restyle the widget by it (:func:`restyle`); nothing when the widget has
    that value already. True if it changed."""
    if widget.property(name) == value:
        return False
    widget.setProperty(name, value)
    restyle(widget)
    return True


def set_role(widget: QWidget, role: str, severity: str | None = None) -> None:
    """Give ``widget`` the look of a ``role`` (:data:`ROLE_INK`'s, ``pane-title``,
    ``banner``): kept as its ``role`` property too (and ``severity``)."""
    widget.setProperty("role", role)
    if severity is not None:
        widget.setProperty("severity", severity)
    restyle(widget)


#: The text colour of each role whose look is a colour (a label's palette, inherited
#: from the window's for everything else).
ROLE_INK = {"pane-call": palette.SECONDARY_INK, "legend": palette.SECONDARY_INK,
            "pane-note": palette.NOTE_INK, "field-error": palette.FIELD_ERROR_TEXT}

#: A field that does not parse, framed in red (by its type: Qt's style sheets select so).
_FIELD_TYPES = ("QLineEdit", "QSpinBox")


def restyle(widget: QWidget) -> None:
    """Make ``widget`` look as its ``role``, ``severity`` and ``error`` properties say.

    Nothing is styled by an application-wide style sheet: with one, Qt styles every
    widget of the process through it (its rules looked up and cached per widget: 9 MB
    more resident in ``bench_gui``). A font or a colour is set on the widget (the rest of
    its font and palette still follow the window's, zoom included); only a banner and a
    field in error, which need a frame, get a style sheet of their own, as tab bars do
    (:func:`style_tabs`): a label, a field, a tab bar have few children to style."""
    role = widget.property("role")
    if role == "pane-title":
        bold = QFont()  # only the weight: the family and size still follow the window's
        bold.setBold(True)
        widget.setFont(bold)
    elif role in ROLE_INK:
        ink = QPalette()
        ink.setColor(QPalette.ColorRole.WindowText, qcolor(ROLE_INK[role]))
        widget.setPalette(ink)
    elif role == "banner":
        severity = "error" if widget.property("severity") == "error" else "warning"
        widget.setStyleSheet(f"QLabel {{ {banner_css(severity)} "
                             "border-radius: 4px; padding: 4px 8px; }")
    if widget.property("error") is not None:
        kind = next((name for name in _FIELD_TYPES if widget.inherits(name)), None)
        if kind is not None:
            widget.setStyleSheet(
                f"{kind} {{ border: 2px solid {palette.ERROR_COLOUR}; "
                f"background: {palette.FIELD_ERROR_BACKGROUND}; border-radius: 3px; }}"
                if widget.property("error") else "")


def banner_css(severity: str) -> str:
    """Style sheet declarations of a banner or bar of ``severity`` (``info``, ``warning``,
    ``error``: :data:`~jaxviz.views.palette.BANNERS`)."""
    background, text, border = palette.BANNERS[severity]
    return f"background: {background}; color: {text}; border: 1px solid {border};"


class PaneHeader(QFrame):
    """The strip over a pane, the editor and the comparison: its title, call and buttons,
    on a tinted background with a line under it (painted here, not by a style sheet,
    which would style each widget on it through Qt's style sheet engine)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setProperty("role", "pane-header")
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent, True)
        self.setContentsMargins(0, 0, 0, 1)  # (the line's row)

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt's name
        painter = QPainter(self)
        rect = self.rect()
        painter.fillRect(rect, qcolor(palette.PANE_HEADER))
        painter.fillRect(0, rect.height() - 1, rect.width(), 1, qcolor(palette.PANE_HEADER_LINE))
        painter.end()


def style_tabs(bar: QTabBar) -> QTabBar:
    """A tab bar's tabs padded and the current one in bold (read from the back of a room);
    its own style sheet (a tab bar's only children are its scroll and close buttons)."""
    bar.setStyleSheet("QTabBar::tab { padding: 4px 12px; } "
                      "QTabBar::tab:selected { font-weight: bold; }")
    return bar


def tint_dock_title(dock: QDockWidget) -> None:
    """Paint ``dock``'s title bar (docked) in :data:`~jaxviz.views.palette.DOCK_TITLE`,
    its title :data:`DOCK_TITLE_INDENT` pixels in (Qt's float and close buttons, child
    widgets, paint themselves over it); not a style sheet, which would style every widget
    in the dock. A floating dock is Qt's own."""
    dock.installEventFilter(_DOCK_TITLES)


#: Pixels between a dock's left edge and its title.
DOCK_TITLE_INDENT = 8


class _DockTitles(QObject):
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        if not isinstance(event, QPaintEvent) or not isinstance(watched, QDockWidget) \
                or watched.isFloating() or watched.titleBarWidget() is not None:
            return False
        content = watched.widget()
        height = content.geometry().top() if content is not None else 0
        title = QRect(0, 0, watched.width(), height)
        if height <= 0:
            return False
        if not event.region().intersects(title):
            # A paint under the dock's content only (behind a label of the gallery whose
            # text changed): Qt's paint of a docked dock draws its title alone, elided
            # and clipped away here (0.3 ms of each switch of examples), so none is drawn.
            return True
        own = Qt.FindChildOption.FindDirectChildrenOnly  # its float and close buttons
        buttons = [b.x() for b in watched.findChildren(QAbstractButton, options=own)
                   if b.isVisible()]
        room = max(0, min(buttons, default=watched.width()) - 4 - DOCK_TITLE_INDENT)
        painter = QPainter(watched)
        painter.fillRect(title, qcolor(palette.DOCK_TITLE))
        painter.setPen(watched.palette().color(QPalette.ColorRole.WindowText))
        text = watched.fontMetrics().elidedText(watched.windowTitle().replace("&", ""),
                                                Qt.TextElideMode.ElideRight, room)
        painter.drawText(DOCK_TITLE_INDENT, 0, room, height,
                         int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), text)
        painter.end()
        return True  # (Qt's own paint of a docked title draws only what is drawn here)


_DOCK_TITLES = _DockTitles()
