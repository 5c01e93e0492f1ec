"""Exports of a timing run, and the bar that asks for them.

The formats come from the export registry (:mod:`jaxviz.ui.exporters`), the
one ``jaxviz time`` writes with. Plots are rendered from the run itself -- a
fresh figure at the chosen size and theme, never the one on screen -- so an
exported PNG, SVG or PDF shows exactly the data of the plot on screen, laid out
for a slide; the data formats are CSV, the replayable JSON and the Chrome trace.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QHBoxLayout, QInputDialog, QToolButton, QWidget

from jaxviz.model.sizes import parse_size
from jaxviz.model.timing import TimingRun
from jaxviz.ui.exporters import exporters, find, write_plots
from jaxviz.ui.exporters.menu import ExportMenu
from jaxviz.ui.plots import render_image
from jaxviz.views.exports import Exporter
from jaxviz.views.timing.options import SIZES

#: The ``plots`` entry of the menu: every plot in every plot format, into a folder.
ALL_PLOTS = "plots"


def export_menu() -> dict[str, tuple[str, str, str]]:
    """The Export menu's entries, from the registry: name -> (menu text, file-dialog
    filter, default file name; ``{kind}`` is the plot). The plot formats, all plots
    at once, then the run's data formats."""
    plots = exporters("plot")
    entries = {e.name: (f"{e.description}…", e.file_filter, e.default_name) for e in plots}
    formats = " + ".join(e.name.upper() for e in plots)
    entries[ALL_PLOTS] = (f"All plots as {formats} into a folder…", "", "")
    entries.update({e.name: (f"{e.description}…", e.file_filter, e.default_name)
                    for e in exporters("run")})
    return entries




def export_run(run: TimingRun, what: str, path: str | Path, kind: str,
               size: tuple[int, int], theme: str, **options) -> list[Path]:
    """Write one export of ``run``; returns the files written.

    Args:
        what: a key of :func:`export_menu`.
        path: the file (the folder for ``plots``).
        kind: the plot (for ``png``/``svg``/``pdf``), e.g. ``dispatch_vs_complete``.
        options: figure options of the plot on screen (``log_time``).

    Raises:
        OSError: the file could not be written (nothing else changes).
        ValueError: an unknown export, plot or theme.
    """
    path = Path(path)
    if what == ALL_PLOTS:
        if not path.is_dir():
            raise NotADirectoryError(f"{path} is not a folder")
        return write_plots(run, path, size, theme)
    entries = export_menu()
    if what not in entries:
        raise ValueError(f"unknown export {what!r}; choose from {', '.join(entries)}")
    exporter = exporter_of(what)
    if exporter.subject == "plot":
        return [exporter.write(run, path, kind=kind, size=size, theme=theme, **options)]
    return [exporter.write(run, path)]


def exporter_of(what: str) -> Exporter:
    """The registry's format behind an Export menu entry (any but ``plots``).

    Raises:
        ValueError: no format has that name.
    """
    subject = "plot" if any(e.name == what for e in exporters("plot")) else "run"
    return find(subject, what)


def plot_image(run: TimingRun, kind: str, size: tuple[int, int], theme: str,
               **options) -> QImage:
    """The plot as an image, for the clipboard."""
    return render_image(kind, run, size, theme, **options)


