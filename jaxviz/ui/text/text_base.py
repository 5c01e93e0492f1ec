"""The text widget both the editor and the jaxpr panes build on.

:class:`LinkedTextEdit` is a :class:`~PySide6.QtWidgets.QPlainTextEdit` with

* a gutter on the left that subclasses paint (line numbers, error markers,
  fold triangles, "what changed" marks);
* layers of whole-line backgrounds (link colours, the active lines, errors)
  merged into Qt's extra selections -- or, in a read-only view, painted by the
  view itself under the text (:attr:`LinkedTextEdit.PAINTED_LAYERS`) -- plus an
  outline around the active lines;
* ``lineHovered`` / ``lineClicked`` signals with 0-based line numbers
  (``-1`` when the mouse leaves), which the linking controller listens to;
* a "dimmed" state that washes the text out: the last good result stays
  readable but visibly out of date.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from PySide6.QtCore import QPoint, QRect, QSize, QTimer, Signal
from PySide6.QtGui import (
    QColor,
    QPainter,
    QPaintEvent,
    QPen,
    QResizeEvent,
    QTextBlock,
    QTextCursor,
    QTextFormat,
)
from PySide6.QtWidgets import QPlainTextEdit, QTextEdit, QToolTip, QWidget
from shiboken6 import isValid

from jaxviz.ui.theme import style

#: A view hands Qt all its layers' ranges up to this many (see
#: :meth:`LinkedTextEdit.flush_selections`), else those near the lines in view.
SELECTIONS_AT_ONCE = 600
#: Lines above and below the view whose ranges Qt gets (Qt lays out every line of a range
#: it is handed, on screen or not: 200 a side was 10 ms of a train step's first paint, 80
#: a side 8 ms of a diff side's).
WINDOW_LINES = 30


def _line_selection(block: QTextBlock, colour: QColor) -> QTextEdit.ExtraSelection:
    """A whole-line background range for one block."""
    sel = QTextEdit.ExtraSelection()
    sel.format.setBackground(colour)
    sel.format.setProperty(QTextFormat.Property.FullWidthSelection, True)
    sel.cursor = QTextCursor(block)
    return sel


class _Gutter(QWidget):
    """The strip left of the text; painting and clicks are delegated to the editor."""

    def __init__(self, edit: LinkedTextEdit):
        super().__init__(edit)
        self._edit = edit
        self.setMouseTracking(True)

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        return QSize(self._edit.gutter_width(), 0)

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802
        painter = QPainter(self)
        painter.fillRect(event.rect(), style.GUTTER_BACKGROUND)
        self._edit.paint_gutter(painter, event.rect())
        painter.end()

    def mousePressEvent(self, event) -> None:  # noqa: N802
        line = self._edit.line_at_y(event.position().y())
        if line >= 0:
            self._edit.gutter_clicked(line, event.position().x())

    def mouseMoveEvent(self, event) -> None:  # noqa: N802
        line = self._edit.line_at_y(event.position().y())
        tip = self._edit.gutter_tooltip(line) if line >= 0 else ""
        if tip:
            QToolTip.showText(event.globalPosition().toPoint(), tip, self)
        else:
            QToolTip.hideText()


#: The views resized while :func:`laid_out_once` holds their layout back, with the size
#: each had before (None: no hold).
_SIZED_LATER: dict[LinkedTextEdit, QSize] | None = None


@contextlib.contextmanager
def laid_out_once() -> Iterator[None]:
    """Lay each text view resized in the block out once, at its size at the end.

    Qt lays a text view's whole text out again at every change of its width (0.3 ms a
    jaxpr): a change of panes resized each shown view three times (at no width when
    shown, at the splitter's shares, at what its handles left of them), 4 ms of the turn
    that lays out data_parallel's panes. Nested blocks are the outermost one's.
    """
    global _SIZED_LATER
    if _SIZED_LATER is not None:
        yield
        return
    _SIZED_LATER = {}
    try:
        yield
    finally:
        resized, _SIZED_LATER = _SIZED_LATER, None
        for view, before in resized.items():
            if isValid(view):
                view.lay_out_after(before)


class LinkedTextEdit(QPlainTextEdit):
    """A plain-text widget with a gutter, background layers, hover/click signals and dimming."""

    #: The background layers, bottom first (a subclass may name its own).
    LAYERS: tuple[str, ...] = ("link", "active", "error")
    #: The whole-line layers (bottom ones of :attr:`LAYERS`) this view paints itself, by
    #: line number, under the text, instead of handing Qt ranges: Qt draws a line under a
    #: range twice and shapes its text again for it, so 40 link-coloured lines made a
    #: pane's paint 2.4-2.9 ms instead of 0.9. For read-only views (their lines do not
    #: move under the colours between two settings of them); the editor keeps Qt's ranges,
    #: which move with the text as it is typed.
    PAINTED_LAYERS: frozenset[str] = frozenset()

    #: The 0-based line under the mouse, or -1 when the mouse left the text.
    lineHovered = Signal(int)
    #: A 0-based line was clicked (pressed and released without dragging).
    lineClicked = Signal(int)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._gutter = _Gutter(self)
        self._layers: dict[str, list[QTextEdit.ExtraSelection]] = {}
        self._layer_keys: dict[str, tuple] = {}
        #: Layers set by line (set_line_backgrounds): (text generation, colours, kept by
        #: number), and a big layer's ranges made so far, by line.
        self._line_layers: dict[str, tuple[int, dict[int, QColor], bool]] = {}
        self._built: dict[str, dict[int, QTextEdit.ExtraSelection]] = {}
        #: The :attr:`PAINTED_LAYERS` set, colours by line.
        self._painted: dict[str, dict[int, QColor]] = {}
        self._selections_stale = False  # the layers changed since Qt last got them
        # Qt gets changed layers at the next turn (or paint, whichever is first): handed
        # over outside a paint, Qt repaints only the lines whose ranges changed (a step of
        # the stepper moves one line's colour: the whole editor and pane repainted)
        self._flush_soon = QTimer(self)
        self._flush_soon.setSingleShot(True)
        self._flush_soon.setInterval(0)
        self._flush_soon.timeout.connect(self.flush_selections)
        #: The lines whose ranges Qt holds (None: all of them), and each layer's line spans.
        self._window: tuple[int, int] | None = None
        self._spans: dict[str, tuple[int, list[tuple[int, int]]]] = {}
        self._generation = 0  # bumped on every text change: old selections are void then
        self.textChanged.connect(self._bump_generation)
        self._outlined: list[tuple[int, int]] = []
        self._hovered = -1
        self._press: QPoint | None = None
        self._dimmed = False
        self.viewport().setMouseTracking(True)
        self.blockCountChanged.connect(self._update_gutter_width)
        self.updateRequest.connect(self._update_gutter)
        # subclasses call refresh_gutter() once their own state exists

    def _bump_generation(self) -> None:
        self._generation += 1
        if self._built:  # a big layer's ranges were made for the old text: made anew
            self._built = {layer: {} for layer in self._built}
            self._selections_stale = True

    # ------------------------------------------------------------------ gutter
    def gutter_width(self) -> int:
        """Width of the gutter in pixels (subclasses add their columns)."""
        return 4

    def paint_gutter(self, painter: QPainter, rect: QRect) -> None:
        """Paint the visible part of the gutter (subclasses override)."""

    def gutter_clicked(self, line: int, x: float) -> None:
        """A click in the gutter at a 0-based line (subclasses override)."""

    def gutter_tooltip(self, line: int) -> str:
        """Tooltip for the gutter at a 0-based line."""
        return ""

    def refresh_gutter(self) -> None:
        """Recompute the gutter's width and repaint it."""
        self._update_gutter_width()
        self._gutter.update()

    def _update_gutter_width(self, *_args) -> None:
        width = self.gutter_width()
        if width != self.viewportMargins().left():  # (Qt lays the view out again each time:
            self.setViewportMargins(width, 0, 0, 0)  # 3 ms for a 4,000-line text)

    def _update_gutter(self, rect: QRect, dy: int) -> None:
        if dy:
            self._gutter.scroll(0, dy)
        else:
            self._gutter.update(0, rect.y(), self._gutter.width(), rect.height())

    def resizeEvent(self, event) -> None:  # noqa: N802
        if _SIZED_LATER is not None:  # laid out once, at the end (see laid_out_once)
            _SIZED_LATER.setdefault(self, QSize(event.oldSize()))
        else:
            super().resizeEvent(event)
        cr = self.contentsRect()
        self._gutter.setGeometry(QRect(cr.left(), cr.top(), self.gutter_width(), cr.height()))

    def lay_out_after(self, before: QSize) -> None:
        """What Qt does when the view was resized from ``before`` to its size now: its text
        laid out again if the width changed, its scroll bars fitted."""
        if self.size() != before:
            QPlainTextEdit.resizeEvent(self, QResizeEvent(self.size(), before))

    def visible_lines(self):
        """``(line, top, bottom)`` in viewport pixels for every visible line."""
        block = self.firstVisibleBlock()
        offset = self.contentOffset()
        height = self.viewport().height()
        while block.isValid():
            if not block.isVisible():  # folded away: no geometry to ask Qt for (a folded
                block = self.after_hidden(block)  # big jaxpr's gutter asked for thousands)
                continue
            geo = self.blockBoundingGeometry(block).translated(offset)
            if geo.top() > height:
                break
            yield block.blockNumber(), int(geo.top()), int(geo.bottom())
            block = block.next()

    def after_hidden(self, block: QTextBlock) -> QTextBlock:
        """The block to look at after a hidden one (a subclass that folds skips the rest
        of the fold)."""
        return block.next()

    def line_at_y(self, y: float) -> int:
        """The 0-based line at a viewport height, or -1 below the last line."""
        for line, top, bottom in self.visible_lines():
            if top <= y < bottom:
                return line
        return -1

    def line_rect(self, line: int) -> QRect:
        """The viewport rectangle of a 0-based line (empty when it is not laid out)."""
        block = self.document().findBlockByNumber(line)
        if not block.isValid():
            return QRect()
        geo = self.blockBoundingGeometry(block).translated(self.contentOffset())
        return QRect(0, int(geo.top()), self.viewport().width(), int(geo.height()))

    # ---------------------------------------------------------------- layers
    def set_line_backgrounds(self, layer: str, colours: dict[int, QColor]) -> None:
        """Give whole lines a background colour in one named layer ("link", "active", "error").

        Up to :data:`SELECTIONS_AT_ONCE` lines get their Qt ranges now (they move with the
        text when it is edited, as Qt's cursors do). More (a train step's link colours:
        thousands of lines a pane) are kept by line number and made into Qt ranges only for
        the lines near the view, when it paints (:meth:`flush_selections`): making one
        range per line of a 5,000-line text was 90 ms of one event-loop turn. A layer of
        :attr:`PAINTED_LAYERS` is kept by line number and painted by the view.
        """
        if layer in self.PAINTED_LAYERS:
            self._set_painted(layer, colours)
            return
        known = self._line_layers.get(layer)
        if known is not None and known[0] == self._generation and known[1] == colours:
            return  # unchanged: no repaint
        if len(colours) <= SELECTIONS_AT_ONCE:
            doc = self.document()
            selections, lines = [], []
            for line, colour in sorted(colours.items()):
                block = doc.findBlockByNumber(line)
                if block.isValid():
                    selections.append(_line_selection(block, colour))
                    lines.append((line, line))
            self.set_selections(layer, selections)
            self._spans[layer] = (self._generation, lines)
        else:  # by line number, made into ranges near the view when it paints
            self.set_selections(layer, [])
            self._built[layer] = {}
        self._line_layers[layer] = (self._generation, dict(colours),
                                    len(colours) > SELECTIONS_AT_ONCE)

    def _set_painted(self, layer: str, colours: dict[int, QColor]) -> None:
        """A painted layer's colours; the lines in view whose colour changed are repainted."""
        old = self._painted.get(layer, {})
        if old == colours:
            return  # unchanged: no repaint
        if self._layers.get(layer):
            self.set_selections(layer, [])  # (ranges it was given before)
        changed = {n for n in old.keys() | colours.keys() if old.get(n) != colours.get(n)}
        if colours:
            self._painted[layer] = dict(colours)
        else:  # (none left: a paint does not look for it)
            self._painted.pop(layer, None)
        viewport = self.viewport()
        if not viewport.isVisible():
            return  # (a view shown again is painted whole; its lines need not be walked)
        width = viewport.width()
        rects: list[QRect] = []
        for line, top, bottom in self.visible_lines():
            if line in changed:
                rects.append(QRect(0, top, width, bottom - top))
                if len(rects) > 12:  # (a new document's colours: the whole view, at once)
                    viewport.update()
                    return
        for rect in rects:
            viewport.update(rect)

    def _paint_layers_under_text(self, painter: QPainter, clip: QRect) -> None:
        """Fill the lines in ``clip`` with the painted layers' colours, bottom layer first."""
        layers = [self._painted[name] for name in self.LAYERS if name in self._painted]
        width = self.viewport().width()
        for line, top, bottom in self.visible_lines():
            if bottom < clip.top():
                continue
            if top > clip.bottom():
                break
            for colours in layers:
                colour = colours.get(line)
                if colour is not None:
                    painter.fillRect(0, top, width, bottom - top, colour)

    def set_selections(self, layer: str, selections: list[QTextEdit.ExtraSelection],
                       key: tuple | None = None,
                       lines: list[tuple[int, int]] | None = None) -> bool:
        """Put formatted ranges (Qt's extra selections) in one named layer of :attr:`LAYERS`.

        ``key`` identifies the content: the same key again (for the same text) repaints
        nothing. ``lines``: each range's first and last line, when the caller knows them
        (else they are read from the ranges' cursors when first needed: two look-ups of a
        block per range, 7-9 ms for a diff side's 5,000). Returns whether the layer changed.
        """
        if key is not None:
            key = (self._generation, key)
            if self._layer_keys.get(layer) == key:
                return False
            self._layer_keys[layer] = key
        else:
            self._layer_keys.pop(layer, None)
        self._layers[layer] = selections
        self._line_layers.pop(layer, None)
        if self._painted.pop(layer, None):
            self.viewport().update()
        self._built.pop(layer, None)
        self._spans.pop(layer, None)
        if lines is not None:
            assert len(lines) == len(selections)
            self._spans[layer] = (self._generation, list(lines))
        # Qt gets the merged layers once, when the view next paints: each call hands it every
        # layer's ranges again, and a new result sets several layers of several views (a
        # train step's link colours: 44 calls of ~4,000 ranges, 0.7 s, were one stall)
        self._selections_stale = True
        self._flush_soon.start()
        return True

    def _lazy(self, layer: str) -> dict[int, QColor] | None:
        """A layer's colours by line when they are kept by number (a big layer), else None."""
        found = self._line_layers.get(layer)
        return found[1] if found is not None and found[2] else None

    def flush_selections(self) -> None:
        """Hand Qt the layers' ranges now if they changed (painting does it too).

        Past :data:`SELECTIONS_AT_ONCE` ranges, Qt gets only those within
        :data:`WINDOW_LINES` lines of the lines in view, again when the view scrolls out of
        them: Qt's paint visits every extra selection for every line it paints, and a train
        step's link colours (4,000 ranges a pane) made one paint of two panes 0.7 s.
        """
        total = sum(len(self._layers.get(name, [])) for name in self.LAYERS)
        total += sum(len(lazy) for name in self.LAYERS if (lazy := self._lazy(name)))
        if total <= SELECTIONS_AT_ONCE:
            if self._selections_stale:
                self._selections_stale = False
                self._window = None
                self.setExtraSelections(self._chosen(0, self.document().blockCount(), True))
            return
        first, last = self._lines_in_view()
        window = self._window
        if not self._selections_stale and window is not None \
                and window[0] <= first and last <= window[1]:
            return
        lo, hi = self._shown_around(first, last)
        self._selections_stale = False
        self._window = (lo, hi)
        self.setExtraSelections(self._chosen(lo, hi, False))

    def _chosen(self, lo: int, hi: int, everything: bool) -> list[QTextEdit.ExtraSelection]:
        """Every layer's ranges (``everything``), else those that touch lines ``lo..hi`` and
        are not folded away (Qt lays out every range it holds); bottom layer first."""
        doc = self.document()
        chosen = []
        for name in self.LAYERS:
            lazy = self._lazy(name)
            if lazy is not None:
                built = self._built.setdefault(name, {})
                block = doc.findBlockByNumber(max(0, lo))
                while block.isValid() and block.blockNumber() <= hi:
                    if not (everything or block.isVisible()):  # folded away: past the fold
                        block = self.after_hidden(block)  # (a folded train step's pane:
                        continue  # 4,000 lines between the two it shows, 13 ms a look)
                    n = block.blockNumber()
                    colour = lazy.get(n)
                    if colour is not None:
                        sel = built.get(n)
                        if sel is None:
                            sel = built[n] = _line_selection(block, colour)
                        chosen.append(sel)
                    block = block.next()
                continue
            selections = self._layers.get(name, [])
            if everything:
                chosen.extend(selections)
                continue
            for sel, (a, b) in zip(selections, self._layer_spans(name)):
                # near the view, and not folded away (Qt lays out every range it holds)
                if b >= lo and a <= hi and (a != b or doc.findBlockByNumber(a).isVisible()):
                    chosen.append(sel)
        return chosen

    def _layer_spans(self, layer: str) -> list[tuple[int, int]]:
        """The first and last line of each of a layer's ranges (remembered per text)."""
        found = self._spans.get(layer)
        if found is not None and found[0] == self._generation:
            return found[1]
        doc = self.document()
        spans = []
        for sel in self._layers.get(layer, []):
            cursor = sel.cursor
            spans.append((doc.findBlock(cursor.selectionStart()).blockNumber(),
                          doc.findBlock(cursor.selectionEnd()).blockNumber()))
        self._spans[layer] = (self._generation, spans)
        return spans

    def _shown_around(self, first: int, last: int) -> tuple[int, int]:
        """The lines from :data:`WINDOW_LINES` shown lines above ``first`` to as many below
        ``last`` (folded lines do not count)."""
        doc = self.document()
        block, count = doc.findBlockByNumber(first), 0
        while block.isValid() and count < WINDOW_LINES:
            count += block.isVisible()
            block = block.previous()
        lo = block.blockNumber() + 1 if block.isValid() else 0
        block, count = doc.findBlockByNumber(last), 0
        hi = last
        while block.isValid() and count < WINDOW_LINES:
            hi = block.blockNumber()
            if block.isVisible():
                count += 1
                block = block.next()
            else:
                block = self.after_hidden(block)
        return lo, (hi if block.isValid() else doc.blockCount())

    def _lines_in_view(self) -> tuple[int, int]:
        """The first and last line (block number) in view."""
        first = self.firstVisibleBlock().blockNumber()
        last = first
        for line, _top, _bottom in self.visible_lines():
            last = line
        return first, last

    def line_background(self, layer: str, line: int) -> QColor | None:
        """The background a layer gives a 0-based line, if any."""
        painted = self._painted.get(layer)
        if painted is not None:
            colour = painted.get(line)
            return QColor(colour) if colour is not None else None
        lazy = self._lazy(layer)
        if lazy is not None:
            colour = lazy.get(line)
            return QColor(colour) if colour is not None else None
        for sel in self._layers.get(layer, []):
            if sel.cursor.blockNumber() == line:
                return sel.format.background().color()
        return None

    def set_outlined(self, ranges: list[tuple[int, int]]) -> None:
        """Draw a frame around each ``(first, last)`` range of lines (the active equations)."""
        if list(ranges) == self._outlined:
            return
        changed = self._outlined + list(ranges)
        self._outlined = list(ranges)
        viewport = self.viewport()
        for first, last in changed:  # only the frames that go and come (and their pen)
            top, bottom = self.line_rect(first), self.line_rect(last)
            if top.isNull() or bottom.isNull():
                viewport.update()  # out of view or gone: cheap to be sure
                return
            viewport.update(QRect(0, top.top() - 2, viewport.width(),
                                  bottom.bottom() - top.top() + 5))

    # --------------------------------------------------------------- dimming
    def set_dimmed(self, dimmed: bool) -> None:
        """Wash the text out (the content is out of date) or show it normally."""
        if dimmed != self._dimmed:
            self._dimmed = dimmed
            self.viewport().update()

    @property
    def dimmed(self) -> bool:
        return self._dimmed

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802
        self.flush_selections()
        self._keep_glyphs_in_view()
        if self._painted:  # under the text (Qt's paint fills no background of its own)
            under = QPainter(self.viewport())
            self._paint_layers_under_text(under, event.rect())
            under.end()
        super().paintEvent(event)
        painter = QPainter(self.viewport())
        if self._outlined:
            pen = QPen(style.ACTIVE_OUTLINE)
            pen.setWidth(2)
            painter.setPen(pen)
            for first, last in self._outlined:
                top, bottom = self.line_rect(first), self.line_rect(last)
                if top.isNull() or bottom.isNull():
                    continue
                painter.drawRect(QRect(1, top.top() + 1, self.viewport().width() - 3,
                                       bottom.bottom() - top.top() - 1))
        self.paint_overlay(painter)
        if self._dimmed:
            wash = QColor(self.palette().color(self.palette().ColorRole.Base))
            wash.setAlpha(150)
            painter.fillRect(self.viewport().rect(), wash)
        painter.end()

    def _keep_glyphs_in_view(self) -> None:
        """Let the lines in view keep their shaped glyphs between paints. By default Qt
        drops a line's glyphs once it is laid out (``QTextLayout::setCacheEnabled``) and
        shapes its text again at every paint, once per coloured token: most of the paint
        of a coloured jaxpr (43 lines: 5.7 of 7.3 ms). Only the lines painted keep them."""
        for block in self.shown_blocks(margin=2):
            layout = block.layout()
            if layout is not None and not layout.cacheEnabled():
                layout.setCacheEnabled(True)

    def shown_blocks(self, margin: int = 1) -> Iterator[QTextBlock]:
        """The blocks in view and ``margin`` lines' worth more, from the first shown,
        counted by line spacing with folded ones skipped (not asked of Qt's layout, which
        would lay out every line in view to answer: the paint's work done twice)."""
        block = self.firstVisibleBlock()
        rows = self.viewport().height() // max(1, self.fontMetrics().lineSpacing()) + margin
        while block.isValid() and rows > 0:
            if not block.isVisible():
                block = self.after_hidden(block)
                continue
            yield block
            rows -= 1
            block = block.next()

    def paint_overlay(self, painter: QPainter) -> None:
        """Paint on top of the text, before dimming (e.g. inline error messages)."""

    # ------------------------------------------------------------ mouse
    def mouseMoveEvent(self, event) -> None:  # noqa: N802
        super().mouseMoveEvent(event)
        line = self.line_at_y(event.position().y())
        if line != self._hovered:
            self._hovered = line
            self.lineHovered.emit(line)

    def leaveEvent(self, event) -> None:  # noqa: N802
        super().leaveEvent(event)
        if self._hovered != -1:
            self._hovered = -1
            self.lineHovered.emit(-1)

    def mousePressEvent(self, event) -> None:  # noqa: N802
        super().mousePressEvent(event)
        self._press = event.position().toPoint()

    def mouseReleaseEvent(self, event) -> None:  # noqa: N802
        super().mouseReleaseEvent(event)
        pos = event.position().toPoint()
        if self._press is not None and (pos - self._press).manhattanLength() < 4:
            line = self.line_at_y(pos.y())
            if line >= 0:
                self.lineClicked.emit(line)
        self._press = None

    def scroll_to_line(self, line: int) -> None:
        """Bring a 0-based line into view (centred when it was off screen)."""
        block = self.document().findBlockByNumber(line)
        if not block.isValid():
            return
        rect = self.line_rect(line)
        if not rect.isNull() and rect.top() >= 0 and rect.bottom() <= self.viewport().height():
            return
        bar = self.verticalScrollBar()
        visible = max(1, self.viewport().height() // max(1, self.fontMetrics().lineSpacing()))
        bar.setValue(max(0, block.firstLineNumber() - visible // 2))
