"""The window's end of ``jaxviz.show``: a Qt local server on a private Unix socket.

``jaxviz --listen PATH`` (started by :func:`jaxviz.notebook.channel.show`)
listens on ``PATH``, a socket in a directory of mode 0700 that the caller made,
with Qt's user-only access option on top. Qt's event loop reads the
connections (``QLocalServer``/``QLocalSocket`` signals): the GUI thread never
blocks on them. Each message (:mod:`jaxviz.model.window_channel`) opens its
function through ``handler(message, trusted)``; ``trusted`` follows the
window's trust rule (the launching token, see that module).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject
from PySide6.QtNetwork import QLocalServer, QLocalSocket

from jaxviz.model import window_channel
from jaxviz.model.window_channel import OpenMessage

Handler = Callable[[OpenMessage, bool], str]


class ChannelServer(QObject):
    """Listens on ``path``; every message goes to ``handler`` (which says what it did)."""

    def __init__(self, path: str | Path, handler: Handler, token: str | None = None,
                 parent: QObject | None = None):
        super().__init__(parent)
        self.path = str(path)
        self.handler = handler
        self.token = token if token is not None else os.environ.pop(window_channel.TOKEN_ENV,
                                                                    "")
        self.server = QLocalServer(self)
        self.server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
        self.server.newConnection.connect(self._accept)
        self._buffers: dict[QLocalSocket, bytearray] = {}

    def listen(self) -> str | None:
        """Start listening; None, or why it could not."""
        folder = Path(self.path).parent
        mode = folder.stat().st_mode & 0o777 if folder.is_dir() else None
        if mode is None or mode & 0o077:
            return (f"{folder} is not a private folder (mode "
                    f"{'missing' if mode is None else oct(mode)}): not listening there")
        QLocalServer.removeServer(self.path)  # a socket file left by a crashed window
        if not self.server.listen(self.path):
            return f"cannot listen on {self.path}: {self.server.errorString()}"
        return None

    def close(self) -> None:
        self.server.close()

    def _accept(self) -> None:
        while self.server.hasPendingConnections():
            sock = self.server.nextPendingConnection()
            self._buffers[sock] = bytearray()
            sock.readyRead.connect(lambda s=sock: self._read(s))
            sock.disconnected.connect(lambda s=sock: self._forget(s))

    def _forget(self, sock: QLocalSocket) -> None:
        self._buffers.pop(sock, None)
        sock.deleteLater()

    def _read(self, sock: QLocalSocket) -> None:
        buffer = self._buffers.get(sock)
        if buffer is None:
            return
        buffer += bytes(sock.readAll().data())
        if len(buffer) > window_channel.MAX_MESSAGE:
            self._answer(sock, False, "message too large")
            return
        if b"\n" not in buffer:
            return
        line = bytes(buffer[:buffer.index(b"\n")])
        try:
            message = window_channel.decode(line)
        except ValueError as exc:
            self._answer(sock, False, f"refused: {exc}")
            return
        trusted = window_channel.trusted(message, self.token)
        try:
            said = self.handler(message, trusted)
        except Exception as exc:  # noqa: BLE001 - a bad message must not end the window
            self._answer(sock, False, f"could not open {message.function}: {exc}")
            return
        self._answer(sock, True, said)

    def _answer(self, sock: QLocalSocket, ok: bool, text: str) -> None:
        self._buffers.pop(sock, None)
        sock.write(window_channel.reply(ok, text))
        sock.flush()
        sock.disconnectFromServer()


def open_in_window(window, message: OpenMessage, trusted: bool) -> str:
    """Open the message's function in ``window`` (a ``MainWindow``) as the trust rule says.

    Trusted (the launching token): the function runs at once, as a file named
    on the command line does. Otherwise it is shown as an untitled document
    that waits for Trace (F5), as an unknown file does. Unsaved edits in the
    window are never dropped silently (the usual Save/Discard/Cancel question).
    """
    if not window.confirm_leave():
        return f"{message.function} not opened: the window has unsaved edits"
    name = Path(message.filename).name or message.filename
    window.document.new_untitled(message.source, function=message.function, trusted=trusted,
                                 origin=f"sent from {name}")
    settings = {"args": "", **message.settings}
    window.state.set_settings(settings)
    for variant in message.variants:
        window.state.set_variant_visible(variant, True)
    window.args_panel.validate()
    window.gallery.select(None)
    window.gallery.show_document(window.document.doc.display_name, message.source)
    window.session.trace_now()
    window.raise_()
    window.activateWindow()
    if trusted:
        return f"opened {message.function} in the window, tracing"
    return (f"opened {message.function} in the window, not run: press Trace (F5) there "
            f"(the message did not carry this window's token)")
