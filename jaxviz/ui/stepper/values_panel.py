"""The values panel: the current step's inputs and outputs, on the host or on every device.

It draws a :class:`~jaxviz.views.stepper.panel.StepPanel` (built from the
stepping by :func:`~jaxviz.views.stepper.panel.build_panel`): the step's heading,
its jaxpr line and source line, notes, and one column per lane side by side
(one per device, in the device view's colours), with a colour bar for the
scale all heat maps of the step share. Above them, the stepping controls.

A step is shown in short turns of the event loop, not in one long one: its controls
change at once, and its heading, notes and columns are refilled a few columns a turn
(each column laid out in the turn that fills it), behind the last step's picture, which
stays on screen until the whole step is filled and laid out, then painted once
(:attr:`ValuesPanel.filling` says whether columns are still to come,
:meth:`ValuesPanel.finish` fills them at once). The columns and cells are made ahead in
idle turns when a stepping arrives (:meth:`ValuesPanel.prepare`).

The panel holds no stepping state: its buttons emit what the user asked for
(:attr:`ValuesPanel.moveRequested`), and :meth:`ValuesPanel.show_step` shows
whatever step it is given. :attr:`ValuesPanel.model` is what it shows now.
"""

from __future__ import annotations

import sys
from collections.abc import Generator, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

from PySide6.QtCore import QCoreApplication, QEvent, QObject, QPoint, Qt, QTimer, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QLayout,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from jaxviz.model.stepping import StepResult
from jaxviz.ui.sliced import SlicedJob
from jaxviz.ui.stepper.cells import HEATMAP_SIDE, Scale, numbers_font, set_visible
from jaxviz.ui.stepper.colour_bar import ColourBar
from jaxviz.ui.stepper.columns import ColumnWidget
from jaxviz.ui.stepper.sticky_headers import StickyHeaders
from jaxviz.ui.text.plain import plain
from jaxviz.ui.text.steady_label import SteadyLabel
from jaxviz.ui.theme import style
from jaxviz.views import palette
from jaxviz.views.stepper.panel import Column, StepPanel, build_panel

#: The most cells per side (inputs or outputs) of a column, and columns, made ahead of
#: the steps that show them (:meth:`ValuesPanel.prepare`); more are made when shown.
PREPARED_CELLS, PREPARED_COLUMNS = 6, 16
#: The GUI thread's milliseconds of filling columns per turn of the event loop (laying
#: them out and painting them in the next turn costs about twice as much again).
FILL_SLICE_MS = 3.0

#: The moves the buttons ask for: name -> (text, tooltip).
MOVES = {
    "back": ("◀ Back", "One step back (Shift+F10; Left, Page Up)"),
    "next": ("Next ▶", "One step on, into nested jaxprs (F10; Right, Page Down, Space)"),
    "over": ("Over ⤼", "Over a nested jaxpr: to where it ends, with its outputs (F8)"),
    "out": ("Out ⤴", "Out of the nested jaxpr the step is in (Shift+F8)"),
    "line": ("To line ⇥", "Run to the editor's cursor line (Ctrl+F10; or right-click a "
                          "line, or click its number)"),
}


