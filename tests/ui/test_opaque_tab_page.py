"""A tab page made opaque (so a change on it does not repaint the tab widget, its dock and
the window beneath) looks exactly as the transparent page did."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QTabWidget, QVBoxLayout, QWidget

from jaxviz.ui.theme import style


def _grab(opaque: bool, qapp):
    tabs = QTabWidget()
    page = QWidget()
    QVBoxLayout(page).addWidget(QLabel("step 6 of 28"))
    if opaque:
        style.fill_as_tab_page(page)
    tabs.addTab(page, "Values")
    tabs.resize(300, 200)
    tabs.show()
    qapp.processEvents()
    image = tabs.grab().toImage()
    tabs.close()
    return image, page.autoFillBackground()


def test_an_opaque_tab_page_looks_as_the_transparent_one(qapp):
    style.apply_theme(qapp)
    before, _ = _grab(False, qapp)
    after, filled = _grab(True, qapp)
    assert filled
    assert before.size() == after.size()
    differing = [(x, y) for x in range(0, before.width(), 3) for y in range(0, before.height(), 3)
                 if before.pixel(x, y) != after.pixel(x, y)]
    assert differing == []


def test_the_values_panel_is_opaque(qapp):
    from jaxviz.ui.stepper.values_panel import ValuesPanel

    panel = ValuesPanel()
    assert panel.autoFillBackground()
