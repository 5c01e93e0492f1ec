"""The presentation window: one slide at a time, full screen, driven by a clicker.

Keys are read by name (``QKeySequence`` spelling) and handed to the Qt-free
:class:`~jaxviz.views.present.presentation.PresentationCursor` (its ``KEY_MAP`` is the
table of what each key does). The slide is drawn by
:class:`~jaxviz.ui.present.paint.SlidePainter` into an image cached per slide
and size, so repainting is instant; the exports draw with the same painter.

``E`` opens the function's source in an editor over the slide (large type);
Ctrl+Return re-traces with the edit and comes back to the same slide, Esc
comes back without it. Opened from the main window, E leaves into the window's
own editor instead (:attr:`PresentationWindow.edit_elsewhere`). ``M`` on a timing
slide measures it live (in the engine) instead of replaying the recording.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from PySide6.QtCore import QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFontMetricsF, QImage, QKeyEvent, QKeySequence, QPainter
from PySide6.QtWidgets import QPlainTextEdit, QWidget

from jaxviz.ui.keys import key_name
from jaxviz.ui.present.loading import DeckLoader
from jaxviz.ui.present.paint import SlidePainter
from jaxviz.ui.present.style import CAPTION_PX, SMALL_PX, Sizes, mono_font, ui_font
from jaxviz.views import palette
from jaxviz.views.present.deck import Slide, built, leave_out
from jaxviz.views.present.lecture import Lecture
from jaxviz.views.present.presentation import PresentationCursor

#: How long a message (``go to slide 3``, ``this is the last slide``) stays, in ms.
MESSAGE_MS = 2500
BLANK_COLOURS = {"black": palette.BLACK, "white": palette.WHITE}


class PresentationWindow(QWidget):
    """The audience's screen.

    Signals:
        moved(int): the slide shown changed (its index).
        left(int): the presentation was left with Esc, on this slide.
    """

    moved = Signal(int)
    left = Signal(int)

    def __init__(self, lecture: Lecture, loader: DeckLoader | None, theme: str = "light",
                 start: int = 0, slides: list[Slide] | None = None,
                 parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle(f"{lecture.title} — jaxviz present")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setCursor(Qt.CursorShape.BlankCursor)
        self.lecture = lecture
        self.loader = loader
        self.theme = theme
        self.slides: list[Slide] = slides or []
        self.position = PresentationCursor(max(1, len(self.slides)), start)
        self._start = start
        self._images: dict[tuple[int, int, int, bool], QImage] = {}
        self.status = "loading the lecture ..." if not slides else ""
        self.message = ""
        #: Why steps were left out of the deck shown (see :func:`leave_out`).
        self.left_out: list[str] = []
        self._message_timer = QTimer(self, singleShot=True, interval=MESSAGE_MS)
        self._message_timer.timeout.connect(self._clear_message)
        self.editor: _SlideEditor | None = None
        self.sources: dict[str, str] = {}
        self.measured = False
        #: Picks the slide to start on once the deck is loaded (None: ``start``).
        self.start_for: Callable[[list[Slide]], int] | None = None
        #: E calls this with the slide shown instead of opening the editor over the
        #: slide (a presentation opened from the window edits in the window's editor).
        self.edit_elsewhere: Callable[[int], None] | None = None
        if loader is not None:
            loader.progress.connect(self._on_progress)
            loader.loaded.connect(self.set_slides)

    # ------------------------------------------------------------------ data
    @property
    def index(self) -> int:
        return self.position.index

    @property
    def slide(self) -> Slide | None:
        return self.slides[self.position.index] if self.slides else None

    def set_slides(self, slides: list[Slide]) -> None:
        """Show a (re)loaded deck, on the same slide (clamped); a step that failed or has
        nothing to show is left out, and the message (and standard error) say which."""
        whole, left_out = leave_out(slides)
        self.left_out = left_out
        for why in left_out:
            print(f"jaxviz present: left out {why}", file=sys.stderr)
        # nothing left but framing after leaving steps out: show the failures, said
        slides = whole if built(whole) or not left_out else slides
        keep = self.position.index if self.slides else (
            self.start_for(slides) if self.start_for is not None else self._start)
        self.slides = slides
        self.position = PresentationCursor(max(1, len(slides)), keep)
        self._images.clear()
        self.status = ""
        if left_out:
            self.show_message(f"left out {len(left_out)} step{'s' if len(left_out) > 1 else ''}"
                              f": {left_out[0]}" + (" …" if len(left_out) > 1 else ""))
        self.update()
        self.moved.emit(self.position.index)

    def _on_progress(self, text: str) -> None:
        self.status = text
        self.update()

    # ------------------------------------------------------------------ keys
    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt's name
        name = key_name(event)
        before = self.position.index
        pressed = self.position.press(name)
        if not pressed.action:
            super().keyPressEvent(event)
            return
        if pressed.action == "leave":
            self.left.emit(self.position.index)
            self.close()
            return
        if pressed.action == "measure":
            self.measure()
        elif pressed.action == "edit":
            self.edit()
        self.show_message(pressed.message)
        self.update()
        if self.position.index != before:
            self.moved.emit(self.position.index)

    def press(self, name: str) -> None:
        """Press the key named ``name`` (the console forwards its keys here)."""
        key = QKeySequence(name)[0].key() if name else Qt.Key.Key_unknown  # type: ignore[index]
        self.keyPressEvent(QKeyEvent(QKeyEvent.Type.KeyPress, key,
                                     Qt.KeyboardModifier.NoModifier))

    def show_message(self, text: str) -> None:
        self.message = text
        if text:
            self._message_timer.start()

    def _clear_message(self) -> None:
        self.message = ""
        self.update()

    # ------------------------------------------------------------------ live
    def measure(self) -> None:
        """Measure the lecture's timing steps live (again: back to the recordings)."""
        if self.loader is None or self.slide is None or self.slide.view != "timing":
            self.show_message("M measures a timing slide live")
            return
        self.measured = not self.measured
        if self.loader.load(measure=self.measured, sources=self.sources):
            self.status = "measuring live ..." if self.measured else "back to the recordings"

    def edit(self) -> None:
        """The current function's source in an editor over the slide."""
        slide = self.slide
        if slide is None or slide.data is None or slide.data.target is None:
            self.show_message("this slide shows no function to edit")
            return
        if self.edit_elsewhere is not None:
            self.edit_elsewhere(self.position.index)
            return
        if self.editor is None:
            self.editor = _SlideEditor(self)
            self.editor.applied.connect(self._apply_edit)
            self.editor.cancelled.connect(self._close_editor)
        self.editor.target = slide.data.target_text
        self.editor.setPlainText(slide.data.target.source)
        sizes = Sizes.for_size(self.width(), self.height())
        self.editor.setFont(mono_font(sizes.px(26)))
        self.editor.setGeometry(self.rect().adjusted(int(sizes.margin), int(sizes.margin),
                                                     -int(sizes.margin), -int(sizes.margin)))
        line = slide.first_line if slide.view == "source" else 1
        block = self.editor.document().findBlockByNumber(max(0, line - 1))
        text_cursor = self.editor.textCursor()
        text_cursor.setPosition(block.position())
        self.editor.setTextCursor(text_cursor)
        self.editor.show()
        self.editor.setFocus()
        self.setCursor(Qt.CursorShape.IBeamCursor)

    def _apply_edit(self, target: str, source: str) -> None:
        self.sources[target] = source
        self._close_editor()
        if self.loader is not None and self.loader.load(measure=self.measured,
                                                        sources=self.sources):
            self.status = "re-tracing the edited function ..."
        self.update()

    def _close_editor(self) -> None:
        if self.editor is not None:
            self.editor.hide()
        self.setCursor(Qt.CursorShape.BlankCursor)
        self.setFocus()

    # ------------------------------------------------------------------ paint
    def image(self, index: int, width: int, height: int, whole: bool = False) -> QImage:
        """Slide ``index`` drawn at ``width`` x ``height`` (cached)."""
        key = (index, width, height, whole)
        if key not in self._images:
            if len(self._images) > 24:
                self._images.clear()
            image = QImage(width, height, QImage.Format.Format_RGB32)
            painter = QPainter(image)
            try:
                SlidePainter(self.slides[index], self.theme, index + 1, len(self.slides),
                             whole, self.lecture.title).paint(painter, width, height)
            finally:
                painter.end()
            self._images[key] = image
        return self._images[key]

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt's name
        p = QPainter(self)
        try:
            if self.position.blank is not None:
                p.fillRect(self.rect(), QColor(BLANK_COLOURS[self.position.blank]))
                return
            if not self.slides:
                self._paint_status(p, self.status or "loading ...", centred=True)
                return
            p.drawImage(0, 0, self.image(self.position.index, self.width(), self.height(),
                                         self.position.whole))
            note = self.message or (f"slide {self.position.typed} (Enter)" if self.position.typed
                                    else self.status)
            if note:
                self._paint_status(p, note)
        finally:
            p.end()

    def _paint_status(self, p: QPainter, text: str, centred: bool = False) -> None:
        sizes = Sizes.for_size(self.width(), self.height())
        font = ui_font(sizes.px(CAPTION_PX if centred else SMALL_PX))
        metrics = QFontMetricsF(font)
        p.setFont(font)
        if centred:
            p.fillRect(self.rect(), QColor(palette.WHITE))
            p.setPen(QColor(palette.SLIDE_INK))
            p.drawText(QRectF(self.rect()), Qt.AlignmentFlag.AlignCenter, text)
            return
        w = metrics.horizontalAdvance(text) + sizes.px(24)
        box = QRectF(sizes.px(12), self.height() - metrics.height() * 1.6 - sizes.px(8), w,
                     metrics.height() * 1.6)
        overlay = QColor(palette.OVERLAY)
        overlay.setAlpha(palette.OVERLAY_ALPHA)
        p.fillRect(box, overlay)
        p.setPen(QColor(palette.WHITE))
        p.drawText(box, Qt.AlignmentFlag.AlignCenter, text)

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        if self.editor is not None and self.editor.isVisible():
            sizes = Sizes.for_size(self.width(), self.height())
            m = int(sizes.margin)
            self.editor.setGeometry(self.rect().adjusted(m, m, -m, -m))
        super().resizeEvent(event)


class _SlideEditor(QPlainTextEdit):
    """The function's source over the slide: Ctrl+Return applies, Esc cancels."""

    applied = Signal(str, str)
    cancelled = Signal()

    def __init__(self, parent: QWidget):
        super().__init__(parent)
        self.target = ""
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        accent = palette.THEMES["light"].device_view.accent
        self.setStyleSheet(f"QPlainTextEdit {{ background: {palette.WHITE}; "
                           f"color: {palette.INK}; border: 3px solid {accent}; }}")
        from jaxviz.ui.text.highlighters import python_highlighter

        self._highlighter = python_highlighter(self.document())

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt's name
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and \
                event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            self.applied.emit(self.target, self.toPlainText())
            return
        if event.key() == Qt.Key.Key_Escape:
            self.cancelled.emit()
            return
        super().keyPressEvent(event)
