"""The device view's Export menu, the job that writes an animation off the GUI thread, and
the view's exports that tie them together.

The menu lists the export registry's formats (:mod:`jaxviz.ui.exporters`):
the frame on screen (PNG, SVG, PDF) and the whole animation (MP4, WebM, GIF,
APNG, every phase as PDF pages), with the size to export at. Adding a format
to the registry adds it here.

An animation takes seconds to minutes to render and encode, so
:class:`AnimationJob` writes it in a worker thread: it reports progress after
every frame, can be stopped (the partial file is removed), and says when it is
done or why it failed. :class:`ViewExports` asks where to save, starts the job
and shows how it goes in the view's control bar; the view keeps animating
meanwhile.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QDeadlineTimer, QObject, Qt, QThread, Signal, Slot
from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QFileDialog, QMenu, QWidget

from jaxviz.model.exports import Exporter
from jaxviz.ui.device_view.export import Renderer
from jaxviz.ui.exporters import exporters, find
from jaxviz.ui.exporters.video import even_size, size_problem

if TYPE_CHECKING:
    from jaxviz.ui.device_view.view import DeviceView

#: Export sizes offered (``None``: as shown on screen).
SIZES: list[tuple[str, tuple[int, int] | None]] = [
    ("1280 × 720", (1280, 720)), ("1920 × 1080", (1920, 1080)), ("As shown", None)]


class ExportMenu(QMenu):
    """Frame and animation formats from the registry, and the size to export at.

    Signals:
        requested(str, str): a format was chosen: its subject (``frame`` or
            ``animation``) and name (``png``, ``mp4``, ...).
    """

    requested = Signal(str, str)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.export_size: tuple[int, int] | None = SIZES[0][1]
        self.actions_by_format: dict[tuple[str, str], QAction] = {}
        for subject, heading in (("frame", "This frame"), ("animation", "The whole animation")):
            self.addSection(heading)
            for exporter in exporters(subject):
                action = self.addAction(f"{exporter.description}…")
                action.triggered.connect(
                    lambda _checked=False, s=subject, n=exporter.name: self.requested.emit(s, n))
                self.actions_by_format[subject, exporter.name] = action
        self.addSeparator()
        sizes = self.size_menu = self.addMenu("Size")
        group = QActionGroup(sizes)
        self.size_actions: dict[str, QAction] = {}
        for text, size in SIZES:
            action = sizes.addAction(text)
            action.setCheckable(True)
            action.setChecked(size == self.export_size)
            group.addAction(action)
            action.triggered.connect(lambda _checked=False, s=size: self.set_size(s))
            self.size_actions[text] = action
        self.set_size(self.export_size)

    def set_size(self, size: tuple[int, int] | None) -> None:
        """Export at ``size`` pixels (None: the size shown on screen)."""
        self.export_size = size
        for text, choice in SIZES:
            self.size_actions[text].setChecked(choice == size)
        named = next((text for text, choice in SIZES if choice == size), None)
        if named is None and size is not None:  # set by a script: not one of the choices
            named = f"{size[0]} × {size[1]}"
        self.size_menu.setTitle(f"Size: {named}")


class ExportCancelled(Exception):
    """Raised in a writer's progress callback to stop it."""


class AnimationJob(QObject):
    """Writes one animation export; :meth:`run` it in a worker thread.

    Signals:
        progress(int, int): frames done, frames in all.
        finished(str, int): the file written and its number of frames (pages).
        failed(str): why nothing was written (stopped, a bad size, a full disk).
    """

    progress = Signal(int, int)
    finished = Signal(str, int)
    failed = Signal(str)

    def __init__(self, exporter: Exporter, renderer: Renderer, path: str | Path,
                 frames_per_phase: int = 6, fps: float = 30):
        super().__init__()
        self.exporter, self.renderer, self.path = exporter, renderer, Path(path)
        self.frames_per_phase, self.fps = frames_per_phase, fps
        self.cancelled = False

    def cancel(self) -> None:
        """Stop after the frame being drawn (thread-safe: a flag the writer reads)."""
        self.cancelled = True

    def _progress(self, done: int, total: int) -> None:
        if self.cancelled:
            raise ExportCancelled
        self.progress.emit(done, total)

    @Slot()
    def run(self) -> None:
        try:
            frames = self.exporter.write(self.renderer, self.path,
                                         frames_per_phase=self.frames_per_phase, fps=self.fps,
                                         progress=self._progress)
        except ExportCancelled:
            self.failed.emit(f"Stopped: {self.path.name} was not written.")
        except (OSError, ValueError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            self.failed.emit(f"Could not write {self.path}: {reason}.")
        except Exception as exc:  # noqa: BLE001 - the view must hear of any end of the job
            self.failed.emit(f"Could not write {self.path}: {type(exc).__name__}: {exc}.")
        else:
            self.finished.emit(str(self.path), frames)


class ViewExports(QObject):
    """The device view's exports from its Export menu: where to save (a file dialog), the
    frame at once, an animation by an :class:`AnimationJob` in a worker thread, with
    progress and Stop in the view's control bar.

    Signals:
        ended(str): an export ended or did not start; what happened, in a sentence (the
            control bar shows it too).
    """

    ended = Signal(str)

    def __init__(self, view: DeviceView):
        super().__init__(view)
        self.view = view
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
        path, _ = QFileDialog.getSaveFileName(self.view, exporter.description, suggested,
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
        job.failed.connect(lambda message: self._ended(message, error=True))
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
