"""A label whose text changes at every step (the Values tab's step counter) does not make
the window lay out again: no layout request reaches the widgets holding it, unless the
text is wider than any it showed (then it grows, so nothing is cut off)."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QHBoxLayout, QLabel, QWidget

from jaxviz.ui.text.steady_label import SteadyLabel


class _Requests(QObject):
    def __init__(self, widget: QWidget):
        super().__init__()
        self.count = 0
        widget.installEventFilter(self)

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 - Qt's name
        if event.type() == QEvent.Type.LayoutRequest:
            self.count += 1
        return False


def _held(label: QWidget, qapp) -> tuple[QWidget, _Requests]:
    holder = QWidget()
    row = QHBoxLayout(holder)
    row.addWidget(label)
    row.addStretch(1)
    holder.resize(500, 40)
    holder.show()
    qapp.processEvents()
    return holder, _Requests(holder)


def test_a_qlabel_relays_out_its_holder_at_each_text(qapp):
    """The oracle: Qt's own label asks for a layout at every text change."""
    label = QLabel("step 1 of 28")
    holder, requests = _held(label, qapp)
    label.setText("step 2 of 28")
    qapp.processEvents()
    assert requests.count >= 1


def test_a_steady_label_does_not_until_a_text_is_wider(qapp):
    label = SteadyLabel("step 100 of 100")
    holder, requests = _held(label, qapp)
    for n in range(2, 12):
        label.setText(f"step {n} of 28")
        qapp.processEvents()
    assert requests.count == 0
    assert label.text() == "step 11 of 28"
    needed = label.label.fontMetrics().horizontalAdvance("step 11 of 28")
    assert label.label.width() >= needed  # shown whole

    wide = "step 12 of 28 -- a much longer text than any before it"
    label.setText(wide)
    qapp.processEvents()
    assert requests.count >= 1  # it grew
    assert label.label.width() >= label.label.fontMetrics().horizontalAdvance(wide)


def test_an_eliding_steady_label_takes_its_place_and_elides_a_longer_text(qapp):
    """The status line: a long message is cut with "…" (whole in the tooltip) instead of
    widening the window, and no text relays the window out."""
    label = SteadyLabel(elide=True)
    holder = QWidget()
    QHBoxLayout(holder).addWidget(label, 1)
    holder.resize(400, 40)
    holder.show()
    qapp.processEvents()
    requests = _Requests(holder)
    requests.count = 0
    label.setText("step 4 of 8: psum, line 12 (pmap)")
    qapp.processEvents()
    assert label.label.text() == "step 4 of 8: psum, line 12 (pmap)" and label.toolTip() == ""
    long = "cannot step: lecture.py has not run yet; press Trace (F5) to run it " * 3
    label.setText(long)
    qapp.processEvents()
    assert requests.count == 0
    assert label.text() == long  # the whole text for whoever reads it
    assert label.label.text().endswith("…") and len(label.label.text()) < len(long)
    assert "cannot step" in label.toolTip()
    assert holder.minimumSizeHint().width() < 400  # it never asked for more room


def test_a_font_set_on_it_is_the_font_its_text_is_drawn_in(qapp):
    """The Values tab's counter is one size up from the window's font, as a QLabel was."""
    from PySide6.QtGui import QFont

    from jaxviz.ui.theme import style

    style.apply_theme(qapp)  # the style sheet gives labels their font
    big = QFont(qapp.font())
    big.setPointSizeF(big.pointSizeF() * 1.5)
    steady, plain_label = SteadyLabel(), QLabel()
    for label in (steady, plain_label):
        label.setFont(big)
        label.setText("step 6 of 28")
    assert (steady.label.fontMetrics().horizontalAdvance("step 6 of 28")
            == plain_label.fontMetrics().horizontalAdvance("step 6 of 28"))
