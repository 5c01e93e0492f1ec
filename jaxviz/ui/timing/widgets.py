"""Small widgets of the timing view: the message banner and the where-and-when line."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QBoxLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLayout,
    QSizePolicy,
    QTabWidget,
    QToolButton,
    QWidget,
)

from jaxviz.ui.text.plain import plain, plain_tooltip
from jaxviz.ui.theme import style
from jaxviz.views import palette

#: Colours of the banner per severity (the app's banner style is the warning one).
_BANNER_STYLES = {severity: style.banner_css(severity) for severity in palette.BANNERS}


class Banner(QFrame):
    """A one-line message above the plots (info, warning or error) with a close button.

    One line, elided to fit, the whole message in its tooltip: it sits in a line
    kept for it and never grows to push what is under it.

    Signals:
        shownChanged(bool): the banner was shown or hidden.
    """

    shownChanged = Signal(bool)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("timing_banner")
        row = QHBoxLayout(self)
        row.setContentsMargins(8, 2, 4, 2)
        self.label = InfoLine()
        close = QToolButton()
        close.setText("✕")
        close.setAutoRaise(True)
        close.setToolTip("Dismiss")
        close.clicked.connect(self.hide)
        row.addWidget(self.label, 1)
        row.addWidget(close, 0, Qt.AlignmentFlag.AlignVCenter)
        self.severity = ""
        self._style("border: 1px solid transparent;")  # as tall unstyled as styled
        self.hide()

    def _style(self, colours: str) -> None:
        self.setStyleSheet(f"QFrame#timing_banner {{ {colours} border-radius: 4px; }} "
                           f"QLabel {{ border: none; background: transparent; }}")

    def setVisible(self, visible: bool) -> None:  # noqa: N802 - Qt's name
        parent = self.parentWidget()
        was = self.isVisibleTo(parent) if parent is not None else self.isVisible()
        super().setVisible(visible)
        if was != visible:
            self.shownChanged.emit(visible)

    def show_message(self, text: str, severity: str = "error") -> None:
        self.severity = severity
        self.label.set_info(text)
        self._style(_BANNER_STYLES[severity])
        self.show()

    def text(self) -> str:
        return "" if self.isHidden() else self.label.text()


class InfoLine(QLabel):
    """Where and when the run was measured: one line, elided to fit; all of it in the tooltip.

    :meth:`text` is the whole line, :meth:`shown` what fits on screen.
    """

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._full = ""
        self._details = ""
        plain(self)  # a recording's host fields, file names, messages: never HTML
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)

    def set_info(self, line: str, details: str = "") -> None:
        self._full, self._details = line, details
        self.setToolTip(plain_tooltip("\n".join(t for t in (line, details) if t)))
        self._elide()

    def text(self) -> str:  # noqa: D102 - the whole line, not the elided one
        return self._full

    def shown(self) -> str:
        return super().text()

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        width = max(50, self.width() - self.contentsMargins().left()
                    - self.contentsMargins().right())
        super().setText(self.fontMetrics().elidedText(self._full, Qt.TextElideMode.ElideRight,
                                                      width))


class FullScreen:
    """Shows a widget alone, full screen (for a projector), and puts it back where it was.

    While it is away, a note in its place says how to bring it back.
    """

    def __init__(self, widget: QWidget, note: str):
        self.widget = widget
        self.note = note
        self._home: tuple[QWidget | None, QLayout | None, int] | None = None
        self._placeholder: QLabel | None = None

    @property
    def active(self) -> bool:
        return self._home is not None

    def toggle(self) -> None:
        if self.active:
            self.leave()
        else:
            self.enter()

    def enter(self) -> None:
        if self.active:
            return
        w = self.widget
        parent = w.parentWidget()
        layout = parent.layout() if parent is not None else None
        index = layout.indexOf(w) if layout is not None else -1
        self._home = (parent, layout, index)
        if isinstance(layout, QBoxLayout) and index >= 0:
            self._placeholder = QLabel(self.note)
            self._placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
            self._placeholder.setWordWrap(True)
            layout.insertWidget(index, self._placeholder)
        w.setParent(None)
        w.setWindowTitle("jaxviz — timing")
        w.showFullScreen()

    def leave(self) -> None:
        if not self.active:
            return
        if self._home is None:
            return
        parent, layout, index = self._home
        self._home = None
        w = self.widget
        w.showNormal()
        if self._placeholder is not None:
            self._placeholder.deleteLater()
            self._placeholder = None
        if isinstance(layout, QBoxLayout) and index >= 0:
            layout.insertWidget(index, w)
        elif parent is not None:
            w.setParent(parent)
        w.show()


class PageFill(QWidget):
    """An opaque box in the colour of what it sits on: a tab page's colour inside the
    window's tool tabs, the window's own colour when the view is alone (full screen).

    Opaque, a change inside it repaints it and what it holds, not every transparent
    widget beneath it up to the window (the tool tabs, their dock, the window itself:
    2-7 ms for a line of text). It looks as the transparent box did: the colour is the
    one that showed through (:func:`jaxviz.ui.theme.style.fill_as_tab_page`), taken again
    whenever the box is shown somewhere else.
    """

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._on_tab_page: bool | None = None
        self.setAutoFillBackground(True)

    def showEvent(self, event) -> None:  # noqa: N802 - Qt's name
        self._fill()
        super().showEvent(event)

    def _fill(self) -> None:
        on_tab_page = False
        widget = self.parentWidget()
        while widget is not None:
            if isinstance(widget, QTabWidget):
                on_tab_page = True
                break
            if widget.isWindow():
                break
            widget = widget.parentWidget()
        if on_tab_page == self._on_tab_page:
            return
        self._on_tab_page = on_tab_page
        self.setPalette(QPalette())  # (the inherited one: the window's colours)
        if on_tab_page:
            style.fill_as_tab_page(self)
        else:
            palette = self.palette()
            palette.setColor(QPalette.ColorRole.Window, self.window().palette().window().color())
            self.setPalette(palette)
            self.setAutoFillBackground(True)
