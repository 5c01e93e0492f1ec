"""The Collectives tab's widget: memory per device, a chip picker and the table.

Docking contract (see :mod:`jaxviz.ui.panels.tool_tabs`): ``set_result(result,
variant)`` with the window's details (they hold ``program`` once the engine was asked
for "cost"); ``set_chip(key)`` with the chip chosen ("" none); the signals
``chipChosen(str)`` (the picker changed) and ``rowChosen(list, list)`` (a row was
clicked: its storyboard steps and source lines).
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from jaxviz.model import TraceResult
from jaxviz.model.chips import Chip, ChipFileError, load_chips
from jaxviz.model.cost_model import seconds
from jaxviz.model.program import ProgramCosts
from jaxviz.views.collectives.rows import (
    COLUMNS,
    CollectiveRow,
    collective_rows,
    memory_lines,
    projection_label,
)

#: The table's columns, left to right: what a 1280-pixel-wide window must show first
#: (the CLI's order is :data:`COLUMNS`); "" is the projected column, there with a chip.
ORDER = ["#", "collective", "axes", "count", "sends", "receives", "sent in all", "", "origin",
         "line", "groups", "per device in -> out", "serves", "why"]

#: Columns whose numbers read best right-aligned.
NUMERIC = {"#", "sends", "receives", "count", "sent in all"}


class CollectivesView(QWidget):
    """One row per collective group of a compiled variant, memory per device above."""

    #: The chip picker changed: its key ("" for none).
    chipChosen = Signal(str)
    #: A row was clicked: ``(storyboard steps, source lines)`` of its collective.
    rowChosen = Signal(list, list)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("collectives_view")
        try:
            self.chips: dict[str, Chip] = load_chips()
            problem = ""
        except ChipFileError as exc:  # a broken presets file: the table still shows
            self.chips, problem = {}, str(exc)
        self.costs: ProgramCosts | None = None
        self.variant = ""
        self.rows: list[CollectiveRow] = []
        self.heading = QLabel("")
        self.heading.setObjectName("collectives_heading")
        self.heading.setWordWrap(True)
        self.memory = QLabel("")
        self.memory.setObjectName("collectives_memory")
        self.memory.setWordWrap(True)
        self.memory.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.chip = QComboBox()
        self.chip.setObjectName("collectives_chip")
        self.chip.addItem("no chip (no projection)", "")
        for key, chip in self.chips.items():
            self.chip.addItem(chip.name, key)
        self.chip.setToolTip(problem or "Project each collective's time onto this chip (a "
                             "roofline from the compiled program, not a measurement); the "
                             "device view's captions give each phase's projected time too")
        self.chip.activated.connect(lambda i: self.chipChosen.emit(self.chip.itemData(i)))
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setObjectName("collectives_table")
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().hide()
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.cellClicked.connect(self._clicked)
        self.empty = QLabel("")
        self.empty.setObjectName("collectives_empty")
        self.empty.setWordWrap(True)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        top = QHBoxLayout()
        top.addWidget(self.heading, 1)
        top.addWidget(QLabel("Chip:"))
        top.addWidget(self.chip)
        box = QVBoxLayout(self)
        box.setContentsMargins(6, 4, 6, 4)
        box.addLayout(top)
        box.addWidget(self.memory)
        box.addWidget(self.table, 1)
        box.addWidget(self.empty, 1)
        self._chip_key = ""
        self._say("Trace a function to see its collectives.")

    # ------------------------------------------------------------ feeding
    def set_result(self, result: TraceResult, variant: str) -> None:
        """Show ``variant`` of ``result`` (its ``program``; without it, say it is on its way)."""
        self.variant = variant
        vr = next((v for v in result.variants if v.variant == variant), None)
        if vr is None:
            self.costs = None
            self._say(f"{result.function} has no {variant} variant traced.")
        elif not vr.ok:
            self.costs = None
            self._say(f"The {variant} variant failed: {vr.error}")
        elif vr.program is None:
            self.costs = None
            self._say(f"Compiling {result.function} ({variant}) to read its collectives…")
        else:
            self.costs = vr.program
            kind = "simulated CPU devices" if result.simulated else "devices"
            self.heading.setText(f"{variant}: {vr.call}  —  {len(vr.program.devices)} {kind}; "
                                 f"bytes are per device")
            self._fill()

    def clear(self, message: str) -> None:
        """No result: only ``message``."""
        self.costs = None
        self._say(message)

    def set_chip(self, key: str) -> None:
        """Project onto chip ``key`` ("" or an unknown key: no projection)."""
        key = key if key in self.chips else ""
        self._chip_key = key
        index = self.chip.findData(key)
        if index >= 0:
            self.chip.setCurrentIndex(index)
        if self.costs is not None:
            self._fill()

    @property
    def chip_preset(self) -> Chip | None:
        return self.chips.get(self._chip_key)

    def _say(self, message: str) -> None:
        self.rows = []
        self.heading.setText("")
        self.memory.setText("")
        self.table.setRowCount(0)
        self.table.hide()
        self.empty.setText(message)
        self.empty.show()

    def _fill(self) -> None:
        costs = self.costs
        assert costs is not None
        chip = self.chip_preset
        self.rows = collective_rows(costs, chip)
        self.memory.setText("\n".join(memory_lines(costs.memory)))
        projected = projection_label(costs, chip) if chip is not None else ""
        headers = [name for name in ORDER if name in COLUMNS or (projected and name == "")]
        headers = [name or projected for name in headers]
        if not self.rows:
            self.table.hide()
            self.empty.setText("No collectives: every device computes on its own data.")
            self.empty.show()
            return
        self.empty.hide()
        self.table.show()
        self.table.setColumnCount(len(headers))
        self.table.setHorizontalHeaderLabels(headers)
        self.table.setRowCount(len(self.rows))
        for r, row in enumerate(self.rows):
            for c, name in enumerate(headers):
                if projected and name == projected:
                    text = "about " + seconds(row.projected or 0.0)
                    tip = f"{projected} (a roofline, not a measurement): {row.formula}"
                else:
                    text = row.cells[COLUMNS.index(name)]
                    tip = text
                item = QTableWidgetItem(text)
                if name in NUMERIC or name == projected:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight
                                          | Qt.AlignmentFlag.AlignVCenter)
                item.setToolTip(tip)
                self.table.setItem(r, c, item)
        self.table.resizeColumnsToContents()

    def _clicked(self, row: int, _column: int) -> None:
        if 0 <= row < len(self.rows):
            self.rowChosen.emit(list(self.rows[row].steps), list(self.rows[row].source_lines))