class ValuesPanel(QWidget):
    """The Values tab: stepping controls and the current step's values.

    Signals:
        moveRequested(str): a button: ``back``, ``next``, ``over``, ``out`` or ``line``.
        stopRequested(): leave step mode.
        summaryRequested(): step again keeping statistics only (after a "too large").
    """

    moveRequested = Signal(str)
    stopRequested = Signal()
    summaryRequested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("values_panel")
        # Opaque: a step that changes its labels repaints them, not the tab widget, the
        # dock and the window beneath them as well (a step's repaint: 24 ms, now 15).
        style.fill_as_tab_page(self)
        self.model: StepPanel | None = None
        self.zoom = 0
        self.buttons: dict[str, QToolButton] = {}
        controls = QHBoxLayout()
        controls.setContentsMargins(6, 4, 6, 0)
        for name, (text, tip) in MOVES.items():
            button = QToolButton()
            button.setText(text)
            button.setToolTip(tip)
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # the clicker keys stay the window's
            button.clicked.connect(lambda _=False, n=name: self.moveRequested.emit(n))
            controls.addWidget(button)
            self.buttons[name] = button
        # its text changes at every step: a SteadyLabel does not relayout the window
        self.counter = SteadyLabel("step 100 of 100")
        self.counter.setObjectName("step_counter")
        controls.addSpacing(12)
        controls.addWidget(self.counter)
        controls.addStretch(1)
        self.stop_button = QToolButton()
        self.stop_button.setText("✕ Leave step mode")
        self.stop_button.setToolTip("Stop stepping (F9)")
        self.stop_button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.stop_button.clicked.connect(self.stopRequested)
        controls.addWidget(self.stop_button)
        self.heading = QLabel("")
        self.heading.setObjectName("step_heading")
        self.heading.setTextFormat(Qt.TextFormat.RichText)
        self.heading.setWordWrap(True)
        self.equation = plain(QLabel(""))
        self.equation.setObjectName("step_equation")
        self.equation.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.equation.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.notes = plain(QLabel(""))
        self.notes.setObjectName("step_notes")
        self.notes.setWordWrap(True)
        self.banner = plain(QLabel(""))
        style.set_role(self.banner, "banner")
        self.banner.setWordWrap(True)
        self.banner.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.banner.hide()
        self.summary_button = QPushButton("Step again, keeping statistics only")
        self.summary_button.setToolTip("Summary mode: every value kept as its shape, dtype, "
                                       "minimum, maximum and mean")
        self.summary_button.clicked.connect(self.summaryRequested)
        self.summary_button.hide()
        # Everything below the controls scrolls as one: a step's text and columns may
        # change size from step to step without relaying out the window around them.
        self._content = QWidget()
        self._prepared: StepResult | None = None  # the stepping the widgets are made for
        self._pool_job: SlicedJob | None = None
        self._filling: Generator[None, None, None] | None = None  # the columns still to fill
        self._fill_job: SlicedJob | None = None
        # the heat maps' colour tables, read from pyqtgraph's colour files in turns of their
        # own while the engine steps, not in the step that shows the first one
        SlicedJob(_colour_tables_steps(), parent=self).start()
        self._columns_box = QHBoxLayout()
        self._columns_box.setContentsMargins(6, 4, 6, 4)
        self._columns_box.setSpacing(6)
        self.columns: list[ColumnWidget] = []
        self.colour_bar = ColourBar()
        self.colour_bar.setObjectName("colour_bar")
        self.colour_bar.setFixedSize(110, HEATMAP_SIDE + 48)
        self.colour_bar.hide()
        self._columns_box.addWidget(self.colour_bar, 0, Qt.AlignmentFlag.AlignTop)
        self._columns_box.addStretch(1)
        content = self._content_box = QVBoxLayout(self._content)
        content.setContentsMargins(8, 2, 8, 0)
        content.setSpacing(2)
        for widget in (self.heading, self.equation, self.notes, self.banner):
            content.addWidget(widget)
        content.addWidget(self.summary_button, 0, Qt.AlignmentFlag.AlignLeft)
        content.addLayout(self._columns_box, 1)
        self.scroller = QScrollArea()
        self.scroller.setWidgetResizable(True)
        self.scroller.setFrameShape(QFrame.Shape.NoFrame)
        self.scroller.setWidget(self._content)
        # Its background is the viewport's (the same colour): filled by itself, the content
        # was an opaque widget Qt paints apart from its children, and a step's one paint
        # (every child marked when the content's updates come back on) painted each
        # column twice.
        self._content.setAutoFillBackground(False)
        # A step's outputs are what it made: kept in view when the tab is too short for
        # the whole step (a docked tab at 1280x720 cut the div step's output row).
        self.scroller.viewport().installEventFilter(self)
        self.scroller.verticalScrollBar().rangeChanged.connect(
            lambda *_: QTimer.singleShot(0, self.keep_outputs_in_view))
        # ... and where that scrolls the columns' headers out, their lanes' names stay
        self.sticky = StickyHeaders(self.scroller.viewport(), self._content,
                                    lambda: self.columns)
        for bar in (self.scroller.verticalScrollBar(), self.scroller.horizontalScrollBar()):
            bar.valueChanged.connect(self.sticky.refresh)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addLayout(controls)
        layout.addWidget(self.scroller, 1)
        self.set_zoom(0)
        self._set_enabled(False, None)  # nothing to move through or leave yet
        self.show_message("Step mode shows every equation's values here: press ▶ Step on "
                          "a jaxpr pane (or F9).")

    # -------------------------------------------------------------- content
    def show_step(self, result: StepResult, index: int, source_lines: Sequence[str] = ()
                  ) -> StepPanel:
        """Show step ``index`` of ``result``; returns the model drawn."""
        panel = build_panel(result, index, source_lines)
        self.show_panel(panel, result)
        if self._prepared is not result:
            self.prepare(result)
        return panel

    def prepare(self, result: StepResult) -> SlicedJob:
        """Make, in idle turns of the event loop (a few milliseconds each), the columns and
        cells the steps of ``result`` will show, hidden and polished: a step then only
        fills widgets (making eight devices' cells in the step that first shows them
        took that step tens of milliseconds)."""
        if self._pool_job is not None:
            self._pool_job.cancel()
            self._pool_job.deleteLater()
        self._prepared = result
        self._pool_job = SlicedJob(self._prepare_steps(result), parent=self).start()
        return self._pool_job

    def _prepare_steps(self, result: StepResult) -> Generator[None, None, None]:
        lanes = min(max((len(s.lanes) for s in result.steps), default=0), PREPARED_COLUMNS)
        ins = min(max((len(s.inputs) for s in result.steps), default=0), PREPARED_CELLS)
        outs = min(max((len(s.outputs) for s in result.steps), default=0), PREPARED_CELLS)
        yield from self._columns_steps(lanes)
        for column in self.columns[:lanes]:
            yield from column.inputs.grow_steps(ins)
            yield from column.outputs.grow_steps(outs)

    def _columns_steps(self, count: int) -> Generator[None, None, None]:
        """Columns made until there are ``count``, one a step, hidden (explicitly: each is
        shown when a step fills it)."""
        while len(self.columns) < count:
            self._add_column().hide()
            yield

    def show_panel(self, panel: StepPanel, result: StepResult | None = None) -> None:
        """Draw a panel model: the controls now, the heading, notes and columns of values
        a few columns per turn of the event loop, painted once when all are filled and
        laid out (:meth:`finish` draws the rest at once).

        Eight devices' columns filled, laid out and painted in one turn took 25-60 ms, so
        the window dropped frames on every step; a few columns a turn keep each turn
        within a frame, and the step settles within a few frames. Painted as they were
        filled, each column was painted two or three times a step (filled, laid out,
        then moved when the step's size changed: 4 window paints a step, the longest
        turn 15-20 ms); the last step's picture stays until the new one is whole."""
        self.model = panel
        self._content.setUpdatesEnabled(False)  # painted once, whole (see _fill_steps)
        self.banner.hide()
        self.summary_button.hide()
        variant = f"{result.variant} · " if result is not None else ""
        where = f" — {_escape(panel.source)}" if panel.source else ""
        self.heading.setText(f"<b>{_escape(panel.heading)}</b>{where}"
                             f"<span style='color:{palette.MUTED_INK}'>"
                             f"&nbsp;&nbsp;({variant}equation "
                             f"{_escape(panel.where)})</span>")
        self.equation.setText(panel.equation)
        self.equation.setToolTip(panel.equation)
        self.notes.setText("\n".join(panel.notes))
        set_visible(self.notes, bool(panel.notes))
        self.counter.setText(f"step {panel.index + 1} of {panel.count}")
        self._set_enabled(True, panel)
        if self._fill_job is not None:  # a fill under way: this step refills every column
            self._fill_job.cancel()
            self._fill_job.deleteLater()
        scale = Scale(*panel.scale, panel.diverging) if panel.scale is not None else None
        fill = _Fill(panel, scale, numbers_font(self.zoom, panel.per_device),
                     style.ui_font(self.zoom), len(panel.columns) == 1)
        # Filled one column per turn of the event loop where the columns are (the content
        # laid out again, once, after the last), so that each turn lays out and paints one
        # column, not all of them. Columns a step adds are filled hidden and shown with
        # the last; those it drops are hidden then.
        self._content_box.setEnabled(False)
        self._filling = self._fill_steps(fill)
        self._fill_job = SlicedJob(self._filling, slice_ms=FILL_SLICE_MS, parent=self)
        self._fill_job.failed.connect(self._fill_failed)
        self._fill_job.start()

    @property
    def filling(self) -> bool:
        """Whether columns of the step shown are still being filled (see :meth:`finish`)."""
        return self._fill_job is not None and self._fill_job.busy

    def finish(self) -> None:
        """Fill the columns still to fill now (before a grab, or a test reading them)."""
        if self._filling is not None:
            for _ in self._filling:
                pass
        self._stop_filling()

    def _fill_failed(self, error: BaseException) -> None:
        """A fill raised: the panel is laid out again (not left held), and the error is
        reported as any other error on the GUI thread is."""
        self._stop_filling()
        sys.excepthook(type(error), error, error.__traceback__)

    def _stop_filling(self) -> None:
        """No more columns filled (a fill left half done: the next step refills them all)."""
        if self._fill_job is not None:
            self._fill_job.cancel()
            self._fill_job.deleteLater()
        self._filling = self._fill_job = None
        self._lay_out_filled()
        self._content.setUpdatesEnabled(True)  # (asks for the paint)

    def _lay_out_filled(self) -> None:
        """The step's content laid out now (what a fill held off, whether it ended,
        failed or was cut short), to be painted once, whole, when its updates are on."""
        if not self._content_box.isEnabled():
            _release(self._content_box)
            self._content_box.activate()

    def _fill_steps(self, fill: _Fill) -> Generator[None, None, None]:
        yield from self._columns_steps(len(fill.panel.columns))  # shown with the last
        for widget, column in zip(self.columns, fill.panel.columns):
            yield from widget.inputs.grow_steps(len(column.inputs))  # what the pool lacks
            yield from widget.outputs.grow_steps(len(column.outputs))
            yield from self._fill_column(widget, column, fill)
            yield
        for widget in self.columns[:len(fill.panel.columns)]:
            set_visible(widget, True)
            self._columns_box.setStretchFactor(widget, 0 if fill.side_by_side else 1)
        for widget in self.columns[len(fill.panel.columns):]:
            set_visible(widget, False)
        self._show_scale(fill.scale)
        self._lay_out_filled()
        yield  # painted in a turn of its own, not in the one that laid the step out
        self._content.setUpdatesEnabled(True)  # (asks for the paint)
        QTimer.singleShot(0, self.keep_outputs_in_view)  # once the scroll bars know

    def _fill_column(self, widget: ColumnWidget, column: Column, fill: _Fill
                     ) -> Generator[None, None, None]:
        """Show one column's values. Showing a widget inside a visible one activates the
        layout of every visible ancestor, at once and each time, and a step of another
        shape shows and hides dozens of cells: the column's layouts are off while it
        changes, and laid out once after, in this step (in a later turn, each column's
        layout would land on the turn that lays out and paints the whole step)."""
        layouts = self._layouts(widget)
        with _layouts_held(layouts):  # its inputs, then its outputs, in a step each
            yield from widget.show_column_steps(column, fill.scale, fill.numbers, fill.small,
                                                fill.side_by_side)
        for layout in layouts:
            layout.activate()

    def _layouts(self, column: ColumnWidget) -> list[QLayout]:
        """The layouts a column's fill changes: the column's and its cells'."""
        found = [column.layout(), column.inputs.box, column.outputs.box]
        found += [cell.layout() for cell in column.inputs.widgets + column.outputs.widgets]
        return [layout for layout in found if layout is not None]

    def _add_column(self) -> ColumnWidget:
        added = ColumnWidget(self._content)
        added.ensurePolished()
        self._columns_box.insertWidget(len(self.columns), added, 1)
        self.columns.append(added)
        return added

    def keep_outputs_in_view(self) -> None:
        """Scroll (down, the least that does it) so that the shown columns' outputs are
        wholly in view; their top first where they are taller than the view. Headers
        scrolled out of the top stay drawn there (:class:`StickyHeaders`)."""
        self._scroll_to_outputs()
        self.sticky.refresh()

    def _scroll_to_outputs(self) -> None:
        if self.model is None:
            return
        outputs = [c.outputs for c in self.columns
                   if c.isVisibleTo(self._content) and c.outputs.isVisibleTo(c)]
        if not outputs:
            return
        top = min(o.mapTo(self._content, QPoint(0, 0)).y() for o in outputs)
        bottom = max(o.mapTo(self._content, QPoint(0, o.height())).y() for o in outputs)
        bar = self.scroller.verticalScrollBar()
        view = self.scroller.viewport().height()
        if top >= bar.value() and bottom <= bar.value() + view:
            return
        bar.setValue(max(0, min(top, bottom - view)))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        if event.type() == QEvent.Type.Resize and watched is self.scroller.viewport():
            QTimer.singleShot(0, self.keep_outputs_in_view)
        return False

    def show_message(self, text: str, error: bool = False, offer_summary: bool = False) -> None:
        """A message instead of values (busy, an error, nothing stepped yet)."""
        self.banner.setText(text)
        style.set_style_property(self.banner, "severity", "error" if error else "info")
        self.banner.show()
        self.summary_button.setVisible(offer_summary)

    def clear(self, text: str) -> None:
        """No stepping: controls off ("Leave step mode" too), columns gone, ``text`` in
        the banner."""
        self.model = None
        self._stop_filling()
        if self._pool_job is not None:
            self._pool_job.cancel()
        self._prepared = self._pool_job = None
        self.heading.setText("")
        self.equation.setText("")
        self.notes.hide()
        self.counter.setText("")
        for widget in self.columns:
            widget.hide()
        self.colour_bar.hide()
        self.sticky.refresh()
        self._set_enabled(False, None)
        self.show_message(text)

    def set_zoom(self, zoom: int) -> None:
        """Text sizes follow the window's zoom."""
        self.zoom = zoom
        heading = style.ui_font(zoom + 3)
        self.heading.setFont(heading)
        self.equation.setFont(style.code_font(zoom))
        self.notes.setFont(style.ui_font(zoom))
        self.colour_bar.setFont(style.ui_font(zoom))
        for button in (*self.buttons.values(), self.stop_button):
            button.setFont(style.ui_font(zoom + 1))
        self.counter.setFont(style.ui_font(zoom + 1))
        if self.model is not None:
            self.show_panel(self.model)

    # ------------------------------------------------------------ internals
    def _set_enabled(self, enabled: bool, panel: StepPanel | None) -> None:
        last = panel is not None and panel.index >= panel.count - 1
        first = panel is not None and panel.index == 0
        self.buttons["back"].setEnabled(enabled and not first)
        self.buttons["next"].setEnabled(enabled and not last)
        for name in ("over", "out", "line"):
            self.buttons[name].setEnabled(enabled)
        self.stop_button.setEnabled(enabled)

    def allow_leaving(self, on: bool) -> None:
        """Whether "Leave step mode" can be pressed (on while step mode is, even before
        its first step arrives or after it failed)."""
        self.stop_button.setEnabled(on)

    def _show_scale(self, scale: Scale | None) -> None:
        if scale is None:
            set_visible(self.colour_bar, False)
            return
        self.colour_bar.set_scale(scale)
        set_visible(self.colour_bar, True)

    @property
    def levels(self) -> tuple[float, float]:
        """The colour bar's levels (what every heat map of the step is drawn with)."""
        low, high = self.colour_bar.levels()
        return float(low), float(high)


@dataclass(frozen=True)
class _Fill:
    """What every column of one step is filled with."""

    panel: StepPanel
    scale: Scale | None
    numbers: QFont
    small: QFont
    side_by_side: bool


def _colour_tables_steps() -> Generator[None, None, None]:
    for diverging in (False, True):
        _ = Scale(0.0, 1.0, diverging).lookup_table
        yield


@contextmanager
def _layouts_held(layouts: list[QLayout]) -> Iterator[None]:
    """Layouts off while widgets in them are shown, hidden and filled; then each is laid
    out once (:meth:`QLayout.invalidate` asks for it in the next turn of the event loop)."""
    for layout in layouts:
        layout.setEnabled(False)
    try:
        yield
    finally:
        for layout in layouts:
            _release(layout)


def _release(layout: QLayout) -> None:
    """A layout held off on again, laid out in the next turn of the event loop (before Qt
    paints). Asked for by an event: a layout that was off when asked to lay out was never
    laid out since, and :meth:`QLayout.invalidate` only asks again of one that was."""
    layout.setEnabled(True)
    layout.invalidate()
    widget = layout.parentWidget()
    if widget is not None:
        QCoreApplication.postEvent(widget, QEvent(QEvent.Type.LayoutRequest))


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
