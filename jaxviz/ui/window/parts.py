"""What the main window is made of, declared once for the modules that make it up.

:class:`~jaxviz.ui.window.main_window.MainWindow` builds these parts; its
file handling (:mod:`~jaxviz.ui.window.files`) and its layout and
remembered state (:mod:`~jaxviz.ui.window.layout`) live in mixins that use
them. Deriving those mixins from :class:`WindowParts` says (and lets the type
checker see) what they may rely on, instead of each guessing at the window.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QMainWindow

if TYPE_CHECKING:  # the parts load when the window is built (after its first paint)
    from PySide6.QtWidgets import QDockWidget, QMenu, QSplitter

    from jaxviz.ui.panels.args import ArgsPanel
    from jaxviz.ui.panels.editor_panel import EditorPanel
    from jaxviz.ui.panels.gallery import GalleryPanel
    from jaxviz.ui.panels.tool_tabs import ToolTabs
    from jaxviz.ui.panes.area import JaxprArea
    from jaxviz.ui.panes.linking import LinkController
    from jaxviz.ui.text.editor import CodeEditor
    from jaxviz.ui.window.document import DocumentController
    from jaxviz.ui.window.result_router import ResultRouter
    from jaxviz.ui.window.session import TraceSession
    from jaxviz.ui.window.settings import RememberedSettings
    from jaxviz.views.window.window_state import WindowState

class WindowParts(QMainWindow):
    """The main window's parts and the few calls its mixins make on one another."""

    settings: RememberedSettings
    #: Whether the parts below are built (a staged window paints its frame first).
    built: bool
    state: WindowState
    session: TraceSession
    document: DocumentController
    router: ResultRouter
    linking: LinkController
    editor_panel: EditorPanel
    editor: CodeEditor
    area: JaxprArea
    gallery: GalleryPanel
    args_panel: ArgsPanel
    tools: ToolTabs
    splitter: QSplitter
    docks: dict[str, QDockWidget]
    recent_menu: QMenu

    def set_status(self, text: str, error: bool = False) -> None:
        """The message at the left of the status bar (red for errors)."""
        raise NotImplementedError

    def open_file(self, path: str, function: str = "") -> None:
        """Open a Python file (and pick ``function`` of it)."""
        raise NotImplementedError

    def recent_files_changed(self, files: list[str]) -> None:
        """Show ``files`` in File ▸ Open Recent."""
        raise NotImplementedError

    def waiting_for_say(self) -> str | None:
        """The name of a document not yet run (the trust rule: Trace runs it), else None."""
        raise NotImplementedError
