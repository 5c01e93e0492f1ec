"""The engine client as a QObject: its callbacks become Qt signals on the GUI thread.

:class:`~jaxviz.engine.EngineClient` calls back on a thread of its own.
:class:`QtEngine` hands every callback to a signal of a QObject that lives in
the GUI thread; Qt queues signals that cross threads, so the slots connected
to :attr:`QtEngine.replied`, :attr:`QtEngine.progressed` and
:attr:`QtEngine.event` always run on the GUI thread, in the order the client
delivered them. Nothing here waits for JAX: ``start``, ``submit``, ``cancel``
and ``restart`` return at once.

Example:
    >>> engine = QtEngine(devices=8)                       # doctest: +SKIP
    >>> engine.replied.connect(lambda reply: print(reply.ok))
    >>> engine.start()
    >>> request_id = engine.submit(TraceRequest(...))
"""

from __future__ import annotations

import collections
import threading
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from jaxviz.model.engine import EngineEvent, EngineInfo
from jaxviz.model.limits import DEFAULT_DEVICES, DEFAULT_TIMEOUT
from jaxviz.ui import gc_policy


class _Relay(QObject):
    """Lives in the GUI thread; its signals are emitted from the client's thread."""

    reply = Signal(object)
    progress = Signal(object, object)  # (holder of the request id, partial record)
    event = Signal(object)  # type: ignore[assignment]  # shadows QObject.event; kept: callers connect to it


