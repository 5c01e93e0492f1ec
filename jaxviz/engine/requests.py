"""Requests seen from the client: handles, their state, errors, and the callback thread.

This module imports nothing from JAX.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from jaxviz.engine.process import EngineProcess
from jaxviz.model import ErrorInfo, SchemaMismatch, from_plain
from jaxviz.model.engine import Reply

_log = logging.getLogger("jaxviz.engine")


class EngineError(RuntimeError):
    """The engine could not run a request, or could not start.

    Attributes:
        info: what went wrong (``kind`` is ``timeout``, ``crash``,
            ``cancelled`` or ``engine``, or the kind of a handler's failure).
        reply: the failed reply, when there is one (with what was printed).
    """

    def __init__(self, info: ErrorInfo, reply: Reply | None = None):
        super().__init__(info.message)
        self.info = info
        self.reply = reply


class RequestHandle:
    """A submitted request: wait for its reply, or cancel it.

    Attributes:
        id: the request's id (ids increase in submission order).
    """

    def __init__(self, request_id: int, cancel: Callable[[int], None]):
        self.id = request_id
        self._cancel = cancel
        self._done = threading.Event()
        self._reply: Reply | UndecodedReply | None = None

    def result(self, timeout: float | None = None) -> Reply:
        """The reply (which may say the request failed: check ``reply.ok``).

        Raises:
            TimeoutError: no reply within ``timeout`` seconds (the request goes on).
        """
        if not self._done.wait(timeout):
            raise TimeoutError(f"engine request {self.id} has no reply after {timeout} s")
        assert self._reply is not None
        if isinstance(self._reply, UndecodedReply):  # decoded for whoever waits
            self._reply = decode_reply(self.id, self._reply.plain, self._reply.elapsed_s)
        return self._reply

    def done(self) -> bool:
        """True once the reply is there."""
        return self._done.is_set()

    def cancel(self) -> None:
        """Cancel this request (see :meth:`jaxviz.engine.EngineClient.cancel`)."""
        self._cancel(self.id)

    def finish(self, reply: Reply | UndecodedReply) -> None:
        """Resolve the handle (the client does this, once)."""
        self._reply = reply
        self._done.set()


@dataclass(eq=False)
class PendingRequest:
    """A request's state inside the client, from submit to reply."""

    id: int
    record: Any
    data: bytes  # the encoded request message
    timeout: float
    callback: Callable[[Reply], None] | None
    on_progress: Callable[[Any], None] | None
    handle: RequestHandle
    attempts: int = 0
    sent_at: float | None = None
    begun: bool = False
    engine: EngineProcess | None = None
    #: When the engine was asked for its stack because the request timed out.
    stack_asked: float | None = None
    #: Hand the reply over undecoded (:class:`UndecodedReply`): the submitter decodes it.
    undecoded: bool = False


@dataclass
class UndecodedReply:
    """A reply as the engine sent it, still plain data: for a window that decodes it in steps
    on its own thread (:func:`jaxviz.model.codec.from_plain_steps`) rather than here, where
    decoding a 12-layer train step's reply holds the GIL (and so the window) for 0.4 s."""

    id: int
    plain: Any  # what to_plain made of the Reply
    elapsed_s: float = 0.0


class CallbackThread:
    """One thread that runs callbacks in the order they were queued."""

    def __init__(self) -> None:
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self.thread = threading.Thread(target=self._run, args=(self._queue,),
                                       name="jaxviz-engine-callbacks", daemon=True)
        self.thread.start()

    def put(self, fn: Callable[[Any], None] | None, arg: Any) -> None:
        """Queue ``fn(arg)`` (nothing if ``fn`` is None)."""
        if fn is not None:
            self._queue.put((fn, arg))

    def close(self) -> None:
        """Let the thread end after the callbacks already queued."""
        self._queue.put(None)

    @staticmethod
    def _run(callbacks: queue.SimpleQueue) -> None:
        while (item := callbacks.get()) is not None:
            fn, arg = item
            try:
                fn(arg)
            except Exception:  # noqa: BLE001 - a failing callback must not stop the others
                _log.exception("jaxviz engine callback %r failed", fn)


def decode_reply(request_id: int, plain: Any, elapsed_s: float | None = None) -> Reply:
    """The :class:`Reply` in an engine's ``reply`` message (its plain form); a reply saying
    so when it cannot be read."""
    try:
        decoded = from_plain(plain)
    except SchemaMismatch as exc:
        decoded = unreadable_reply(request_id, exc)
    return as_reply(request_id, decoded, elapsed_s)


def as_reply(request_id: int, decoded: Any, elapsed_s: float | None = None) -> Reply:
    """``decoded`` if it is a :class:`Reply` (else a reply saying it is not), with
    ``elapsed_s`` when given."""
    reply = decoded if isinstance(decoded, Reply) else unreadable_reply(
        request_id, f"a {type(decoded).__name__}, not a reply")
    if elapsed_s is not None:
        reply.elapsed_s = elapsed_s
    return reply


def unreadable_reply(request_id: int, why: object) -> Reply:
    """The reply for a request whose reply could not be read (saying why)."""
    return Reply(id=request_id, ok=False, error=ErrorInfo(
        kind="engine", message=f"cannot read the engine's reply: {why}"))
