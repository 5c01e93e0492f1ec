"""The window's engine decodes a big reply in steps on the GUI thread, and keeps replies in order.

The client hands the window's requests their replies undecoded (plain data);
QtEngine decodes them a few milliseconds per event-loop turn. Oracle: the reply
from_plain makes of the same data, and the order the replies came in.
"""

from __future__ import annotations

from jaxviz.engine.requests import UndecodedReply
from jaxviz.model import Reply, from_plain, to_plain
from jaxviz.model.engine import EngineEvent, EngineInfo
from jaxviz.ui.qt_engine import QtEngine
from tests.helpers.device_cases import traced


class _Client:
    """Answers each request at once on the calling thread: the first with a big
    undecoded reply, the rest decoded; checks the window asked for undecoded replies."""

    def __init__(self, devices, timeout, on_event):
        self.on_event = on_event
        self.big = to_plain(Reply(id=1, ok=True, result=[traced("data_parallel", "pmap")] * 80))
        self.asked: list[bool] = []

    def start(self, wait=False):
        self.on_event(EngineEvent("ready", "ok", EngineInfo(devices=[], platform="cpu", pid=1)))

    def submit(self, record, callback, timeout=None, on_progress=None, undecoded=False):
        self.asked.append(undecoded)
        rid = len(self.asked)

        class Handle:
            id = rid

        if rid == 1:
            callback(UndecodedReply(1, self.big, elapsed_s=0.25))
        elif rid == 2:
            callback(UndecodedReply(2, {"not": "jaxviz data"}))
        else:
            callback(Reply(id=rid, ok=True, result="small"))
        return Handle()


def test_a_big_reply_is_decoded_in_steps_and_replies_stay_in_order(qtbot):
    engine = QtEngine(devices=2, client_factory=_Client)
    got: list[Reply] = []
    engine.replied.connect(got.append)
    engine.start()
    for _ in range(3):
        engine.submit("request")
    assert engine._client.asked == [True, True, True]
    assert got == []  # nothing jumps the queue while the first is decoded
    job = engine._decoding
    qtbot.waitUntil(lambda: len(got) == 3, timeout=20000)
    assert [r.id for r in got] == [1, 2, 3]
    assert got[0].elapsed_s == 0.25
    got[0].elapsed_s = 0.0
    assert got[0] == from_plain(engine._client.big)
    assert job.turns > 1  # decoded over several turns of the event loop
    assert not got[1].ok and "cannot read the engine's reply" in got[1].error.message
    assert got[2].result == "small"


class _LaterClient(_Client):
    """Answers each request when told to (as the engine does, later, from its thread)."""

    def __init__(self, devices, timeout, on_event):
        super().__init__(devices, timeout, on_event)
        self.held: list = []

    def submit(self, record, callback, timeout=None, on_progress=None, undecoded=False):
        self.asked.append(undecoded)
        rid = len(self.asked)

        class Handle:
            id = rid

        self.held.append(lambda: callback(Reply(id=rid, ok=True, result="small")))
        return Handle()


def test_the_engine_is_waiting_until_every_reply_came(qtbot):
    """The window's idle cycle collection waits while a reply is on its way."""
    from jaxviz.ui import gc_policy

    late = QtEngine(devices=2, client_factory=_LaterClient)
    late.start()
    assert not late.waiting
    late.submit("a")
    late.submit("b")
    assert late.waiting
    assert any(check() for check in gc_policy.busy_checks)
    late._client.held.pop(0)()
    assert late.waiting  # one still on its way
    late._client.held.pop(0)()
    assert not late.waiting

    at_once = QtEngine(devices=2, client_factory=_Client)  # answers inside submit
    at_once.start()
    got: list[Reply] = []
    at_once.replied.connect(got.append)
    for _ in range(3):
        at_once.submit("request")
    qtbot.waitUntil(lambda: len(got) == 3, timeout=20000)
    assert not at_once.waiting


def test_a_decoded_reply_is_not_kept_once_it_is_handed_on(qtbot):
    """Each reply's plain data (megabytes for a big program) is let go once its Reply is
    emitted: nothing of the decoding -- the job, its connections -- keeps it alive."""
    import weakref

    from PySide6.QtCore import QCoreApplication, QEvent

    engine = QtEngine(devices=2, client_factory=_Client)
    sent: list[weakref.ref] = []
    client = engine._client
    submit = client.submit

    def keep_a_weak_reference(record, callback, **kwargs):
        def on_reply(reply):
            if isinstance(reply, UndecodedReply):
                sent.append(weakref.ref(reply))
            callback(reply)
        return submit(record, on_reply, **kwargs)

    client.submit = keep_a_weak_reference
    got: list[Reply] = []
    engine.replied.connect(lambda reply: got.append(reply.id))
    engine.start()
    for _ in range(3):
        engine.submit("request")
    qtbot.waitUntil(lambda: len(got) == 3, timeout=20000)
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    assert len(sent) == 2  # the big reply and the unreadable one
    assert [ref() for ref in sent] == [None, None]
