"""``jaxviz.show``: open the desktop window on a function, from a notebook or a script.

The first call starts the window (``python -m jaxviz --listen SOCKET``) in its
own session, so it outlives neither more nor less than the user wants: closing
the kernel leaves it open, closing it ends it. The socket lives in a directory
made for it with mode 0700 (under ``$XDG_RUNTIME_DIR`` when that is a private
folder, else the temporary folder): a Unix socket, nothing on any network
interface, reachable by this user only. The window is started with a random
token in its environment; messages carrying it are the caller's say to run the
function (see :mod:`jaxviz.model.window_channel` for the trust rule).

Later calls from the same process send to the same window while it is open;
when it was closed, a new one is started. The function's source and its
arguments travel as :func:`jaxviz.notebook.shipping.ship` makes them (the
window's engine then runs them with its own device count).
"""

from __future__ import annotations

import os
import secrets
import socket
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

from jaxviz.model import files, window_channel
from jaxviz.model.window_channel import OpenMessage
from jaxviz.notebook.requests import build_request, check_variant
from jaxviz.notebook.shipping import ship

#: Arrays larger than this (bytes) reach the window as their type only (``f32[1024,1024]``):
#: the window's editor shows the shipped source, values and all.
VALUE_LIMIT = 4096
#: Seconds to wait for a newly started window to listen.
START_TIMEOUT = 60.0


def private_dir() -> Path:
    """A new directory only this user can enter (mode 0700)."""
    base = os.environ.get("XDG_RUNTIME_DIR")
    if base and Path(base).is_dir():
        st = Path(base).stat()
        if st.st_uid != os.getuid() or st.st_mode & 0o077:
            base = None
    else:
        base = None
    path = Path(tempfile.mkdtemp(prefix="jaxviz-", dir=base))  # mkdtemp: mode 0700
    path.chmod(0o700)
    return path


class Window:
    """A window started by :func:`show`, and the replies to what was sent to it."""

    def __init__(self, devices: int | None, env: dict[str, str] | None = None):
        self.folder = private_dir()
        self.socket_path = str(self.folder / "window.sock")
        self.token = secrets.token_hex(32)
        self.log = self.folder / "window.log"
        environ = dict(os.environ if env is None else env)
        environ[window_channel.TOKEN_ENV] = self.token
        command = [sys.executable, "-m", "jaxviz", "--listen", self.socket_path]
        if devices:
            command += ["--devices", str(devices)]
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(command, env=environ, stdout=log, stderr=log,
                                            stdin=subprocess.DEVNULL, start_new_session=True)
        self.replies: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._threads: list[threading.Thread] = []

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def send(self, message: OpenMessage, wait: bool = False) -> None:
        """Send in the background (the caller returns at once); ``wait``: in this thread."""
        if wait:
            self._deliver(message)
            return
        thread = threading.Thread(target=self._deliver, args=(message,), daemon=True,
                                  name="jaxviz-show")
        self._threads.append(thread)
        thread.start()

    def wait(self, timeout: float = START_TIMEOUT) -> dict[str, Any] | None:
        """Wait for what was sent; the window's last reply (``ok``, ``message``)."""
        for thread in self._threads:
            thread.join(timeout)
        return self.replies[-1] if self.replies else None

    def _deliver(self, message: OpenMessage) -> None:
        with self._lock:
            self.replies.append(send_message(self.socket_path, message, lambda: self.alive,
                                             self.log))

    def close(self) -> None:
        """End the window (tests; users close it themselves)."""
        if self.alive:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()


def send_message(path: str, message: OpenMessage, alive=lambda: True,
                 log: Path | None = None, timeout: float = START_TIMEOUT) -> dict[str, Any]:
    """Send one message to the window listening on ``path``; its reply (``ok``,
    ``message``). Waits (up to ``timeout``) for a window that is still starting."""
    import json
    import time

    data = window_channel.encode(message)
    deadline = time.monotonic() + timeout
    while True:
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
                sock.settimeout(timeout)
                sock.connect(path)
                sock.sendall(data)
                answer = sock.makefile("rb").readline()
            return json.loads(answer) if answer else {
                "ok": False, "message": "the window did not answer"}
        except (FileNotFoundError, ConnectionRefusedError):
            if not alive() or time.monotonic() > deadline:
                tail = _log_tail(log)
                return {"ok": False, "message": f"the jaxviz window did not start: {tail}"}
            time.sleep(0.2)
        except OSError as exc:
            return {"ok": False, "message": f"could not reach the window: {exc}"}


_window: Window | None = None


def show(f: Any, args: tuple[Any, ...], variants: list[str] | None = None,
         devices: int | None = None, options: dict[str, Any] | None = None,
         wait: bool = False) -> Window:
    """Open the window on ``f(*args)`` and return at once; a second call reuses the window.

    Args:
        f, args: as :func:`jaxviz.view` takes them (arrays, ShapeDtypeStructs).
        variants: the panes to show (default: the window's own, plus ``sharded``
            when an argument carries a ``NamedSharding``).
        devices: the window's device count when it is started (default: as last time).
        options: the window's settings (``in_axes``, ``mesh``, ``specs`` ...).
        wait: wait until the window has the function (scripts that end right after).

    Returns:
        the :class:`Window`; ``.wait()`` returns the window's reply.
    """
    global _window
    for v in variants or []:
        check_variant(v)
    shipment = ship(f, args, value_limit=VALUE_LIMIT)
    request = build_request(shipment, list(variants or ["plain"]), dict(options or {}), [])
    shown = list(variants or [])
    if not shown and request.mesh:
        shown = ["sharded"]
    settings = {name: getattr(request, name) for name in request.names()}
    message = OpenMessage(shipment.source, shipment.filename, shipment.function,
                          settings, shown)
    if _window is None or not _window.alive:
        _window = Window(devices)
    message.token = _window.token
    _window.send(message, wait=wait)
    return _window


def _log_tail(log: Path | None) -> str:
    """The last lines the window printed before it failed to start (its log file)."""
    if log is None or not log.exists():
        return ""
    try:
        return files.read_text(log, limit=files.SETTINGS_BYTES)[-2000:]
    except files.FileProblem as exc:
        return str(exc)
