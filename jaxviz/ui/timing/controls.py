"""The run controls: variants, repetitions, warm-up, pipeline, sweep, async; Run, Stop, progress.

Plain widgets: they hold :class:`~jaxviz.views.timing.options.RunOptions`
and say when Run or Stop was pressed. The progress line shows the engine's
:class:`~jaxviz.model.timing.TimingStatus` ("pmap: call 14/50").
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from jaxviz.model.limits import PIPELINE, RUNS, WARMUP, Limit
from jaxviz.model.timing import TimingStatus, variant_label
from jaxviz.ui.text.plain import plain, plain_tooltip
from jaxviz.ui.text.steady_label import SteadyWrap
from jaxviz.ui.theme import style
from jaxviz.ui.timing.widgets import PageFill
from jaxviz.views import palette
from jaxviz.views.timing.options import VARIANT_HELP, RunOptions


class RunControls(QWidget):
    """What to measure, and the Run/Stop buttons with the run's progress.

    Signals:
        runRequested: Run was pressed.
        stopRequested: Stop was pressed.
        openRequested: "Open recording…" was pressed.
    """

    runRequested = Signal()
    stopRequested = Signal()
    openRequested = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("timing_controls")
        outer = QVBoxLayout(self)
        outer.setContentsMargins(6, 6, 0, 0)
        # always in view: Run and Stop, and how far the run is
        buttons = QHBoxLayout()
        self.run_button = QPushButton("▶ Run")
        self.run_button.setObjectName("timing_run")
        self.run_button.setToolTip("Measure in the JAX engine; the plots fill in as calls "
                                   "are measured")
        self.stop_button = QPushButton("■ Stop")
        self.stop_button.setObjectName("timing_stop")
        self.stop_button.setToolTip("Stop the run; what was measured so far is kept")
        self.stop_button.setEnabled(False)
        self.run_button.clicked.connect(self.runRequested)
        self.stop_button.clicked.connect(self.stopRequested)
        for button in (self.run_button, self.stop_button):  # disabled must look disabled
            button.setStyleSheet(f"QPushButton:disabled {{ color: {palette.DISABLED_INK}; }}")
        buttons.addWidget(self.run_button, 1)
        buttons.addWidget(self.stop_button, 1)
        # The buttons, the progress bar and line change during a run (the line at every
        # call). Their box is opaque (a change repaints them, not the controls, the tool
        # tabs, their dock and the window beneath them: 2-4 ms a call) and the line is held
        # so that its text lays out nothing around it (a relayout repainted the whole dock:
        # 10-15 ms).
        progress_box = PageFill()
        progress_box.setObjectName("timing_progress_box")
        column = QVBoxLayout(progress_box)
        column.setContentsMargins(0, 0, 0, 0)
        column.addLayout(buttons)
        self.progress = QProgressBar()
        self.progress.setObjectName("timing_progress")
        self.progress.setTextVisible(True)
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        self.progress.setFormat("")
        column.addWidget(self.progress)
        self.status = plain(QLabel(""))
        self.status.setObjectName("timing_status")
        self.status.setWordWrap(True)
        self.status.setStyleSheet("font-weight: bold;")
        self.status_holder = SteadyWrap(self.status)
        column.addWidget(self.status_holder)
        outer.addWidget(progress_box)
        self.open_button = QPushButton("Open recording…")
        self.open_button.setObjectName("timing_open")
        self.open_button.setToolTip("Show a recorded run (timings.json, also one written by "
                                    "`jaxviz time`) as it was, without rerunning it")
        self.open_button.clicked.connect(self.openRequested)
        outer.addWidget(self.open_button)
        # what Run measures, and how: these scroll when the dock is short
        settings = QWidget()
        box = QVBoxLayout(settings)
        box.setContentsMargins(0, 4, 4, 4)
        self.target_label = QLabel("")
        self.target_label.setObjectName("timing_target")
        self.target_label.setWordWrap(True)
        self.target_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        box.addWidget(self.target_label)
        box.addWidget(QLabel("<b>Variants</b>"))
        self.variant_list = QListWidget()
        self.variant_list.setObjectName("timing_variants")
        self.variant_list.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.variant_list.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        self.variant_list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.variant_list.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.variant_list.itemChanged.connect(lambda _item: self._mark("variants", False))
        box.addWidget(self.variant_list)
        grid = QGridLayout()
        grid.setColumnStretch(1, 1)
        grid.setVerticalSpacing(4)
        self.runs = self._spin(RUNS, 20, "measured calls per variant, after the warm-up")
        self.warmup = self._spin(WARMUP, 3, "calls before the measured ones (not in the "
                                            "statistics): caches warm, arrays placed")
        self.pipeline = self._spin(PIPELINE, 8, "calls dispatched back to back without "
                                                "waiting, then awaited in order (0: none)")
        for row, (text, spin) in enumerate((("Repetitions", self.runs),
                                            ("Warm-up", self.warmup),
                                            ("Pipeline depth", self.pipeline))):
            label = QLabel(text)
            label.setBuddy(spin)
            label.setToolTip(spin.toolTip())
            grid.addWidget(label, row, 0)
            grid.addWidget(spin, row, 1)
        box.addLayout(grid)
        self.sweep_on = QCheckBox("Size sweep")
        self.sweep_on.setObjectName("timing_sweep_on")
        self.sweep_on.setToolTip("measure again at each size of one argument dimension")
        self.sweep = QLineEdit()
        self.sweep.setObjectName("timing_sweep")
        self.sweep.setPlaceholderText("n=256,512,1024,2048")
        self.sweep.setToolTip("NAME=SIZE,SIZE,...: the name stands for a dimension in the "
                              "sweep's argument spec")
        self.sweep_args = QLineEdit()
        self.sweep_args.setObjectName("timing_sweep_args")
        self.sweep_args.setPlaceholderText("args, e.g. f32[n,n], f32[n,n]")
        self.sweep_args.setToolTip("the argument spec with the sweep's name in it "
                                   "(empty: the function's arguments)")
        self.sweep_on.toggled.connect(self._sync_sweep)
        self.sweep.textEdited.connect(lambda _t: self._mark("sweep", False))
        self.sweep_args.textEdited.connect(lambda _t: self._mark("sweep_args", False))
        box.addWidget(self.sweep_on)
        box.addWidget(self.sweep)
        box.addWidget(self.sweep_args)
        self.async_dispatch = QCheckBox("Async dispatch (CPU)")
        self.async_dispatch.setObjectName("timing_async")
        self.async_dispatch.setChecked(True)
        self.async_dispatch.setToolTip(
            "jax_cpu_enable_async_dispatch: off makes every CPU call wait for its result "
            "(measured in a second JAX process started with that setting)")
        box.addWidget(self.async_dispatch)
        box.addStretch(1)
        self.scroll_area = QScrollArea()
        self.scroll_area.setObjectName("timing_settings_scroll")
        self.scroll_area.setWidget(settings)
        self.scroll_area.setWidgetResizable(True)
        self.scroll_area.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        outer.addWidget(self.scroll_area, 1)
        self._settings = settings
        self._sync_sweep()

    def _spin(self, limit: Limit, value: int, tip: str) -> QSpinBox:
        spin = QSpinBox()
        spin.setRange(int(limit.low), int(limit.high))  # the command line's ranges
        spin.setValue(value)
        spin.setToolTip(tip)
        spin.setAccelerated(True)
        spin.valueChanged.connect(lambda _v: self._clear_marks())
        return spin

    def _sync_sweep(self) -> None:
        on = self.sweep_on.isChecked()
        self.sweep.setEnabled(on)
        self.sweep_args.setEnabled(on)
        self.sweep.setVisible(on)
        self.sweep_args.setVisible(on)
        self._mark("sweep", False)

    def minimumSizeHint(self):  # noqa: N802 - Qt's name
        """Wide enough for the settings and their scroll bar (nothing clipped at the right)."""
        hint = super().minimumSizeHint()
        width = self._settings.minimumSizeHint().width() + \
            self.scroll_area.verticalScrollBar().sizeHint().width() + 10
        hint.setWidth(max(hint.width(), width))
        return hint

    def _fit_list(self) -> None:
        rows = max(1, self.variant_list.count())
        height = self.variant_list.sizeHintForRow(0) if self.variant_list.count() else 20
        frame = 2 * self.variant_list.frameWidth() + 4
        self.variant_list.setFixedHeight(rows * max(height, 16) + frame)

    # ------------------------------------------------------------ values
    def set_variants(self, available: list[str], checked: list[str]) -> None:
        """Offer ``available`` variants (plot order), ticking ``checked``."""
        self.variant_list.blockSignals(True)
        self.variant_list.clear()
        for name in available:
            item = QListWidgetItem(variant_label(name))
            item.setData(Qt.ItemDataRole.UserRole, name)
            item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if name in checked
                               else Qt.CheckState.Unchecked)
            item.setToolTip(VARIANT_HELP.get(name, name))
            self.variant_list.addItem(item)
        self.variant_list.blockSignals(False)
        self._fit_list()

    def available_variants(self) -> list[str]:
        return [self.variant_list.item(i).data(Qt.ItemDataRole.UserRole)
                for i in range(self.variant_list.count())]

    def checked_variants(self) -> list[str]:
        return [self.variant_list.item(i).data(Qt.ItemDataRole.UserRole)
                for i in range(self.variant_list.count())
                if self.variant_list.item(i).checkState() == Qt.CheckState.Checked]

    def set_checked(self, variants: list[str]) -> None:
        for i in range(self.variant_list.count()):
            item = self.variant_list.item(i)
            item.setCheckState(Qt.CheckState.Checked
                               if item.data(Qt.ItemDataRole.UserRole) in variants
                               else Qt.CheckState.Unchecked)

    def options(self) -> RunOptions:
        """The values shown now."""
        return RunOptions(variants=self.checked_variants(), runs=self.runs.value(),
                          warmup=self.warmup.value(), pipeline=self.pipeline.value(),
                          sweep_on=self.sweep_on.isChecked(), sweep=self.sweep.text(),
                          sweep_args=self.sweep_args.text(),
                          async_dispatch=self.async_dispatch.isChecked())

    def set_options(self, options: RunOptions, available: list[str] | None = None) -> None:
        """Show ``options`` (and offer ``available`` variants, default: the current list)."""
        names = list(available if available is not None else self.available_variants())
        names += [v for v in options.variants if v not in names]
        self.set_variants(names, options.variants)
        self.runs.setValue(options.runs)
        self.warmup.setValue(options.warmup)
        self.pipeline.setValue(options.pipeline)
        self.sweep.setText(options.sweep or "")
        self.sweep_args.setText(options.sweep_args or "")
        self.sweep_on.setChecked(options.sweep_on)
        self.async_dispatch.setChecked(options.async_dispatch)
        self._sync_sweep()
        self._clear_marks()

    def set_target_text(self, text: str) -> None:
        self.target_label.setText(f"Run measures <b>{_escape(text)}</b>")
        self.target_label.setToolTip(plain_tooltip(text))

    # ------------------------------------------------------ field errors
    def _field(self, name: str) -> QWidget | None:
        return {"runs": self.runs, "warmup": self.warmup, "pipeline": self.pipeline,
                "sweep": self.sweep, "sweep_args": self.sweep_args,
                "variants": self.variant_list}.get(name)

    def _mark(self, name: str, bad: bool) -> None:
        widget = self._field(name)
        if widget is not None:
            style.set_style_property(widget, "error", bad)

    def mark_errors(self, fields: list[str]) -> None:
        """Frame the fields at fault in red (until they are edited)."""
        for name in fields:
            self._mark(name, True)

    def _clear_marks(self) -> None:
        for name in ("runs", "warmup", "pipeline", "sweep", "sweep_args", "variants"):
            self._mark(name, False)

    # ---------------------------------------------------------- progress
    def set_running(self, running: bool) -> None:
        self.run_button.setEnabled(not running)
        self.stop_button.setEnabled(running)
        self.status_holder.hold(running)  # the line's height only grows during a run
        if running:
            self.progress.setRange(0, 0)  # busy until the first status arrives
            self.progress.setFormat("")
            # one line in the docked controls: a second one would lay them out again
            self.status.setText("waiting for JAX…")

    def show_status(self, status: TimingStatus) -> None:
        """The engine's progress record: what runs now ("pmap: call 14/50") and how far."""
        total = max(status.total, 1)
        # QProgressBar.setValue repaints at once (a few ms, on every record of a run):
        # paint with the window's next frame instead
        self.progress.setUpdatesEnabled(False)
        self.progress.setRange(0, total)
        self.progress.setValue(min(status.done, total))
        self.progress.setFormat("%p%")
        self.progress.setUpdatesEnabled(True)
        self.progress.update()
        self.status.setText(status.message)

    def show_finished(self, message: str, fraction: float | None = None) -> None:
        """The run ended: say how (``fraction`` of the work done, if known)."""
        self.progress.setUpdatesEnabled(False)  # (see show_status)
        self.progress.setRange(0, 100)
        self.progress.setValue(round(100 * fraction) if fraction is not None else 0)
        self.progress.setFormat("%p%")
        self.progress.setUpdatesEnabled(True)
        self.progress.update()
        self.status.setText(message)


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
