"""The window's Export menus, as a lecturer reaches them in a 1280x720 window.

The Devices tab's control bar keeps Export ▾ on screen; its "Frame as PDF" writes
the frame shown, as a vector page with its phase's title as text. The Timing
tab's Export ▾ offers the plot as PDF beside PNG and SVG.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRect

from tests.helpers.rasters import pdf_pages, pdftotext
from tests.helpers.window import JAX_MS, devices_tab

# Not in the fast tier: the window on the real engine.
pytestmark = pytest.mark.slow


def on_screen(widget, window) -> bool:
    """The widget is shown whole inside the window."""
    top_left = widget.mapTo(window, widget.rect().topLeft())
    return widget.isVisible() and window.rect().contains(QRect(top_left, widget.size()))


def test_the_devices_tab_exports_the_frame_shown_as_pdf(qtbot, window, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QFileDialog

    view = devices_tab(qtbot, window, "convolve")
    button = view.controls.export_button
    qtbot.waitUntil(lambda: on_screen(button, window))
    assert button.isEnabled()
    view.seek(3)
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        lambda *_args: (str(tmp_path / "compute"), "PDF documents (*.pdf)"))
    view.controls.export_menu.actions_by_format["frame", "pdf"].trigger()
    assert pdf_pages(tmp_path / "compute.pdf") == (1, pytest.approx((960, 540), abs=0.5))
    assert " ".join(view.phases[3].title.split()) in pdftotext(tmp_path / "compute.pdf")
    assert "Wrote compute.pdf" in view.controls.export_message()


def test_the_timing_tabs_export_menu_offers_the_plot_as_pdf(qtbot, window):
    window.resize(1280, 720)
    window.tools.setCurrentWidget(window.tools.timing)
    qtbot.waitUntil(lambda: window.tools.timing.view is not None, timeout=JAX_MS)
    bar = window.tools.timing.view.export_bar
    qtbot.waitUntil(lambda: on_screen(bar.export_button, window))
    texts = [a.text() for a in bar.menu.actions()]
    assert any(t.startswith("Plot as PDF") for t in texts)
    assert any(t.startswith("All plots as PNG + SVG + PDF") for t in texts)
