"""The presenter console, on a second screen: this slide, the next, the notes, the time.

As slide programs do, the console stays on the lecturer's screen while the
audience's screen shows only the slide. It follows the presentation window
(its ``moved`` signal) and forwards the keys pressed on it, so a clicker
works whichever window has the focus. Which screen gets what is decided
Qt-free (:func:`jaxviz.views.present.presentation.choose_screens`).
"""

from __future__ import annotations

import time

from PySide6.QtCore import QRectF, Qt, QTimer
from PySide6.QtGui import QColor, QFontMetricsF, QKeyEvent, QPainter
from PySide6.QtWidgets import QWidget

from jaxviz.ui.keys import key_name
from jaxviz.ui.present.style import Sizes, ui_font
from jaxviz.ui.present.window import PresentationWindow
from jaxviz.views import palette
from jaxviz.views.present.presentation import elapsed_text

BACKGROUND = palette.CONSOLE_BACKGROUND
TEXT, MUTED = palette.THEMES["dark"].device_view.fg, palette.THEMES["dark"].device_view.muted


class PresenterConsole(QWidget):
    """Current and next slide, speaker notes and the elapsed time."""

    def __init__(self, presentation: PresentationWindow, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle(f"{presentation.lecture.title} — presenter console")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.presentation = presentation
        self.started = time.monotonic()
        presentation.moved.connect(lambda _index: self.update())
        self._clock = QTimer(self, interval=1000)
        self._clock.timeout.connect(self.update)
        self._clock.start()

    def elapsed(self) -> str:
        return elapsed_text(time.monotonic() - self.started)

    def notes(self) -> str:
        slide = self.presentation.slide
        if slide is None:
            return ""
        paragraphs = (slide.notes or "(no notes for this slide)").split("\n\n")
        return "\n\n".join(" ".join(p.split()) for p in paragraphs)

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt's name
        if key_name(event) == "R":  # restart the clock
            self.started = time.monotonic()
            self.update()
            return
        self.presentation.keyPressEvent(event)
        self.update()

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt's name
        p = QPainter(self)
        try:
            self._paint(p)
        finally:
            p.end()

    def _paint(self, p: QPainter) -> None:
        w, h = self.width(), self.height()
        sizes = Sizes.for_size(w, h)
        m = sizes.margin * 0.6
        p.fillRect(self.rect(), QColor(BACKGROUND))
        pres = self.presentation
        count = len(pres.slides)
        index = pres.index
        big = ui_font(sizes.px(44), bold=True)
        small = ui_font(sizes.px(26))
        p.setFont(big)
        p.setPen(QColor(TEXT))
        top = QRectF(m, m * 0.5, w - 2 * m, QFontMetricsF(big).height())
        p.drawText(top, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                   f"slide {index + 1} / {max(count, 1)}")
        p.drawText(top, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                   self.elapsed())
        blank = pres.position.blank
        if blank:
            p.setFont(small)
            p.drawText(top, Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignVCenter,
                       f"audience sees a {blank} screen")
        y = top.bottom() + m * 0.5
        current_w = (w - 3 * m) * 0.62
        next_w = (w - 3 * m) - current_w
        aspect = pres.height() / max(1, pres.width()) if pres.width() > 1 else 9 / 16
        current = QRectF(m, y, current_w, current_w * aspect)
        following = QRectF(2 * m + current_w, y + QFontMetricsF(small).height(), next_w,
                           next_w * aspect)
        if count:
            p.drawImage(current, pres.image(index, int(current.width()), int(current.height()),
                                            pres.position.whole))
            p.setFont(small)
            p.setPen(QColor(MUTED))
            p.drawText(QRectF(following.left(), y, next_w, QFontMetricsF(small).height()),
                       Qt.AlignmentFlag.AlignLeft, "next")
            if index + 1 < count:
                p.drawImage(following, pres.image(index + 1, int(following.width()),
                                                  int(following.height())))
            else:
                p.drawText(following, Qt.AlignmentFlag.AlignCenter, "the end")
        notes_top = max(current.bottom(), following.bottom()) + m * 0.5
        p.setFont(ui_font(sizes.px(30)))
        p.setPen(QColor(TEXT))
        p.drawText(QRectF(m, notes_top, w - 2 * m, h - notes_top - m),
                   Qt.TextFlag.TextWordWrap | Qt.AlignmentFlag.AlignLeft, self.notes())
