"""The device view's exports from its Export menu: where to save, the frame at once, an
animation written off the GUI thread with progress and Stop in the control bar.

:class:`ViewExports` needs only what :class:`ExportingView` names of the view
(:class:`~jaxviz.ui.devices.view.DeviceView` is one), so the view can own
it without the two importing each other.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from PySide6.QtCore import QCoreApplication, QDeadlineTimer, QObject, Qt, QThread, Signal
from PySide6.QtWidgets import QFileDialog, QWidget

from jaxviz.ui.devices.controls import ControlBar
from jaxviz.ui.devices.export import Renderer
from jaxviz.ui.devices.export_menu import AnimationJob
from jaxviz.ui.devices.video import even_size, size_problem
from jaxviz.ui.exporters import find
from jaxviz.views.devices import Phase, Scene


class ExportingView(Protocol):
    """What the exports use of the device view."""

    controls: ControlBar
    scene: Scene

    @property
    def phases(self) -> list[Phase]: ...

    @property
    def current_phase(self) -> int: ...

    def picture_size(self, size: tuple[int, int] | str | None) -> tuple[int, int]: ...

    def renderer(self, size: tuple[int, int] | str | None = None,
                 theme: str | None = None) -> Renderer: ...

    def export_frame(self, path: str | Path, size: tuple[int, int] | str | None = None,
                     theme: str | None = None) -> Path: ...


class ViewExports(QObject):
    """The device view's exports from its Export menu: where to save (a file dialog), the
    frame at once, an animation by an :class:`AnimationJob` in a worker thread, with
    progress and Stop in the view's control bar.

    Signals:
        ended(str): an export ended or did not start; what happened, in a sentence (the
            control bar shows it too).
    """

    ended = Signal(str)

    def __init__(self, view: ExportingView, dialog_parent: QWidget | None = None):
        super().__init__()
        self.view = view
        self.dialog_parent = dialog_parent
        self.controls = view.controls
        self.controls.exportRequested.connect(self.ask)
        self.controls.stopExportRequested.connect(self.stop)
        self._job: tuple[QThread, AnimationJob] | None = None
        self.last_dir = str(Path.home())

    @property
    def running(self) -> bool:
        """An animation is being written in the background."""
        return self._job is not None

    def ask(self, subject: str, name: str) -> None:
        """Ask where to save (a file dialog), then export the frame or the animation."""
        exporter = find(subject, name)
        scene = self.view.scene
        stem = f"{scene.function or 'device_view'}_{scene.variant or 'frame'}"
        if subject == "frame":
            stem += f"_phase{self.view.current_phase + 1}"
        suggested = str(Path(self.last_dir) / f"{stem}{exporter.extension}")
        path, _ = QFileDialog.getSaveFileName(self.dialog_parent, exporter.description, suggested,
                                              exporter.file_filter)
        if path:
            self.export(subject, name, path)

    def export(self, subject: str, name: str, path: str | Path) -> bool:
        """Export at the Export menu's size: the frame at once, an animation in the
        background. False, with the reason shown, if it did not start or failed."""
        path = find(subject, name).with_extension(path)
        size = self.controls.export_menu.export_size
        self.last_dir = str(path.parent)
        if subject == "frame":
            try:
                self.view.export_frame(path, size)
            except (OSError, ValueError) as exc:
                return self._ended(f"Could not write {path}: {exc}.", error=True)
            return self._ended(f"Wrote {path.name} into {path.parent}.")
        return self.start(name, path, size)

    def start(self, name: str, path: str | Path,
              size: tuple[int, int] | str | None = (1280, 720), frames_per_phase: int = 6,
              fps: float = 30) -> bool:
        """Write the animation as ``name`` (``mp4``, ``gif``, ...) at ``size`` (None: as
        shown) in a worker thread; False (and why, in the control bar) if it cannot start."""
        if self._job is not None:
            return self._ended("An export is under way: stop it first.", error=True)
        if not self.view.phases:
            return self._ended("Nothing to export: trace a function first.", error=True)
        exporter = find("animation", name)
        try:
            width, height = self.view.picture_size(size)
            if size is None:  # as shown: a video needing an even size takes the one just inside
                width, height = even_size(exporter.extension, width, height)
            renderer = self.view.renderer((width, height))
        except ValueError as exc:
            return self._ended(f"Not exported: {exc}.", error=True)
        problem = size_problem(exporter.extension, renderer.width, renderer.height)
        if problem:
            return self._ended(f"Not exported: {problem}.", error=True)
        job = AnimationJob(exporter, renderer, path, frames_per_phase, fps)
        thread = QThread(self)
        job.moveToThread(thread)
        thread.started.connect(job.run)
        job.progress.connect(self._progress)
        job.finished.connect(self._done)
        # a bound method, not a lambda: a lambda would run in the worker thread, before
        # the progress already queued here, which would then overwrite the failure
        job.failed.connect(self._failed)
        for signal in (job.finished, job.failed):  # quit from the worker itself (thread-safe)
            signal.connect(thread.quit, Qt.ConnectionType.DirectConnection)
        thread.finished.connect(self._cleanup)
        self._job = (thread, job)
        self.controls.export_button.setEnabled(False)
        self.controls.show_export(f"Exporting {Path(path).name}…", running=True)
        thread.start()
        return True

    def stop(self) -> None:
        """Stop the animation being written (its partial file is removed)."""
        if self._job is not None:
            self._job[1].cancel()

    def wait(self, ms: int = 600_000) -> bool:
        """Handle events until the background export has ended (for scripts and tests);
        True if it did within ``ms``."""
        deadline = QDeadlineTimer(ms)
        while self._job is not None and not deadline.hasExpired():
            self._job[0].wait(20)
            QCoreApplication.processEvents()
        return self._job is None

    def _progress(self, done: int, total: int) -> None:
        if self._job is not None:
            name = self._job[1].path.name
            self.controls.show_export(f"Exporting {name}: frame {done}/{total}", running=True)

    def _done(self, path: str, frames: int) -> None:
        what = "pages" if path.lower().endswith(".pdf") else "frames"
        self._ended(f"Wrote {Path(path).name} ({frames} {what}) into {Path(path).parent}")

    def _failed(self, message: str) -> None:
        self._ended(message, error=True)

    def _ended(self, message: str, error: bool = False) -> bool:
        self.controls.show_export(message, running=False, error=error)
        self.ended.emit(message)
        return not error

    def _cleanup(self) -> None:
        if self._job is not None:
            thread, job = self._job
            self._job = None
            job.deleteLater()
            thread.deleteLater()
        self.controls.export_button.setEnabled(bool(self.view.phases))
