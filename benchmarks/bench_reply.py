"""A big reply arriving in the window: the GUI event loop while a 12-layer train step's reply
comes in from the engine and is decoded, the old way and the window's way, in one run.

The reply (4.3 MB of JSON: the train step's plain and sharded variants, jaxprs and
storyboards) is read from bytes as the engine writes them, by a reader thread, as the
engine client's reader does:

* **one line** (before): the whole reply as one line, decoded on the reader thread
  (one ``json.loads``, then ``from_plain``), as the client did for every request;
* **pieces + steps** (the window now): the engine cuts it into pieces of about
  128 KB (:func:`jaxviz.engine.protocol.split`), the reader decodes and joins them,
  and :class:`~jaxviz.ui.qt_engine.QtEngine` decodes the records in steps on the
  GUI thread (:func:`jaxviz.model.codec.from_plain_steps` in a ``SlicedJob``).

For each it prints the longest event-loop gap (a 5 ms heartbeat; target 17 ms, one
frame) and the longest repaint of an editor holding the program's source, repainted
every 16 ms meanwhile: a thread running Python makes the GUI thread wait for the GIL
after its Qt calls, which stretches paints even when the event loop keeps turning.
The process collects reference cycles as the window's does (:mod:`jaxviz.ui.gc_policy`:
full passes only when idle), for both ways.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/bench_reply.py --result result.json
        [--rounds 3]

``--result`` is a traced result in the model codec's JSON (``bench_big_program.py --keep``
writes one); without it the 12-layer train step is traced first (minutes).
"""

from __future__ import annotations

import argparse
import gc
import io
import json
import os
import sys
import threading
import time
from pathlib import Path

from heartbeat import Heartbeat, bytecode_as_installed

ROOT = Path(__file__).resolve().parents[1]
TOKEN = "b" * 32
STALL_TARGET_MS = 17.0


def main() -> int:
    print(bytecode_as_installed())
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--result", help="a traced result (JSON)")
    parser.add_argument("--layers", type=int, default=12)
    parser.add_argument("--rounds", type=int, default=3, help="receptions of each kind")
    ns = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    if ns.result:
        plain_result = json.loads(Path(ns.result).read_text())
    else:
        from bench_big_program import trace

        plain_result = trace(ns.layers)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    import jaxviz.ui  # noqa: F401  (the GUI process's start-up hooks)
    from jaxviz.engine import protocol
    from jaxviz.engine.requests import UndecodedReply
    from jaxviz.model import Reply, from_plain, to_plain
    from jaxviz.ui import gc_policy
    from jaxviz.ui.qt_engine import QtEngine
    from jaxviz.ui.text.editor import CodeEditor
    from jaxviz.ui.theme import style
    from tests.programs import gpt_source

    app = QApplication.instance() or QApplication(sys.argv[:1])
    style.apply_theme(app)
    gc_policy.install(app)  # as the window's process runs (jaxviz.ui.app)
    assert "jax" not in sys.modules, "the GUI process imported JAX"
    reply_plain = to_plain(Reply(id=1, ok=True, result=from_plain(plain_result)))
    message = {"op": protocol.REPLY, "id": 1, "reply": reply_plain}
    one_line = protocol.encode({**message, "token": TOKEN})
    pieces = b"".join(protocol.encode({**p, "token": TOKEN}) for p in protocol.split(message))
    lines = pieces.count(b"\n")
    print(f"the reply: {len(one_line) / 1e6:.1f} MB as one line; {lines} lines in pieces")

    class Client:
        """The engine client's reader thread, reading the engine's bytes."""

        old_way = False

        def __init__(self, devices, timeout, on_event):
            pass

        def submit(self, record, callback, timeout=None, on_progress=None, undecoded=False):
            def read():
                if Client.old_way:  # one line, decoded on this thread
                    got = protocol.receive_signed(io.BytesIO(one_line), TOKEN)
                    callback(from_plain(got["reply"]))
                else:
                    got = protocol.receive_signed(io.BytesIO(pieces), TOKEN)
                    callback(UndecodedReply(1, got["reply"]))

            threading.Thread(target=read, daemon=True).start()

            class Handle:
                id = 1
            return Handle()

    editor = CodeEditor()
    editor.setPlainText(gpt_source(ns.layers))
    editor.resize(900, 900)
    editor.show()
    paints: list[float] = []

    def repaint() -> None:
        editor.verticalScrollBar().setValue((len(paints) * 37) % 2000)
        start = time.perf_counter()
        editor.viewport().repaint()
        paints.append(time.perf_counter() - start)

    painter = QTimer()
    painter.setInterval(16)
    painter.timeout.connect(repaint)
    beat = Heartbeat()
    rows: dict[str, list[tuple[float, float, float]]] = {"one line": [], "pieces + steps": []}
    for _ in range(ns.rounds):
        for kind in rows:
            Client.old_way = kind == "one line"
            # Replies come seconds apart in the window, whose idle pass collects and freezes
            # what is alive meanwhile (jaxviz.ui.gc_policy). Without it, the reader thread's
            # allocations set off a full pass over the last round's million objects (or this
            # benchmark's own copies of the reply): 120-165 ms with the GIL held, a stall of
            # back-to-back rounds, not of the window.
            gc.collect()
            gc.freeze()
            engine = QtEngine(client_factory=Client)
            got: list = []
            engine.replied.connect(got.append)
            app.processEvents()
            paints.clear()
            beat.start()
            painter.start()
            start = time.perf_counter()
            engine.submit("request")
            while not got:
                app.processEvents()
                time.sleep(0.001)
            took = time.perf_counter() - start
            painter.stop()
            stall = beat.stop()
            assert got[0].ok and got[0].result.variants, got[0]
            rows[kind].append((stall * 1000, beat.worst_cpu * 1000,
                               max(paints, default=0.0) * 1000, took * 1000))
            engine.deleteLater()
            got.clear()
            app.processEvents()
    print(f"{'receiving the reply':22} {'longest gap':>12} {'(GUI CPU)':>10} "
          f"{'longest repaint':>16} {'until decoded':>14}   (ms; median of {ns.rounds}; "
          f"target gap <= {STALL_TARGET_MS:.0f})")
    for kind, runs in rows.items():
        med = [sorted(col)[len(col) // 2] for col in zip(*runs)]
        print(f"{kind:22} {med[0]:12.0f} {med[1]:10.0f} {med[2]:16.0f} {med[3]:14.0f}")
    print(f"load average {os.getloadavg()[0]:.2f} (2-core machine)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
