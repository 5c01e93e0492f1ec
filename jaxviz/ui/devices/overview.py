"""The device view's overview of a big program: the program strip and the folded group tree.

:class:`ProgramStrip` paints :func:`jaxviz.views.devices.strip.strip_layout`:
every phase a mark (colour: compute or the collective's kind; height: the
bytes it moves), the groups of the first levels as bands under it, the phase
shown as a cursor; clicking or dragging jumps to the phase under the mouse,
hovering names it. :class:`GroupTree` lists
:func:`jaxviz.views.devices.overview.build_overview`'s rows, folded below the
first level (a repeated stretch reads ``block (line 56) x12``); clicking a row
shows its first phase, and the row of the phase shown is selected as the
animation moves. Both are plain views of the Qt-free layout.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QMouseEvent, QPainter, QPen, QPixmap
from PySide6.QtWidgets import QHeaderView, QSizePolicy, QTreeWidget, QTreeWidgetItem, QWidget

from jaxviz.ui.theme.style import qcolor
from jaxviz.views import palette
from jaxviz.views.devices.overview import OverviewRow, innermost_row, row_path
from jaxviz.views.devices.scene import Scene
from jaxviz.views.devices.strip import Strip, moved_bytes, strip_layout
from jaxviz.views.incremental import Steps, run_to_end

MARKS_HEIGHT = 30
BAND_HEIGHT = 17
PAD = 4


def _size_words(n: int) -> str:
    for unit, size in (("MB", 1 << 20), ("kB", 1 << 10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} B"


class ProgramStrip(QWidget):
    """Every phase of the program as a mark; click or drag to jump.

    Signals:
        phaseRequested(int): the user picked a phase.
    """

    phaseRequested = Signal(int)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.scene: Scene | None = None
        self.rows: list[OverviewRow] = []
        self.theme = "light"
        self.current = 0
        self._strip: Strip | None = None
        #: The marks and bands drawn (see paintEvent), and what they were drawn for.
        self._marks: tuple[tuple, QPixmap] | None = None
        #: Marks laid out and drawn ahead for a scene (see prepare).
        self._prepared: tuple[Scene, list[OverviewRow], Strip, tuple[tuple, QPixmap]] \
            | None = None
        self.setMouseTracking(True)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setFixedHeight(PAD * 2 + MARKS_HEIGHT + 2 * BAND_HEIGHT)

    def set_scene(self, scene: Scene, rows: list[OverviewRow]) -> None:
        self.scene, self.rows, self._strip, self._marks = scene, rows, None, None
        ready, self._prepared = self._prepared, None
        if ready is not None and ready[0] is scene and ready[1] is rows:
            self._strip, self._marks = ready[2], ready[3]
        self.update()

    def prepare(self, scene: Scene, rows: list[OverviewRow], width: int) -> Steps[None]:
        """Lay out, then draw, the marks of ``scene`` (two steps), for a strip ``width`` px
        wide (the view's, before the strip is shown), for :meth:`set_scene` of the same
        scene and rows to use: its first paint then only copies them (a train step's 600
        marks are 3 ms to lay out and 5 to draw; the view prepares them in its steps)."""
        strip = strip_layout(scene, rows, max(width - 2 * PAD, 1))
        yield
        self._prepared = (scene, rows, strip,
                          (self._marks_key(width), self._marks_pixmap(strip, width)))

    def _marks_key(self, width: int) -> tuple:
        return (width, self.height(), self.theme, self.devicePixelRatioF(), self.font().key())

    def set_current(self, phase: int) -> None:
        if phase != self.current:
            self.current = phase
            self.update()

    def strip(self) -> Strip | None:
        """The layout at the widget's current width."""
        if self.scene is None:
            return None
        width = max(self.width() - 2 * PAD, 1)
        if self._strip is None or self._strip.width != width:
            self._strip = strip_layout(self.scene, self.rows, width)
            self._marks = None
        return self._strip

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt's name
        colours = palette.theme(self.theme).device_view
        p = QPainter(self)
        try:
            strip = self.strip()
            if strip is None:
                p.fillRect(self.rect(), qcolor(colours.bg))
                return
            # the marks and bands, drawn once per layout; the cursor moves over them
            key = self._marks_key(self.width())
            if self._marks is None or self._marks[0] != key:
                self._marks = (key, self._marks_pixmap(strip, self.width()))
            p.drawPixmap(0, 0, self._marks[1])
            x = PAD + strip.x_of(self.current)
            p.setPen(QPen(qcolor(colours.accent), 2))
            p.drawLine(int(x), PAD - 2, int(x), PAD + MARKS_HEIGHT + 2 * BAND_HEIGHT)
        finally:
            p.end()

    def _marks_pixmap(self, strip: Strip, width: int) -> QPixmap:
        dpr = self.devicePixelRatioF()
        pix = QPixmap(int(width * dpr), int(self.height() * dpr))
        pix.setDevicePixelRatio(dpr)
        p = QPainter(pix)
        try:
            self._paint_marks(p, strip, width)
        finally:
            p.end()
        return pix

    def _paint_marks(self, p: QPainter, strip: Strip, width: int) -> None:
        """Everything but the cursor: the background, every phase's mark, the bands."""
        colours = palette.theme(self.theme).device_view
        p.fillRect(QRectF(0, 0, width, self.height()), qcolor(colours.bg))
        base = PAD + MARKS_HEIGHT
        fills: dict[str, QColor] = {}
        for m in strip.marks:
            h = max(m.height * MARKS_HEIGHT, 2.0)
            fill = fills.get(m.kind)
            if fill is None:
                fill = fills[m.kind] = qcolor(palette.STRIP_COLOURS.get(m.kind, colours.muted))
            p.fillRect(QRectF(PAD + m.x, base - h, max(m.width - (m.width > 3), 1.0), h), fill)
        font = QFont(self.font())
        font.setPixelSize(11)
        p.setFont(font)
        metrics = QFontMetricsF(font)
        for band in strip.bands:
            y = base + 2 + (band.level - 1) * BAND_HEIGHT
            rect = QRectF(PAD + band.x0, y, max(band.x1 - band.x0 - 1, 1.0), BAND_HEIGHT - 3)
            p.fillRect(rect, qcolor(palette.mix(colours.panel, colours.frame, 0.25
                                                if band.level == 1 else 0.12)))
            text = metrics.elidedText(band.title, Qt.TextElideMode.ElideRight,
                                      rect.width() - 4)
            if rect.width() > 14 and text != "…":
                p.setPen(qcolor(colours.fg))
                p.drawText(rect.adjusted(2, 0, -2, 0), Qt.AlignmentFlag.AlignVCenter, text)

    def _phase_at(self, event: QMouseEvent) -> int | None:
        strip = self.strip()
        return strip.phase_at(event.position().x() - PAD) if strip is not None else None

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt's name
        phase = self._phase_at(event)
        if phase is not None and event.button() == Qt.MouseButton.LeftButton:
            self.phaseRequested.emit(phase)
            event.accept()
            return
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt's name
        phase = self._phase_at(event)
        if phase is not None and self.scene is not None:
            if event.buttons() & Qt.MouseButton.LeftButton:
                self.phaseRequested.emit(phase)
            self.setToolTip(self.describe(phase))
        super().mouseMoveEvent(event)

    def describe(self, phase: int) -> str:
        """The hover text of a phase: its number, title, groups and bytes moved."""
        assert self.scene is not None
        ph = self.scene.phases[phase]
        where = " / ".join(self.rows[r].title for r in row_path(
            self.rows, innermost_row(self.rows, phase))[1:])
        moved = moved_bytes(ph.step) if ph.step is not None else 0
        size = f"\n{_size_words(moved)} per device" if moved else ""
        return f"phase {phase + 1} of {len(self.scene.phases)}: {ph.title}" + (
            f"\n{where}" if where else "") + size


class GroupTree(QTreeWidget):
    """The overview's rows, folded below the first level; a click shows a row's first phase.

    Signals:
        phaseRequested(int): the first phase of the row clicked.
    """

    phaseRequested = Signal(int)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("deviceOverview")
        self.setColumnCount(2)
        self.setHeaderLabels(["group", "phases"])
        self.setUniformRowHeights(True)
        header = self.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        self.setIndentation(12)
        # A title's start says what the group is ("block (line 73) x12", "forward pass
        # (jvp)"); what follows qualifies it and is in the row's hover text in full.
        self.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.rows: list[OverviewRow] = []
        self.items: list[QTreeWidgetItem] = []
        self.itemClicked.connect(self._clicked)

    def set_rows(self, rows: list[OverviewRow],
                 items: list[QTreeWidgetItem] | None = None) -> None:
        """Show ``rows`` (``items``: theirs, made ahead by :meth:`items_steps`)."""
        self.clear()
        self.rows = rows
        self.items = items if items is not None else run_to_end(self.items_steps(rows))
        self.addTopLevelItems([item for item, row in zip(self.items, rows)
                               if row.parent is None])
        for k, row in enumerate(rows):
            self.items[k].setExpanded(row.depth == 0)

    @staticmethod
    def items_steps(rows: list[OverviewRow], per_step: int = 40
                    ) -> Steps[list[QTreeWidgetItem]]:
        """The rows' items, each under its parent's, in no tree yet, :data:`per_step` a
        step (a train step's 165 rows made at once were 5-9 ms of the turn its scene
        came in)."""
        items: list[QTreeWidgetItem] = []
        for k, row in enumerate(rows):
            where = (f"  · line {row.line}" if row.line is not None
                     and f"line {row.line}" not in row.title else "")
            item = QTreeWidgetItem([row.title + where, f"{row.first + 1}–{row.last + 1}"])
            item.setData(0, Qt.ItemDataRole.UserRole, k)
            item.setToolTip(0, f"{row.title}{where}\n(group {row.name})")  # (elided above)
            if row.parent is not None:
                items[row.parent].addChild(item)
            items.append(item)
            if k % per_step == per_step - 1:
                yield
        return items

    def show_phase(self, phase: int) -> None:
        """Select the innermost visible row of ``phase`` (its folded ancestors stay folded)."""
        if not self.rows:
            return
        path = row_path(self.rows, innermost_row(self.rows, phase))
        shown = None
        for k in path:
            shown = k
            if not self.items[k].isExpanded():
                break
        if shown is not None:
            self.blockSignals(True)
            self.setCurrentItem(self.items[shown])
            self.blockSignals(False)

    def _clicked(self, item: QTreeWidgetItem, column: int) -> None:
        k = item.data(0, Qt.ItemDataRole.UserRole)
        if isinstance(k, int) and 0 <= k < len(self.rows):
            self.phaseRequested.emit(self.rows[k].first)