class QtEngine(QObject):
    """A Qt face for the JAX engine process.

    Args:
        devices: the device count to start JAX with.
        timeout: seconds a request may run before the engine is restarted.
        client_factory: builds the client (``EngineClient`` by default, or a
            stand-in in tests); called with ``devices``, ``timeout`` and
            ``on_event``.
    """

    #: A :class:`~jaxviz.model.engine.Reply` arrived (GUI thread).
    replied = Signal(object)
    #: ``(request id, partial record)`` streamed by a running request (GUI thread).
    progressed = Signal(int, object)
    #: An :class:`~jaxviz.model.engine.EngineEvent`: starting, ready, crashed, restarting, stopped.
    event = Signal(object)  # type: ignore[assignment]  # shadows QObject.event; kept: callers connect to it

    def __init__(self, devices: int = DEFAULT_DEVICES, timeout: float = DEFAULT_TIMEOUT,
                 client_factory: Callable[..., Any] | None = None,
                 parent: QObject | None = None):
        super().__init__(parent)
        self._relay = _Relay(self)
        self._relay.reply.connect(self._on_reply)
        #: Replies in the order they came, the first one being decoded (see _on_reply).
        self._arrived: collections.deque[Any] = collections.deque()
        self._decoding: Any = None  # the SlicedJob decoding the first of them
        #: The requests submitted here whose reply has not been emitted yet, and the
        #: replies emitted before their submit returned (a client may answer at once).
        self._waiting: set[int] = set()
        self._early: set[int] = set()
        self.replied.connect(self._answered)
        # a reply on its way: the window's idle cycle collection waits (a user waiting for
        # the stepper's values is not idle, and its 150 ms pass would delay them)
        gc_policy.busy_while(self, "waiting")
        self._relay.progress.connect(
            lambda holder, partial: self.progressed.emit(holder.get("id", -1), partial))
        self._relay.event.connect(self._on_event)
        self._factory = client_factory
        self._timeout = timeout
        self._made: Any = None  # the client, made on first use (after the window paints)
        self._devices = devices
        self._info: EngineInfo | None = None
        self._state = "stopped"

    @property
    def _client(self) -> Any:
        """The engine client; its module (and the process machinery) load on first use."""
        if self._made is None:
            factory = self._factory
            if factory is None:
                from jaxviz.engine import EngineClient  # no JAX: the client only spawns it
                factory = EngineClient
            self._made = factory(devices=self._devices, timeout=self._timeout,
                                 on_event=self._relay.event.emit)
        return self._made

    # -------------------------------------------------------------- state
    @property
    def devices(self) -> int:
        """The device count the engine runs (or is starting) with."""
        return self._devices

    @property
    def info(self) -> EngineInfo | None:
        """The ready engine's description; None while it starts or restarts."""
        return self._info

    def _answered(self, reply: Any) -> None:
        rid = getattr(reply, "id", None)
        if rid in self._waiting:
            self._waiting.discard(rid)
        elif isinstance(rid, int):
            self._early.add(rid)

    @property
    def waiting(self) -> bool:
        """Whether a request submitted here has not had its reply emitted yet."""
        return bool(self._waiting or self._arrived)

    @property
    def state(self) -> str:
        """The last event's kind: starting, ready, crashed, restarting or stopped."""
        return self._state

    def _on_event(self, event: EngineEvent) -> None:
        self._state = event.kind
        if event.kind == "ready":
            self._info = event.info
        elif event.kind in ("starting", "restarting", "crashed", "stopped"):
            self._info = None
        self.event.emit(event)

    def _on_reply(self, reply: Any) -> None:
        """A reply came: emit it, in the order they came. One the client left undecoded (a
        big program's reply is 4.3 MB of plain data) is decoded in steps on this thread,
        a few milliseconds per event-loop turn, rather than on the client's thread, where
        it would hold the GIL -- and so the window -- for 0.4 s."""
        self._arrived.append(reply)
        if len(self._arrived) == 1:
            self._next_reply()

    def _next_reply(self) -> None:
        from jaxviz.engine.requests import UndecodedReply, unreadable_reply
        from jaxviz.model.codec import from_plain_steps
        from jaxviz.ui.sliced import SlicedJob

        while self._arrived:
            first = self._arrived[0]
            if not isinstance(first, UndecodedReply):  # a Reply already (the client's own)
                self._arrived.popleft()
                self.replied.emit(first)
                continue
            # data that is not a reply fails the first step (SchemaMismatch): said as one
            job = SlicedJob(from_plain_steps(first.plain), parent=self)
            # emitted in a turn of its own: the views it feeds do not share the decode's
            # last slice (the window's longest turns while tracing were both together)
            job.finished.connect(lambda decoded, first=first: QTimer.singleShot(
                0, self, lambda: self._decoded(first, decoded)))
            job.failed.connect(lambda exc, first=first: self._decoded(
                first, unreadable_reply(first.id, exc)))
            self._decoding = job
            job.start()
            return

    def _decoded(self, undecoded: Any, decoded: Any) -> None:
        from jaxviz.engine.requests import as_reply

        if self._decoding is not None:
            # Done with: its connections hold the reply's plain data (megabytes for a big
            # program), which would otherwise live as long as this engine, one per reply.
            self._decoding.deleteLater()
        self._decoding = None
        if self._arrived and self._arrived[0] is undecoded:
            self._arrived.popleft()
        self.replied.emit(as_reply(undecoded.id, decoded, undecoded.elapsed_s))
        self._next_reply()

    # ------------------------------------------------------------ actions
    def start(self) -> None:
        """Spawn the engine in the background."""
        self._client.start(wait=False)

    def submit(self, record: Any, timeout: float | None = None) -> int:
        """Send a request record; its reply arrives through :attr:`replied`. Returns its id."""
        relay = self._relay
        # The id is known only once submit returns, which may be after the client's
        # thread has streamed a record: the holder is read on the GUI thread, later.
        holder: dict[str, int] = {}
        handle = self._client.submit(
            record, relay.reply.emit, timeout=timeout,
            on_progress=lambda partial: relay.progress.emit(holder, partial), undecoded=True)
        holder["id"] = handle.id
        if handle.id in self._early:
            self._early.discard(handle.id)
        else:
            self._waiting.add(handle.id)
        return handle.id

    def worker_client(self) -> _WorkerClient:
        """This engine for a worker thread that waits for its replies (the presentation's
        deck loader): its ``submit(record, callback, timeout=)`` calls ``callback`` on the
        client's thread, and the replies do not go to :attr:`replied` (the window's
        session never sees them). One engine serves the window and the presentation."""
        return _WorkerClient(self._client)

    def cancel(self, request_id: int) -> None:
        """Cancel a request: dropped if queued; the engine is restarted if it is running."""
        self._client.cancel(request_id)

    def restart(self, devices: int | None = None) -> None:
        """Restart the engine, with a new device count if given."""
        if devices is not None:
            self._devices = devices
        self._info = None
        self._client.restart(devices)

    def stop(self, wait: bool = False) -> None:
        """Stop the engine. Without ``wait`` the shutdown runs on a helper thread."""
        if self._made is None:
            return  # never started: nothing to stop
        if wait:
            self._client.stop()
        else:
            threading.Thread(target=self._client.stop, name="jaxviz-engine-stop",
                             daemon=True).start()


class _WorkerClient:
    """An engine client's ``submit`` for worker threads; never wait on the GUI thread."""

    def __init__(self, client: Any) -> None:
        self._client = client

    def submit(self, record: Any, callback: Callable[[Any], None], *,
               timeout: float | None = None) -> Any:
        """Queue ``record``; ``callback(reply)`` runs on the client's thread.

        Raises:
            RuntimeError: called on the GUI thread (it must never wait for JAX).
        """
        if threading.current_thread() is threading.main_thread():
            raise RuntimeError("the engine's worker client is for worker threads: the GUI "
                               "thread never waits for JAX (use QtEngine.submit)")
        return self._client.submit(record, callback, timeout=timeout)
