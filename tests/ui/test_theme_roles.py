"""The window's look without an application-wide style sheet.

With a style sheet set on the application, Qt styles every widget of the process through
its style sheet engine (each widget's rules looked up, cached and consulted at each
paint): about 9 MB of the window's memory in ``benchmarks/bench_gui.py``. The roles'
looks are set on the widgets themselves instead (a font, a palette colour, a painted
strip; a style sheet of its own only for a banner, a field in error and a tab bar).
What is checked is what a user sees: the colours on screen, bold titles, red frames.
"""

from __future__ import annotations

from PySide6.QtGui import QColor, QFontInfo, QPalette
from PySide6.QtWidgets import QApplication, QDockWidget, QWidget

from jaxviz.ui.theme import style
from jaxviz.views import palette


def _sheet_styled(widgets: list[QWidget]) -> list[QWidget]:
    return [w for w in widgets if w.style().metaObject().className() == "QStyleSheetStyle"]


def _shown_pane(window):
    return next(p for v, p in window.area.panes.items() if window.area.is_shown(v))


def _pixel(widget: QWidget, x: int, y: int) -> str:
    return widget.grab().toImage().pixelColor(x, y).name()


def test_few_widgets_go_through_qts_style_sheet_engine(window):
    app = QApplication.instance()
    assert isinstance(app, QApplication) and app.styleSheet() == ""
    widgets = [window, *window.findChildren(QWidget)]
    styled = _sheet_styled(widgets)
    assert len(widgets) > 200
    assert len(styled) < 0.1 * len(widgets), sorted({type(w).__name__ for w in styled})


def test_pane_headers_titles_and_calls_look_as_their_roles_say(window, qtbot):
    window.open_example("normalize")
    qtbot.waitUntil(lambda: not window.session.pending, timeout=60000)
    pane = _shown_pane(window)
    header = pane.title.parentWidget()
    assert isinstance(header, style.PaneHeader)
    assert _pixel(header, 2, 2) == palette.PANE_HEADER  # (left of the title)
    assert _pixel(header, 2, header.height() - 1) == palette.PANE_HEADER_LINE
    assert QFontInfo(pane.title.font()).bold()
    assert not QFontInfo(pane.call.font()).bold()
    # the title is as large as the rest of the window's text (only its weight is set)
    assert pane.title.font().pointSizeF() == pane.call.font().pointSizeF()
    ink = pane.call.palette().color(QPalette.ColorRole.WindowText)
    assert ink == QColor(palette.SECONDARY_INK)
    assert QFontInfo(window.editor_panel.file_label.font()).bold()


def test_a_pane_banner_is_an_error_bar(window, qtbot):
    pane = _shown_pane(window)
    pane.banner.setText("⚠ something failed")
    pane.banner.show()
    qtbot.waitUntil(lambda: pane.banner.isVisible())
    background, text, border = palette.BANNERS["error"]
    banner = pane.banner
    assert _pixel(banner, banner.width() // 2, 2) == background
    assert _pixel(banner, banner.width() // 2, 0) == border


def test_a_field_that_does_not_parse_is_framed_in_red_until_it_does(window, qtbot):
    edit = window.args_panel.edits["args"]
    edit.setText("f32[4,(")
    window.args_panel.validate()
    qtbot.wait(10)
    assert _pixel(edit, 0, edit.height() // 2) == palette.ERROR_COLOUR.lower()
    message = window.args_panel.message
    assert message.palette().color(QPalette.ColorRole.WindowText) == \
        QColor(palette.FIELD_ERROR_TEXT)
    edit.setText("f32[4]")
    window.args_panel.validate()
    qtbot.wait(10)
    assert _pixel(edit, 0, edit.height() // 2) != palette.ERROR_COLOUR.lower()


def test_dock_titles_are_tinted(window):
    for dock in window.findChildren(QDockWidget):
        if dock.isVisible() and dock.widget() is not None:
            top = dock.widget().geometry().top()
            assert top > 4
            assert _pixel(dock, dock.width() // 2, top // 2) == palette.DOCK_TITLE
