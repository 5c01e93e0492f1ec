"""Exports of a timing run, and the bar that asks for them.

Plots are rendered by :mod:`jaxviz.ui.plots` from the run itself -- a fresh
figure at the chosen size and theme, never the one on screen -- so an
exported PNG or SVG shows exactly the data of the plot on screen, laid out for
a slide. The data go through :mod:`jaxviz.model.timing_export`, the writers
``jaxviz time`` uses: CSV, the replayable JSON and the Chrome trace.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtGui import QImage
from PySide6.QtWidgets import (
    QCheckBox, QComboBox, QHBoxLayout, QLabel, QMenu, QPushButton, QToolButton, QWidget,
)

from jaxviz.model.timing import TimingRun
from jaxviz.model.timing_export import write_chrome_trace, write_csv, write_json
from jaxviz.ui.plots import export_plots, render_image, render_png, render_svg
from jaxviz.ui.timing_view.options import SIZES, parse_size

#: Export kinds: menu text, file-dialog filter, default file name ({kind}: the plot).
EXPORTS = {
    "png": ("Plot as PNG image…", "PNG images (*.png)", "{kind}.png"),
    "svg": ("Plot as SVG (vector, for slides)…", "SVG images (*.svg)", "{kind}.svg"),
    "plots": ("All plots as PNG + SVG into a folder…", "", ""),
    "csv": ("Calls as CSV (one row per call)…", "CSV files (*.csv)", "timings.csv"),
    "json": ("Run as JSON (replays here, as recorded)…", "JSON files (*.json)", "timings.json"),
    "trace": ("Chrome trace for Perfetto (ui.perfetto.dev)…", "JSON files (*.json)",
              "trace.json"),
}


def export_run(run: TimingRun, what: str, path: str | Path, kind: str,
               size: tuple[int, int], theme: str, **options) -> list[Path]:
    """Write one export of ``run``; returns the files written.

    Args:
        what: a key of :data:`EXPORTS`.
        path: the file (the folder for ``plots``).
        kind: the plot (``png``/``svg``), e.g. ``dispatch_vs_complete``.
        options: figure options of the plot on screen (``log_time``).

    Raises:
        OSError: the file could not be written (nothing else changes).
        ValueError: an unknown export, plot or theme.
    """
    path = Path(path)
    if what == "png":
        return [render_png(kind, run, path, size, theme, **options)]
    if what == "svg":
        return [render_svg(kind, run, path, size, theme, **options)]
    if what == "plots":
        if not path.is_dir():
            raise NotADirectoryError(f"{path} is not a folder")
        return export_plots(run, path, size, theme)
    if what == "csv":
        return [write_csv(run, path)]
    if what == "json":
        return [write_json(run, path)]
    if what == "trace":
        return [write_chrome_trace(run, path)]
    raise ValueError(f"unknown export {what!r}; choose from {', '.join(EXPORTS)}")


def plot_image(run: TimingRun, kind: str, size: tuple[int, int], theme: str,
               **options) -> QImage:
    """The plot as an image, for the clipboard."""
    return render_image(kind, run, size, theme, **options)


class ExportBar(QWidget):
    """Open a recording; export or copy the plot; the theme, size and time axis of the plots.

    Signals:
        openRequested: "Open recording…" was pressed.
        exportRequested(str): an entry of the Export menu (a key of :data:`EXPORTS`).
        copyRequested: "Copy plot" was pressed.
        themeChanged(str): ``light`` or ``dark``.
        logTimeChanged(bool): the dispatch plot's time axis, log or linear.
    """

    openRequested = Signal()
    exportRequested = Signal(str)
    copyRequested = Signal()
    themeChanged = Signal(str)
    logTimeChanged = Signal(bool)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        row = QHBoxLayout(self)
        row.setContentsMargins(4, 2, 4, 2)
        self.open_button = QPushButton("Open recording…")
        self.open_button.setObjectName("timing_open")
        self.open_button.setToolTip("Show a recorded run (timings.json, also from "
                                    "`jaxviz time`) as it was, without rerunning it")
        self.open_button.clicked.connect(self.openRequested)
        self.export_button = QToolButton()
        self.export_button.setObjectName("timing_export")
        self.export_button.setText("Export ▾")
        self.export_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(self.export_button)
        self.actions_by_kind = {}
        for what, (text, _filter, _name) in EXPORTS.items():
            action = menu.addAction(text)
            action.triggered.connect(lambda _checked=False, w=what: self.exportRequested.emit(w))
            self.actions_by_kind[what] = action
        self.export_button.setMenu(menu)
        self.copy_button = QPushButton("Copy plot")
        self.copy_button.setObjectName("timing_copy")
        self.copy_button.setToolTip("Copy the plot on screen to the clipboard, at the "
                                    "export size and theme")
        self.copy_button.clicked.connect(self.copyRequested)
        self.theme = QComboBox()
        self.theme.setObjectName("timing_theme")
        self.theme.addItems(["light", "dark"])
        self.theme.setToolTip("Colours of the plots, on screen and exported")
        self.theme.currentTextChanged.connect(self.themeChanged)
        self.size = QComboBox()
        self.size.setObjectName("timing_size")
        self.size.setEditable(True)
        self.size.addItems(list(SIZES))
        self.size.setToolTip("Size of exported and copied plots in pixels (WIDTHxHEIGHT); "
                             "text scales with it")
        self.log_time = QCheckBox("Log time axis")
        self.log_time.setObjectName("timing_log_time")
        self.log_time.setChecked(True)
        self.log_time.setToolTip("Dispatch vs completion: log time axis (dispatch and "
                                 "completion can differ 1000×) or linear")
        self.log_time.toggled.connect(self.logTimeChanged)
        for widget in (self.open_button, self.export_button, self.copy_button):
            row.addWidget(widget)
        row.addStretch(1)
        row.addWidget(self.log_time)
        row.addSpacing(12)
        row.addWidget(QLabel("Theme"))
        row.addWidget(self.theme)
        row.addWidget(QLabel("Size"))
        row.addWidget(self.size)

    def export_size(self) -> tuple[int, int]:
        """The chosen export size.

        Raises:
            ValueError: the size field does not hold WIDTHxHEIGHT.
        """
        return parse_size(self.size.currentText())

    def set_has_run(self, has_run: bool) -> None:
        self.export_button.setEnabled(has_run)
        self.copy_button.setEnabled(has_run)
