"""``TimingView``: run, watch and export dispatch-versus-completion timings inside the app.

Left, the run controls (Run, Stop, progress, settings); right, where and when
the run was measured, a banner for problems, and the four plots of
:mod:`jaxviz.ui.plots` in tabs (with the export menu at their corner), which
fill in while the engine streams records. A recorded run
(``timings.json``, also one written by ``jaxviz time``) is shown exactly as it
was, with where and when it was recorded.

Example (docking it; the window owns the engine and the traced function):
    >>> view = TimingView()                         # doctest: +SKIP
    >>> view.set_engine(window.engine)              # doctest: +SKIP
    >>> view.set_target(trace_request)              # doctest: +SKIP
    >>> view.run_timing()                           # doctest: +SKIP
    >>> view.open_recording("out/timings.json")     # doctest: +SKIP
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QFontInfo, QGuiApplication, QKeyEvent
from PySide6.QtWidgets import (
    QFileDialog,
    QGridLayout,
    QSizePolicy,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from jaxviz.model import TraceRequest
from jaxviz.model.timing import TimingRun, TimingStatus, validate
from jaxviz.ui import gc_policy
from jaxviz.ui.text.steady_label import SteadyWrap
from jaxviz.ui.timing.controls import RunControls
from jaxviz.ui.timing.export import (
    ExportBar,
    export_menu,
    export_run,
    exporter_of,
    plot_image,
)
from jaxviz.ui.timing.plots_panel import PlotsPanel
from jaxviz.ui.timing.projected import ProjectionPanel
from jaxviz.ui.timing.runner import TimingRunner
from jaxviz.ui.timing.widgets import Banner, FullScreen, InfoLine, PageFill
from jaxviz.views import palette
from jaxviz.views.timing.export import read_json
from jaxviz.views.timing.options import (
    VARIANT_HELP,
    build_request,
    declared_settings,
    default_options,
    describe_target,
    error_banner_text,
    options_of,
    supported_variants,
    where_and_when,
)
from jaxviz.views.timing.stats import differing_notes

#: The plots' body text relative to the window's text (which follows its zoom).
PLOT_TEXT_SCALE = 1.12



class TimingView(QWidget):
    """The timing tab: run controls, live plots, exports and recordings.

    Signals:
        measuring(TraceRequest): Run was pressed; this is what is about to run.
        sourceOffered(TraceRequest): a recording was opened; this is the code it
            measured. Run measures it only once the host shows it and hands it
            back with :meth:`set_target` (the window opens it as a document).
    """

    measuring = Signal(object)
    sourceOffered = Signal(object)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("timing_view")
        self.setAcceptDrops(True)
        self.runner = TimingRunner(self)
        gc_policy.busy_while(self, "running")  # no idle cycle collection during a run
        self.run: TimingRun | None = None
        self.recording: str | None = None
        self._trace: TraceRequest | None = None
        self._declared: dict = {}
        self._target_key: tuple | None = None
        #: Timing variants that cannot run the target, and why (see :meth:`set_cannot_run`).
        self._unable: dict[str, str] = {}
        #: Whether the ticks are still the target's defaults (nobody changed them).
        self._defaults_shown = False
        self._ticking = False  # the view itself is ticking variants
        self._stale = ""
        self._info: tuple[str, str] = ("", "")
        self._last_dir = str(Path.cwd())
        self.full_screen = FullScreen(self, "The timing view is shown full screen: press Esc "
                                            "there (or ⤡) to bring it back here.")
        self._build()
        self._wire()
        self.controls.set_target_text(describe_target(None))
        self.controls.set_options(default_options({}), ["op-by-op", "jit", "jit-sync"])
        self._sync_buttons()

    def _build(self) -> None:
        self.controls = RunControls()
        right = QWidget()
        box = QVBoxLayout(right)
        box.setContentsMargins(0, 0, 0, 0)
        box.setSpacing(2)
        self.info_label = InfoLine()
        self.info_label.setObjectName("timing_info")
        self.info_label.setContentsMargins(8, 2, 8, 0)
        self.banner = Banner()
        self.plots = PlotsPanel()
        self.export_bar = ExportBar()
        self.plots.setCornerWidget(self.export_bar, Qt.Corner.TopRightCorner)
        # The banner and the where-and-when line share one reserved line: a message
        # (after Export, Copy, Stop) covers the line, never pushes the plots down.
        self.message_line = PageFill()  # (opaque: its changes repaint it alone)
        self.message_line.setObjectName("timing_message_line")
        cell = QGridLayout(self.message_line)
        cell.setContentsMargins(0, 0, 0, 0)
        # the line changes as a run starts and its header arrives: held, its text lays out
        # nothing around it (it relaid out the window and repainted the dock: 15 ms)
        self.info_holder = SteadyWrap(self.info_label)
        for widget in (self.info_holder, self.banner):
            policy = widget.sizePolicy()
            policy.setRetainSizeWhenHidden(True)  # the line keeps the taller one's height
            policy.setVerticalPolicy(QSizePolicy.Policy.Fixed)
            widget.setSizePolicy(policy)
            cell.addWidget(widget, 0, 0)
        self.banner.shownChanged.connect(lambda shown: self.info_label.setVisible(not shown))
        box.addWidget(self.message_line)
        # measured (above) and projected (below): two plots, never one
        self.projection = ProjectionPanel()
        self.measured_split = QSplitter(Qt.Orientation.Vertical)
        self.measured_split.setObjectName("timing_projection_splitter")
        self.measured_split.addWidget(self.plots)
        self.measured_split.addWidget(self.projection)
        self.measured_split.setStretchFactor(0, 3)
        self.measured_split.setStretchFactor(1, 2)
        self.measured_split.setChildrenCollapsible(True)
        self.measured_split.setSizes([560, 440])
        self.projection.tabs.currentChanged.connect(self._projection_tab)
        self.projection.unfolded.connect(
            lambda: self._projection_tab(self.projection.tabs.currentIndex()))
        self.projection.current_variants = lambda: self.controls.options().variants
        box.addWidget(self.measured_split, 1)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setObjectName("timing_splitter")
        self.splitter.addWidget(self.controls)
        self.splitter.addWidget(right)
        self.splitter.setStretchFactor(0, 0)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.setSizes([self.controls.minimumSizeHint().width(), 1000])
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(self.splitter)
        self._apply_font()

    def _projection_tab(self, index: int) -> None:
        """The what-if plot takes most of the height; the projected timeline less."""
        total = sum(self.measured_split.sizes())
        share = 0.7 if index == 1 else 0.42
        self.measured_split.setSizes([round(total * (1 - share)), round(total * share)])

    def _wire(self) -> None:
        self.controls.runRequested.connect(self.run_timing)
        self.controls.variant_list.itemChanged.connect(self._ticks_changed)
        self.controls.stopRequested.connect(self.stop)
        self.runner.started.connect(self._on_started)
        self.runner.updated.connect(self._on_updated)
        self.runner.status.connect(self._on_status)
        self.runner.finished.connect(self._on_finished)
        self.controls.openRequested.connect(self.open_dialog)
        self.export_bar.exportRequested.connect(self.export_dialog)
        self.export_bar.copyRequested.connect(self.copy_plot)
        self.export_bar.themeChanged.connect(self.plots.set_theme)
        self.export_bar.fullScreenRequested.connect(self.toggle_full_screen)

    # ------------------------------------------------------------ docking
    def set_engine(self, engine) -> None:
        """Measure in ``engine`` (the window's :class:`~jaxviz.ui.qt_engine.QtEngine`)."""
        self.runner.set_engine(engine)
        self.projection.set_engine(engine)
        self._sync_buttons()

    def set_target(self, request: TraceRequest) -> None:
        """The function the window traces (and its settings): what Run measures next.

        A different function (or file) resets the controls to its example's
        timing settings; new arguments for the same function keep them.
        """
        self._trace = request
        target = request.target
        declared = declared_settings(target.source, target.function)
        key = (target.filename, target.function, repr(declared))
        if key != self._target_key:
            self._target_key = key
            self._declared = declared
            self._unable = {}  # the last function's; this one's come with its trace
            self._ticking = True
            self.controls.set_options(default_options(declared),
                                      supported_variants(request, declared))
            self._ticking = False
            self._defaults_shown = True
            if not self.banner.isHidden() and not self.runner.running:
                self.banner.hide()  # said of the last function (an error, an export)
        else:
            self._declared = declared
            offered = supported_variants(request, declared)
            if offered != self.controls.available_variants():
                opts = self.controls.options()
                self.controls.set_variants(offered, opts.variants)
        self.controls.set_target_text(describe_target(request))
        self.projection.set_target(request, self.controls.options().variants)
        self._sync_buttons()

    def set_cannot_run(self, reasons: dict[str, str]) -> None:
        """The timing variants that cannot run the target, and why (from the window's
        trace of it, :func:`~jaxviz.views.timing.options.cannot_run`): while the ticks are
        the target's defaults they leave it (the example's own variants instead); a
        ticked one is named, with its reason, before Run."""
        self._unable = dict(reasons)
        if self._defaults_shown and self._trace is not None:
            wanted = default_options(self._declared, self._unable).variants
            offered = self.controls.available_variants()
            self._ticking = True
            self.controls.set_variants(offered + [v for v in wanted if v not in offered],
                                       wanted)
            self._ticking = False
        for index in range(self.controls.variant_list.count()):
            item = self.controls.variant_list.item(index)
            name = item.data(Qt.ItemDataRole.UserRole)
            why = self._unable.get(name)
            item.setToolTip(why or VARIANT_HELP.get(name, name))
        self._say_unable()

    def unable_ticked(self) -> list[str]:
        """Why each ticked variant cannot run the target ([] when all can)."""
        return [self._unable[v] for v in self.controls.checked_variants() if v in self._unable]

    def _ticks_changed(self, _item: object) -> None:
        if not self._ticking:
            self._defaults_shown = False
        self._say_unable()

    def _say_unable(self) -> None:
        reasons = self.unable_ticked()
        if reasons:
            self.banner.show_message("Will not run: " + "; ".join(reasons)
                                     + " — untick it, or tick a variant that maps an axis.",
                                     "warning")
        elif self.banner.text().startswith("Will not run"):
            self.banner.hide()

    # ------------------------------------------------------------ running
    def run_timing(self) -> bool:
        """Start measuring the target with the controls' settings; False (and why) if not."""
        if self.runner.running:
            return False
        if self._trace is None:
            self.banner.show_message("Nothing to measure yet: open an example or a Python "
                                     "file in the window, or open a recording.", "warning")
            return False
        if self.runner.engine is None:
            self.banner.show_message("The timing view has no JAX engine to measure with.")
            return False
        if self.unable_ticked():
            self.controls.mark_errors(["variants"])
            self._say_unable()
            return False
        self._defaults_shown = False
        request = build_request(self._trace, self.controls.options(), self._declared)
        problems = validate(request)
        if problems:
            self.controls.mark_errors([p.field for p in problems if p.field])
            self.banner.show_message("Not run: " + "; ".join(p.message for p in problems))
            return False
        self.banner.hide()
        self.measuring.emit(self._trace)
        self.runner.start(request)
        return True

    def stop(self) -> bool:
        """Stop the run (the engine restarts); what was measured stays on screen."""
        if self.runner.stop():
            self.controls.status.setText("stopping: the JAX engine restarts…")
            return True
        return False

    @property
    def running(self) -> bool:
        return self.runner.running

    def _on_started(self, run: TimingRun) -> None:
        self.run, self.recording = run, None
        self.controls.set_running(True)
        self.plots.set_run(run, live=True)
        self.projection.set_target(run.request.trace, list(run.request.variants))
        # queued after the measurement; the panel stays as it is (folded: the bar says so)
        self.projection.request_costs(ticked=False, show=False)
        self._show_info(f"Measuring {describe_target(run.request.trace)} in the JAX engine…")
        self._sync_buttons()

    def _on_status(self, status: TimingStatus) -> None:
        self.controls.show_status(status)

    def _on_updated(self, run: TimingRun) -> None:
        if run.header is not None and self._info[0].startswith("Measuring"):
            self._show_info(*where_and_when(run))
        self.plots.refresh()  # the plot tab stays the one the user chose
        self._sync_buttons()

    def _show_info(self, line: str, details: str = "") -> None:
        """The where-and-when line (while the run is not marked stale, see :meth:`set_stale`)."""
        self._info = (line, details)
        if self._stale and self.run is not None:
            self.info_label.set_info(f"⚠ {self._stale}", "\n".join(t for t in (line, details)
                                                                    if t))
        else:
            self.info_label.set_info(line, details)

    def set_stale(self, note: str) -> None:
        """Mark the run shown as another function's (``recording of convolve — Run to
        measure layer``); "" when it is the function open now."""
        self._stale = note
        if note and not self.banner.isHidden() and not self.runner.running:
            self.banner.hide()  # it spoke of the run now marked as another function's
        self.info_label.setProperty("stale", bool(note and self.run is not None))
        sheet = (f"color: {palette.WARNING_INK}; font-weight: bold;"
                 if note and self.run is not None else "")
        if self.info_label.styleSheet() != sheet:  # (setting it restyles and relays out)
            self.info_label.setStyleSheet(sheet)
        self._show_info(*self._info)

    def _on_finished(self, run: TimingRun, message: str, ok: bool) -> None:
        self.run = run
        self.controls.set_running(False)
        status = run.status
        fraction = 1.0 if ok else (status.done / status.total if status and status.total
                                   else None)
        self.controls.show_finished(message, fraction)
        self.plots.set_run(run)  # the tab on screen now, the others in turns after
        self.plots.draw_the_rest_soon()
        self._show_info(*where_and_when(run))
        problems = [error_banner_text(e) for e in run.errors]
        if not ok:
            severity = "warning" if message.startswith("stopped") else "error"
            self.banner.show_message(message[0].upper() + message[1:] + ".", severity)
        elif problems and not run.calls:
            self.banner.show_message("Nothing was measured: " + "; ".join(problems))
        elif problems:
            self.banner.show_message("Skipped: " + "; ".join(problems + differing_notes(run)),
                                     "warning")
        else:
            self._show_notes(run)
        self._sync_buttons()

    def _show_notes(self, run: TimingRun) -> None:
        """Say which measured variants compute something else than the others, and why."""
        notes = differing_notes(run)
        if notes:
            self.banner.show_message("⚠ " + "; ".join(notes), "warning")

    # --------------------------------------------------------- recordings
    def open_recording(self, path: str) -> bool:
        """Show a recorded run (``timings.json``) as it was, without rerunning it.

        Returns False, and says why in the banner, when the file cannot be
        shown; the plots on screen are then unchanged.
        """
        if self.runner.running:
            self.banner.show_message(f"Not opened {path}: a run is under way; stop it first.")
            return False
        try:
            run = read_json(path)
        except Exception as exc:  # noqa: BLE001 - unreadable, not JSON, another schema...
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            self.banner.show_message(f"Cannot open {path}: {reason} — it should be a "
                                     f"timings.json written by jaxviz (the plots on screen "
                                     f"are unchanged).")
            return False
        self.run, self.recording = run, str(path)
        self._last_dir = str(Path(path).resolve().parent)
        # The recorded code runs only once it is in front of the user: the host shows
        # it (the window: an untitled document) and hands it back with set_target.
        self._trace = None
        self.sourceOffered.emit(run.request.trace)
        target = run.request.trace.target
        self._declared = declared_settings(target.source, target.function)
        self.controls.set_options(options_of(run.request),
                                  supported_variants(run.request.trace, self._declared))
        self.controls.set_target_text(describe_target(run.request.trace))
        self.controls.show_finished(f"recording: {len(run.calls)} calls", 1.0 if run.complete
                                    else None)
        self.banner.hide()
        self.plots.set_run(run)
        self.plots.refresh(everything=True)
        self._show_info(*where_and_when(run, str(path)))
        if not run.complete:
            self.banner.show_message("This recording is of a run that ended early: it holds "
                                     "what was measured until then.", "warning")
        else:
            self._show_notes(run)
        self.plots.show_kind("dispatch_vs_complete" if run.calls_of(phase="steady")
                             else "timeline" if run.calls_of(phase="pipelined")
                             else "variants")
        self._sync_buttons()
        return True

    def open_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open a timing recording", self._last_dir,
                                              "Timing recordings (*.json);;All files (*)")
        if path:
            self.open_recording(path)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:  # noqa: N802 - Qt's name
        if any(u.toLocalFile().endswith(".json") for u in event.mimeData().urls()):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802 - Qt's name
        for url in event.mimeData().urls():
            if url.toLocalFile().endswith(".json"):
                self.open_recording(url.toLocalFile())
                event.acceptProposedAction()
                return

    # ------------------------------------------------------------ exports
    def _plot_options(self, kind: str) -> dict:
        return {"log_time": self.plots.log_time} if kind == "dispatch_vs_complete" else {}

    def export(self, what: str, path: str | Path, kind: str | None = None) -> list[Path] | None:
        """Write an export (a key of :func:`~jaxviz.ui.timing.export.export_menu`).

        Plots use the export bar's size and theme and the plot on screen
        (``kind`` overrides it). Returns the files written, or None -- with
        the reason in the banner -- when nothing could be written; the plots
        stay as they are either way.
        """
        run = self.run
        if run is None or not (run.calls or run.first_calls):
            self.banner.show_message("Nothing to export yet: run a measurement or open a "
                                     "recording first.", "warning")
            return None
        kind = kind or self.plots.current_kind()
        try:
            size = self.export_bar.export_size()
            written = export_run(run, what, path, kind, size, self.plots.theme_name,
                                 **self._plot_options(kind))
        except (OSError, ValueError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            self.banner.show_message(f"Could not write {path}: {reason}. Nothing was "
                                     f"exported; choose another place (the plot is "
                                     f"unchanged).")
            return None
        self._last_dir = str(Path(path).parent if what != "plots" else Path(path))
        names = ", ".join(p.name for p in written)
        self.banner.show_message(f"Wrote {names} into {written[0].parent}", "info")
        return written

    def export_dialog(self, what: str) -> None:
        text, filters, name = export_menu()[what]
        title = text.rstrip("…")
        if what == "plots":
            path = QFileDialog.getExistingDirectory(self, title, self._last_dir)
        else:
            suggested = str(Path(self._last_dir) / name.format(kind=self.plots.current_kind()))
            path, _ = QFileDialog.getSaveFileName(self, title, suggested, filters)
            if path:
                path = str(exporter_of(what).with_extension(path))
        if path:
            self.export(what, path)

    def copy_plot(self) -> bool:
        """Put the plot on screen on the clipboard, at the export size and theme."""
        run = self.run
        if run is None or not run.calls:
            self.banner.show_message("Nothing to copy yet: run a measurement first.", "warning")
            return False
        kind = self.plots.current_kind()
        try:
            size = self.export_bar.export_size()
        except ValueError as exc:
            self.banner.show_message(str(exc))
            return False
        image = plot_image(run, kind, size, self.plots.theme_name, **self._plot_options(kind))
        QGuiApplication.clipboard().setImage(image)
        self.banner.show_message(f"Copied the {kind.replace('_', ' ')} plot "
                                 f"({size[0]}×{size[1]}) to the clipboard.", "info")
        return True

    # -------------------------------------------------------------- misc
    def toggle_full_screen(self) -> None:
        """Show the view alone, full screen, for a projector; again to put it back."""
        self.full_screen.toggle()
        active = self.full_screen.active
        self.export_bar.full_screen_button.setText("⤡" if active else "⤢")

    def _sync_buttons(self) -> None:
        running = self.runner.running
        self.controls.run_button.setEnabled(not running and self._trace is not None
                                            and self.runner.engine is not None)
        self.export_bar.set_has_run(self.run is not None and bool(self.run.calls
                                                                  or self.run.first_calls))
        self.controls.open_button.setEnabled(not running)

    def _apply_font(self) -> None:
        # the plots are what the room looks at: their text a little larger than the controls'
        self.plots.set_base_px(PLOT_TEXT_SCALE * QFontInfo(self.font()).pixelSize())

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt's name
        # Esc leaves full screen; in the window, Esc stays the window's (it stops a trace)
        if event.key() == Qt.Key.Key_Escape and self.full_screen.active:
            self.toggle_full_screen()
            return
        super().keyPressEvent(event)

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt's name
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            self._apply_font()  # the window's zoom (Ctrl+= / Ctrl+-) resizes the plots' text
