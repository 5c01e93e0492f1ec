"""jaxviz.show's channel, window side: a real main window (offscreen) listening on a
private Unix socket, and a notebook-side client sending from another thread.

A function defined in a notebook cell arrives with the window's token and is
traced at once (its jaxpr equals jax.make_jaxpr's); without the token it is
shown and not run (the trust rule); a folder others may enter is refused.
"""

from __future__ import annotations

import os
import stat
import threading

import jax
import jax.numpy as jnp
import pytest

from jaxviz.model.window_channel import OpenMessage
from jaxviz.notebook.channel import private_dir, send_message
from jaxviz.notebook.requests import build_request
from jaxviz.notebook.shipping import ship
from jaxviz.ui.window.channel import ChannelServer, open_in_window
from tests.helpers.notebook_cells import CONVOLVE, cell_function
from tests.helpers.window import JAX_MS, wait_for_panes

# Not in the fast tier: the window on the real engine.
pytestmark = pytest.mark.slow


def _listening(window, token="the-token"):
    folder = private_dir()
    assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700
    server = ChannelServer(folder / "w.sock", lambda m, t: open_in_window(window, m, t),
                           token=token, parent=window)
    assert server.listen() is None
    assert stat.S_ISSOCK(os.stat(server.path).st_mode)
    return server


def _send(qtbot, path, message) -> dict:
    replies: list[dict] = []
    thread = threading.Thread(target=lambda: replies.append(send_message(path, message,
                                                                         timeout=30)))
    thread.start()
    qtbot.waitUntil(lambda: bool(replies), timeout=JAX_MS)
    thread.join()
    return replies[0]


def _message(f, args, token) -> OpenMessage:
    shipment = ship(f, args)
    request = build_request(shipment, ["plain"], {}, [])
    return OpenMessage(shipment.source, shipment.filename, shipment.function,
                       {n: getattr(request, n) for n in request.names()}, ["vmap"], token)


def test_a_cell_function_opens_and_traces_in_the_window(qtbot, window):
    convolve = cell_function(CONVOLVE, "convolve")
    x, w = jnp.arange(5.), jnp.array([2., 3., 4.])
    server = _listening(window)
    reply = _send(qtbot, server.path, _message(convolve, (x, w), "the-token"))
    assert reply == {"ok": True, "message": "opened convolve in the window, tracing"}
    assert "def convolve(x, w):" in window.editor.toPlainText()
    assert window.document.doc.trusted
    assert "vmap" in window.state.visible_variants
    wait_for_panes(qtbot, window, lambda: bool(window.area.panes["plain"].jaxpr_view
                                               .toPlainText().strip()))
    shown = window.area.panes["plain"].jaxpr_view.toPlainText()
    assert shown.strip() == str(jax.make_jaxpr(convolve)(x, w)).strip()
    server.close()


def test_without_the_token_it_is_shown_not_run(qtbot, window, tmp_path):
    marker = tmp_path / "ran"
    source = (f"open({str(marker)!r}, 'w').write('ran')\n\n\ndef double(x):\n"
              f"    return x * 2\n")
    server = _listening(window)
    message = OpenMessage(source, "/tmp/ipykernel_1/1.py", "double", {"args": "f32[4]"}, [],
                          "a-guess")
    reply = _send(qtbot, server.path, message)
    assert reply["ok"] and "not run: press Trace (F5)" in reply["message"]
    qtbot.wait(800)
    wait_for_panes(qtbot, window)
    assert not marker.exists(), "a message without the token ran its code"
    assert not window.document.doc.trusted
    assert "def double" in window.editor.toPlainText()
    server.close()


def test_bad_messages_and_open_folders_are_refused(qtbot, window, tmp_path):
    server = _listening(window)
    replies: list[bytes] = []

    def raw():
        import socket

        with socket.socket(socket.AF_UNIX) as s:
            s.connect(server.path)
            s.sendall(b'{"open": {"source": 1}}\n')
            replies.append(s.makefile("rb").readline())

    thread = threading.Thread(target=raw)
    thread.start()
    qtbot.waitUntil(lambda: bool(replies), timeout=10_000)
    thread.join()
    assert b'"ok": false' in replies[0] and b"refused: source must be a string" in replies[0]
    server.close()
    open_dir = tmp_path / "open"
    open_dir.mkdir(mode=0o755)
    os.chmod(open_dir, 0o755)
    other = ChannelServer(open_dir / "w.sock", lambda m, t: "", token="t", parent=window)
    assert "is not a private folder" in other.listen()
