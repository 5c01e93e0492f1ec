"""One lane of a step -- the host or one device -- as a column of values.

A :class:`ColumnWidget` shows a :class:`~jaxviz.views.stepper.panel.Column`: a
header in the device's colour (the device view's), the inputs, an arrow, the
outputs. It keeps its :class:`~jaxviz.ui.stepper.cells.CellWidget` s and refills
them on the next step. A lone column (host values) lays inputs and outputs
side by side; per-device columns stack them, so eight fit across the window.
"""

from __future__ import annotations

from collections.abc import Iterator

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QBoxLayout, QFrame, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from jaxviz.ui.stepper.cells import (
    DEVICE_HEATMAP_SIDE,
    HEATMAP_SIDE,
    CellWidget,
    Scale,
    set_visible,
)
from jaxviz.ui.text.plain import plain
from jaxviz.views.palette import text_on
from jaxviz.views.stepper.panel import Cell, Column


class _CellList(QWidget):
    """The cells of one side (inputs or outputs), kept for reuse."""

    def __init__(self, direction: QBoxLayout.Direction, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.box = QBoxLayout(direction, self)
        self.box.setContentsMargins(0, 0, 0, 0)
        self.box.setSpacing(6)
        self.widgets: list[CellWidget] = []

    def grow(self) -> CellWidget:
        """One more (hidden) cell, polished, with its heat map and histogram made: ready
        to be filled (see :meth:`ValuesPanel.prepare <jaxviz.ui.stepper.values_panel.
        ValuesPanel.prepare>`)."""
        widget = CellWidget(self)
        widget.hide()  # explicitly: a list shown later does not show its spare cells
        widget.prepare()
        self.box.insertWidget(len(self.widgets), widget, 0)
        self.widgets.append(widget)
        return widget

    def grow_steps(self, count: int) -> Iterator[None]:
        """:meth:`grow` until there are ``count`` cells, one cell a step."""
        while len(self.widgets) < count:
            self.grow()
            yield

    def show_cells(self, cells: list[Cell], scale: Scale | None, numbers: QFont,
                   small: QFont, side: int) -> None:
        while len(self.widgets) < len(cells):
            self.grow()
        for widget, cell in zip(self.widgets, cells):
            widget.set_fonts(numbers, small)
            widget.show_cell(cell, scale, side)
            set_visible(widget, True)
        for widget in self.widgets[len(cells):]:
            set_visible(widget, False)

    def set_direction(self, direction: QBoxLayout.Direction) -> None:
        self.box.setDirection(direction)


class ColumnWidget(QFrame):
    """The values of one lane: a coloured header, inputs, an arrow, outputs."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setProperty("role", "value-column")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.header = plain(QLabel())
        self.header.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.header.setObjectName("column_header")
        self.inputs = _CellList(QBoxLayout.Direction.TopToBottom)
        self.outputs = _CellList(QBoxLayout.Direction.TopToBottom)
        self.arrow = QLabel("↓")
        self.arrow.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.body = QBoxLayout(QBoxLayout.Direction.TopToBottom)
        self.body.setSpacing(4)
        self.body.addWidget(self.inputs)
        self.body.addWidget(self.arrow)
        self.body.addWidget(self.outputs)
        self.body.addStretch(1)
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 4)
        box.setSpacing(4)
        box.addWidget(self.header)
        inner = QHBoxLayout()
        inner.setContentsMargins(6, 0, 6, 0)
        inner.addLayout(self.body, 1)
        box.addLayout(inner, 1)
        self.column: Column | None = None
        self._look: tuple[str, str, bool, QFont] | None = None

    def show_column(self, column: Column, scale: Scale | None, numbers: QFont, small: QFont,
                    side_by_side: bool) -> None:
        """Show one lane; ``side_by_side`` puts the outputs right of the inputs."""
        for _ in self.show_column_steps(column, scale, numbers, small, side_by_side):
            pass

    def show_column_steps(self, column: Column, scale: Scale | None, numbers: QFont,
                          small: QFont, side_by_side: bool) -> Iterator[None]:
        """:meth:`show_column` in two steps, the inputs' cells then the outputs': a column of
        a data-parallel step filled in one step took up to 9 ms, more than is left of a
        frame after the step's own turn (:mod:`jaxviz.ui.sliced` runs at least one step)."""
        self.column = column
        look = (column.colour, column.title, side_by_side, small)
        if look != self._look:  # style sheets and fonts cost a relayout: only on change
            self._look = look
            self._restyle(column.colour, numbers, small, side_by_side)
        has_in, has_out = bool(column.inputs), bool(column.outputs)
        set_visible(self.inputs, has_in)
        set_visible(self.outputs, has_out)
        set_visible(self.arrow, has_in and has_out)
        side = HEATMAP_SIDE if side_by_side else DEVICE_HEATMAP_SIDE
        self.inputs.show_cells(column.inputs, scale, numbers, small, side)
        yield
        self.outputs.show_cells(column.outputs, scale, numbers, small, side)

    def _restyle(self, colour: str, numbers: QFont, small: QFont, side_by_side: bool) -> None:
        self.header.setText(self.column.title if self.column is not None else "")
        header = QFont(small)
        header.setBold(True)
        self.header.setFont(header)
        self.header.setStyleSheet(f"background: {colour}; color: {text_on(colour)}; "
                                  f"padding: 3px 6px;")
        direction = (QBoxLayout.Direction.LeftToRight if side_by_side
                     else QBoxLayout.Direction.TopToBottom)
        self.body.setDirection(direction)
        self.inputs.set_direction(direction)
        self.outputs.set_direction(direction)
        self.arrow.setText("→" if side_by_side else "↓")
        # Beside the values, as large as they are; between stacked ones (eight device
        # columns in a docked tab) a text line, not a line of numbers' height.
        arrow = QFont(numbers if side_by_side else small)
        if side_by_side:
            arrow.setPointSize(numbers.pointSize() + 4)
        arrow.setBold(True)
        self.arrow.setFont(arrow)