class ExportBar(QWidget):
    """Export or copy the plot, with the export's theme and size.

    Compact, to sit at the right of the plots' tab bar. The theme applies to
    the plots on screen too (what you see is what you export); the size is
    the exported and copied image's.

    Signals:
        exportRequested(str): an entry of the Export menu (a key of :func:`export_menu`).
        copyRequested: "Copy" was pressed.
        themeChanged(str): ``light`` or ``dark``.
        fullScreenRequested: the full-screen button was pressed.
    """

    exportRequested = Signal(str)
    copyRequested = Signal()
    themeChanged = Signal(str)
    fullScreenRequested = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.theme_name = "light"
        self.size_text = SIZES[0]
        row = QHBoxLayout(self)
        row.setContentsMargins(4, 0, 2, 0)
        row.setSpacing(4)
        self.export_button = QToolButton()
        self.export_button.setObjectName("timing_export")
        self.export_button.setText("Export ▾")
        self.export_button.setToolTip("Save the plot (PNG, SVG, PDF) or the data (CSV, JSON, "
                                      "Perfetto trace); choose the theme and size")
        self.export_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.menu = ExportMenu([("plot", "")], self.export_button)
        self.menu.add_entry(ALL_PLOTS, ALL_PLOTS, export_menu()[ALL_PLOTS][0])
        self.menu.add_subject("run")
        self.menu.requested.connect(lambda _subject, name: self.exportRequested.emit(name))
        #: Export menu entry (a key of :func:`export_menu`) -> its action.
        self.actions_by_kind = {name: a for (_s, name), a in self.menu.actions_by_format.items()}
        self.menu.addSeparator()
        self.theme_menu, self.theme_actions = self.menu.add_choices(
            "Theme (on screen too)", ["light", "dark"], self.set_theme)
        self.size_menu, self.size_actions = self.menu.add_choices(
            "Size of images", list(SIZES), self.set_size)
        self.size_menu.addSeparator()
        self.size_menu.addAction("Other size…").triggered.connect(self.ask_size)
        self.export_button.setMenu(self.menu)
        self.copy_button = QToolButton()
        self.copy_button.setText("Copy")
        self.copy_button.setObjectName("timing_copy")
        self.copy_button.setToolTip("Copy the plot on screen to the clipboard, at the "
                                    "export size and theme")
        self.copy_button.clicked.connect(self.copyRequested)
        self.full_screen_button = QToolButton()
        self.full_screen_button.setText("⤢")
        self.full_screen_button.setObjectName("timing_full_screen")
        self.full_screen_button.setToolTip("Full screen: the timing view alone, for the room "
                                           "(Esc or ⤡ brings it back)")
        self.full_screen_button.clicked.connect(self.fullScreenRequested)
        row.addWidget(self.export_button)
        row.addWidget(self.copy_button)
        row.addWidget(self.full_screen_button)
        self._sync()

    def _sync(self) -> None:
        for name, action in self.theme_actions.items():
            action.setChecked(name == self.theme_name)
        for name, action in self.size_actions.items():
            action.setChecked(name == self.size_text)
        where = f"{self.size_text.replace('x', '×')}, {self.theme_name}"
        entries = export_menu()
        for what in [e.name for e in exporters("plot")] + [ALL_PLOTS]:
            text = entries[what][0]
            self.actions_by_kind[what].setText(f"{text[:-1]} ({where})…")
        self.copy_button.setToolTip(f"Copy the plot on screen to the clipboard ({where})")

    def set_theme(self, name: str) -> None:
        """Plots in ``light`` or ``dark`` colours, on screen and exported."""
        if name not in self.theme_actions:
            raise ValueError(f"unknown theme {name!r}; choose from light, dark")
        changed = name != self.theme_name
        self.theme_name = name
        self._sync()
        if changed:
            self.themeChanged.emit(name)

    def set_size(self, text: str) -> None:
        """The exported images' size, ``WIDTHxHEIGHT`` (checked when exporting)."""
        self.size_text = text.strip()
        self._sync()

    def ask_size(self) -> None:
        prompt = "Width × height of exported images, in pixels (e.g. 1920x1080):"
        text = self.size_text
        while True:
            text, ok = QInputDialog.getText(self, "Export size", prompt, text=text)
            if not ok:
                return
            try:
                parse_size(text)
            except ValueError as exc:
                prompt = f"{exc}.\nWidth × height in pixels (e.g. 1920x1080):"
                continue
            self.set_size(text)
            return

    def export_size(self) -> tuple[int, int]:
        """The chosen export size.

        Raises:
            ValueError: the size is not WIDTHxHEIGHT in the allowed range.
        """
        return parse_size(self.size_text)

    def set_has_run(self, has_run: bool) -> None:
        for action in self.actions_by_kind.values():
            action.setEnabled(has_run)
        self.copy_button.setEnabled(has_run)
