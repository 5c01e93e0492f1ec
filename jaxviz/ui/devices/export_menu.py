"""The device view's Export menu, and the job that writes an animation off the GUI thread.

The menu (the one :class:`~jaxviz.ui.exporters.menu.ExportMenu`) lists the export
registry's formats:
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

from PySide6.QtCore import QObject, Signal, Slot
from PySide6.QtWidgets import QWidget

from jaxviz.ui.devices.export import Renderer
from jaxviz.ui.exporters.menu import ExportMenu
from jaxviz.views.exports import Exporter

#: Export sizes offered (``None``: as shown on screen).
SIZES: list[tuple[str, tuple[int, int] | None]] = [
    ("1280 × 720", (1280, 720)), ("1920 × 1080", (1920, 1080)), ("As shown", None)]


class DeviceExportMenu(ExportMenu):
    """The registry's frame and animation formats, and the size to export at.

    Signals:
        requested(str, str): a format was chosen: its subject (``frame`` or
            ``animation``) and name (``png``, ``mp4``, ...).
    """

    def __init__(self, parent: QWidget | None = None):
        super().__init__([("frame", "This frame"), ("animation", "The whole animation")],
                         parent)
        self.export_size: tuple[int, int] | None = SIZES[0][1]
        self.addSeparator()
        sizes = dict(SIZES)
        self.size_menu, self.size_actions = self.add_choices(
            "Size", list(sizes), lambda text: self.set_size(sizes[text]))
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

