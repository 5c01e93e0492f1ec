"""The open document: an example, a file on disk, or untitled text; saving and watching it.

:class:`DocumentController` owns the editor's text life cycle:

* opening an example (an unsaved copy of it: Save asks where), a ``.py`` file
  (watched with :class:`~PySide6.QtCore.QFileSystemWatcher`: when another
  editor saves it, the text reloads and re-traces; when there are unsaved
  edits here too, a notice asks which to keep), or new untitled text;
* Save / Save As, and the modified mark;
* the crash-recovery copy of unsaved text (:class:`~jaxviz.ui.window.settings.Recovery`);
* the window state's ``source``, ``filename`` and ``function``
  (:class:`~jaxviz.views.window.window_state.WindowState`), kept up to date.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer, Signal

from jaxviz.model import Example, get_example, list_functions
from jaxviz.model.errors import UserError
from jaxviz.model.files import OWN_FILE
from jaxviz.model.gallery import GalleryError, declared_settings
from jaxviz.model.sources import read_source
from jaxviz.ui.panels.editor_panel import EditorPanel
from jaxviz.ui.window.settings import Recovery, TrustedFiles
from jaxviz.views.window.entry_points import FunctionChoice, choose_function
from jaxviz.views.window.window_state import WindowState


@dataclass
class Document:
    """What the editor holds.

    ``trusted``: the user said this code may run (see the README's trust rule):
    an example, text typed in a new document, a file they ran before with this
    content; a file just opened, or a recording's source, waits for Trace (F5).
    """

    path: Path | None = None
    example: Example | None = None
    function: str = ""
    trusted: bool = True
    #: Where untitled text came from, for its name ("recorded in timings.json").
    origin: str = ""

    @property
    def display_name(self) -> str:
        if self.path is not None:
            return self.path.name
        if self.example is not None:
            return f"example: {self.example.name}"
        return f"untitled.py ({self.origin})" if self.origin else "untitled.py"

    @property
    def short_name(self) -> str:
        """The window title's name: the example's, the file's, or ``untitled``."""
        if self.path is not None:
            return self.path.name
        if self.example is not None:
            return self.example.name
        return "untitled"

    @property
    def filename(self) -> str:
        """The name the source is traced under (equations point into it)."""
        if self.path is not None:
            return str(self.path)
        if self.example is not None:
            return self.example.path
        return "<editor:untitled.py>"

    @property
    def key(self) -> str:
        """Identifies the document for recovery copies and remembered fields."""
        if self.path is not None:
            return str(self.path)
        if self.example is not None:
            return f"example:{self.example.name}"
        return "untitled"


class DocumentController(QObject):
    """Loads, saves, watches and keeps recovery copies of the editor's text."""

    #: The document was replaced (opened, reloaded from disk): re-trace now.
    opened = Signal(object)
    #: The file was saved to a path (for recent files).
    saved = Signal(str)
    #: Something to say in the status bar.
    message = Signal(str)

    def __init__(self, panel: EditorPanel, recovery: Recovery | None = None,
                 parent: QObject | None = None, state: WindowState | None = None,
                 trusted: TrustedFiles | None = None):
        super().__init__(parent)
        #: The files the user has run (None: remember nothing, trust no file).
        self.trusted_files = trusted
        #: Where the document's text, traced file name and function are written.
        self.state = state or WindowState()
        self.panel = panel
        self.editor = panel.editor
        self.doc = Document()
        #: Which function the last file opened on, and why.
        self.choice = FunctionChoice("", "")
        self.recovery = recovery or Recovery()
        self.watcher = QFileSystemWatcher(self)
        self.watcher.fileChanged.connect(self._file_changed)
        self._recovery_timer = QTimer(self, singleShot=True, interval=1500)
        self._recovery_timer.timeout.connect(self.write_recovery)
        self._disk_text = ""
        self.editor.document().modificationChanged.connect(lambda _m: self._refresh_title())
        self.editor.textChanged.connect(self._recovery_timer.start)
        self.editor.textChanged.connect(self._text_changed)
        self._sync_state()

    # ------------------------------------------------------------------ state
    @property
    def modified(self) -> bool:
        return self.editor.document().isModified()

    def text(self) -> str:
        return self.editor.toPlainText()

    def functions(self) -> list[str]:
        return list_functions(self.text())

    def _text_changed(self) -> None:
        self.state.source = self.text()

    def _sync_state(self) -> None:
        """The window state holds what is open: its text, traced name and function."""
        self.state.update(source=self.text(), filename=self.doc.filename,
                          function=self.doc.function)

    def _refresh_title(self) -> None:
        self.panel.set_title(self.doc.display_name, self.modified, self.doc.filename)

    def _set_text(self, text: str) -> None:
        self.editor.setPlainText(text)
        self.editor.document().setModified(False)
        self._recovery_timer.stop()

    # ---------------------------------------------------------------- opening
    def open_example(self, name: str) -> Example:
        """Open an example (its settings come with it).

        Raises:
            GalleryError: no such example.
        """
        ex = get_example(name)
        self._unwatch()
        self.doc = Document(example=ex, function=ex.function)
        try:
            text = read_source(ex.path, timeout=OWN_FILE)
        except UserError as exc:
            raise GalleryError(exc.info.message) from None
        self._set_text(text)
        self._after_open()
        return ex

    def open_file(self, path: str | Path, function: str = "",
                  remembered: str = "") -> dict | None:
        """Open a Python file; returns its settings if it declares ``JAXVIZ = {...}``.

        Args:
            path: the file.
            function: the function to open; "" for the file's default
                (:func:`~jaxviz.views.window.entry_points.choose_function`, which sets
                :attr:`choice`).
            remembered: the function chosen last time for this file.

        Raises:
            UserError: the file cannot be read, is not UTF-8 or is binary (the
                message names the file and, for bad bytes, their offset); the
                open document is unchanged.
        """
        path = Path(path).resolve()
        text = read_source(path)
        self._unwatch()
        settings = declared_settings(text)
        self.choice = FunctionChoice(function, "asked for") if function else \
            choose_function(text, remembered)
        known = self.trusted_files is not None and self.trusted_files.knows(path, text)
        self.doc = Document(path=path, function=self.choice.name, trusted=known)
        self._set_text(text)
        self._disk_text = text
        self.watcher.addPath(str(path))
        self._after_open()
        return settings

    def new_untitled(self, text: str = "", function: str = "f", trusted: bool = True,
                     origin: str = "") -> None:
        """Start an untitled document (``trusted=False``: it waits for Trace before it runs)."""
        self._unwatch()
        self.doc = Document(function=function, trusted=trusted, origin=origin)
        self._set_text(text)
        self._after_open()

    def trust(self) -> None:
        """The user said the document may run (Trace, F5, Run): remember its file's content."""
        self.doc.trusted = True
        if self.doc.path is not None and self.trusted_files is not None:
            self.trusted_files.remember(self.doc.path, self._disk_text)

    def set_function(self, name: str) -> None:
        """Trace ``name`` of the file: another function is another document (nothing
        shown for the last one stays)."""
        other = name != self.doc.function
        self.doc.function = name
        self._sync_state()
        if other:
            self.state.open_document()

    def _after_open(self) -> None:
        self._sync_state()
        self.state.open_document()  # what the views chose for the last one starts over
        self.panel.clear_error()
        self.panel.notice.hide()
        self.panel.set_functions(self.functions(), self.doc.function)
        self._refresh_title()
        self.opened.emit(self.doc)

    def _unwatch(self) -> None:
        files = self.watcher.files()
        if files:
            self.watcher.removePaths(files)

    # ---------------------------------------------------------------- saving
    def save_to(self, path: str | Path) -> None:
        """Write the text to ``path`` and make it the document's file.

        Raises:
            OSError: it cannot be written (nothing is lost: the text stays).
        """
        path = Path(path).resolve()
        text = self.text()
        self._unwatch()
        path.write_text(text, encoding="utf-8")
        old_key = self.doc.key
        self.doc = Document(path=path, function=self.doc.function, trusted=self.doc.trusted)
        self._disk_text = text
        if self.doc.trusted and self.trusted_files is not None:
            self.trusted_files.remember(path, text)  # saved from here: the user's own code
        self.editor.document().setModified(False)
        self.recovery.discard(old_key)
        self.recovery.discard(self.doc.key)
        self.watcher.addPath(str(path))
        self._sync_state()
        self._refresh_title()
        self.saved.emit(str(path))
        self.message.emit(f"saved {path}")

    # -------------------------------------------------------------- watching
    def _file_changed(self, path: str) -> None:
        file = Path(path)
        if str(file) not in self.watcher.files() and file.exists():
            self.watcher.addPath(str(file))  # editors that save by renaming drop the watch
        if self.doc.path is None or file != self.doc.path:
            return
        try:
            text = read_source(file)
        except UserError as exc:
            self.message.emit(f"{exc.info.message}; your text is kept")
            return
        if text == self._disk_text or text == self.text():
            self._disk_text = text
            return
        if not self.modified:
            self.reload(text)
            return
        self.panel.notice.ask(
            f"{file.name} changed on disk, and you have unsaved edits here.",
            [("Reload from disk", lambda: self.reload(text)),
             ("Keep my edits", lambda: None)])

    def reload(self, text: str | None = None) -> None:
        """Replace the text with the file's content (undoable with Ctrl+Z)."""
        if self.doc.path is None:
            return
        if text is None:
            try:
                text = read_source(self.doc.path)
            except UserError as exc:
                self.message.emit(f"{exc.info.message}; your text is kept")
                return
        self._disk_text = text
        if self.doc.trusted and self.trusted_files is not None:
            # The user runs this file and edits it in their own editor: keep up with it.
            self.trusted_files.remember(self.doc.path, text)
        cursor = self.editor.textCursor()
        position = cursor.position()
        cursor.beginEditBlock()
        cursor.select(cursor.SelectionType.Document)
        cursor.insertText(text)
        cursor.endEditBlock()
        cursor.setPosition(min(position, len(text)))
        self.editor.setTextCursor(cursor)
        self.editor.document().setModified(False)
        self.panel.set_functions(self.functions(), self.doc.function)
        self.message.emit(f"reloaded {self.doc.path.name}: it changed on disk")
        self.opened.emit(self.doc)

    # -------------------------------------------------------------- recovery
    def write_recovery(self) -> None:
        """Keep a copy of unsaved text (removed again once it is saved or unchanged)."""
        if self.modified:
            self.recovery.save(self.doc.key, self.text(), {
                "path": str(self.doc.path) if self.doc.path else None,
                "example": self.doc.example.name if self.doc.example else None,
                "function": self.doc.function, "trusted": self.doc.trusted,
                "origin": self.doc.origin})
        else:
            self.recovery.discard(self.doc.key)

    def discard_recovery(self) -> None:
        self._recovery_timer.stop()
        self.recovery.discard(self.doc.key)

    def restore(self, meta: dict, text: str) -> None:
        """Put recovered text into the editor as unsaved edits of its document.

        It may run if it could when it was written (``meta["trusted"]``: the
        recovery folder is the user's alone); else it waits for Trace.
        """
        path, example = meta.get("path"), meta.get("example")
        trusted = meta.get("trusted") is True
        try:
            if path and Path(path).exists():
                self.open_file(path, meta.get("function") or "")
            elif example:
                self.open_example(example)
            else:
                self.new_untitled(trusted=trusted, origin=str(meta.get("origin") or ""))
        except (UserError, GalleryError):
            self.new_untitled(trusted=trusted)
        self.doc.trusted = trusted
        cursor = self.editor.textCursor()
        cursor.select(cursor.SelectionType.Document)
        cursor.insertText(text)
        self.editor.document().setModified(True)
        self.panel.set_functions(self.functions(), self.doc.function)
        self.opened.emit(self.doc)
