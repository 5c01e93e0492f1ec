"""The engine client: run request records in a restartable JAX process.

It never imports JAX. How it deals with timeouts, crashes, cancels and
restarts, and on which thread callbacks run, is described in
:mod:`jaxviz.engine`.

Example:
    >>> from jaxviz.engine import EngineClient
    >>> from jaxviz.model import DevicesRequest
    >>> client = EngineClient(devices=4)                 # doctest: +SKIP
    >>> client.start()                                   # returns at once
    >>> client.submit(DevicesRequest()).result().result.devices   # doctest: +SKIP
    >>> client.restart(devices=8)                        # doctest: +SKIP
    >>> client.stop()                                    # doctest: +SKIP
"""

from __future__ import annotations

import itertools
import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from jaxviz import __version__
from jaxviz.engine import faults, protocol
from jaxviz.engine.pool import EnginePool, shut_down
from jaxviz.engine.process import EngineProcess
from jaxviz.engine.requests import (
    CallbackThread,
    EngineError,
    PendingRequest,
    RequestHandle,
    UndecodedReply,
    decode_reply,
)
from jaxviz.model import SCHEMA_VERSION, ErrorInfo, SchemaMismatch, from_plain, to_plain
from jaxviz.model.engine import EngineEvent, EngineInfo, Reply
from jaxviz.model.limits import DEFAULT_DEVICES, DEFAULT_TIMEOUT

#: How long an engine may take from spawn to its ready message.
STARTUP_TIMEOUT = 180.0
#: How long :meth:`EngineClient.stop` lets an idle engine exit by itself.
STOP_GRACE = 2.0
#: How long a timed-out engine gets to write where it is stuck before it is killed.
STACK_GRACE = 0.5

_log = logging.getLogger("jaxviz.engine")


class EngineClient:
    """Runs request records in an engine process; see the module docs.

    Args:
        devices: the device count the engine starts JAX with.
        timeout: default seconds a request may run (per request: ``submit(timeout=)``).
            Time spent waiting for the engine to start or for earlier requests
            does not count.
        on_event: called with every :class:`EngineEvent`, on the client's
            callback thread.
        python: the interpreter to run the engine with (default: this one).
        standby: keep a second engine started, so that restarts after a
            timeout, crash or cancel (and restarts with the same device
            count) are instant. Costs the memory of a second JAX process.
    """

    def __init__(self, devices: int = DEFAULT_DEVICES, timeout: float = DEFAULT_TIMEOUT,
                 on_event: Callable[[EngineEvent], None] | None = None,
                 python: str | None = None, *, standby: bool = True):
        _check_devices(devices)
        if timeout <= 0:
            raise ValueError(f"the request timeout must be positive, not {timeout}")
        self.devices = devices
        self.timeout = timeout
        self.python = python
        self.standby = standby
        self._on_event = on_event
        self._cond = threading.Condition()
        self._ids = itertools.count(1)
        self._queue: deque[PendingRequest] = deque()
        self._requests: dict[int, PendingRequest] = {}
        self._inflight: PendingRequest | None = None
        self._pool = EnginePool(python, self._on_message, self._on_exit)
        self._failure: ErrorInfo | None = None
        self._running = False
        self._generation = 0
        self._callbacks: CallbackThread | None = None
        self._dispatcher: threading.Thread | None = None

    # ------------------------------------------------------------------ public

    @property
    def info(self) -> EngineInfo | None:
        """The running engine's description; None until it is ready."""
        engine = self._pool.primary
        return engine.info if engine is not None else None

    def start(self, wait: bool = False) -> None:
        """Spawn the engine in the background (no-op if it is up or starting).

        Args:
            wait: block until it is ready (see :meth:`wait_ready` for errors).
        """
        with self._cond:
            self._ensure_running()
            if self._pool.primary is None:
                self._spawn("starting", f"starting the engine with {self.devices} devices")
        if wait:
            self.wait_ready()

    def wait_ready(self, timeout: float | None = None) -> EngineInfo:
        """Wait for the engine (starting it if needed) and return its description.

        Raises:
            EngineError: the engine could not start or was refused (another
                record schema); the message says why.
            TimeoutError: it was not ready within ``timeout`` seconds.
        """
        self.start()
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while True:
                engine = self._pool.primary
                if engine is not None and engine.ready:
                    return engine.info
                if engine is None:
                    info = self._failure or ErrorInfo(kind="engine",
                                                      message="the engine was stopped")
                    raise EngineError(info)
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    raise TimeoutError(f"the engine was not ready after {timeout} s")
                self._cond.wait(remaining)

    def submit(self, record: Any, callback: Callable[[Reply], None] | None = None, *,
               timeout: float | None = None,
               on_progress: Callable[[Any], None] | None = None,
               undecoded: bool = False) -> RequestHandle:
        """Queue a request record (starting the engine if needed).

        Args:
            record: a request record the core's service handles.
            callback: called with the :class:`Reply` on the callback thread.
            timeout: seconds it may run (default: the client's timeout).
            on_progress: called with each partial record the handler streams.
            undecoded: hand the engine's reply to ``callback`` (and the handle) as an
                :class:`~jaxviz.engine.requests.UndecodedReply`, for the caller to decode
                (a window, in steps on its own thread); errors of the client's own
                (a timeout, a crash) still come as a :class:`Reply`.

        Returns:
            A handle with the request's id (ids increase with each submit).

        Raises:
            TypeError: the record cannot be encoded as plain data.
        """
        limit = self.timeout if timeout is None else timeout
        if limit <= 0:
            raise ValueError(f"the request timeout must be positive, not {limit}")
        with self._cond:
            rid = next(self._ids)
            data = protocol.encode({"op": protocol.REQUEST, "id": rid,
                                    "record": to_plain(record)})
            handle = RequestHandle(rid, self.cancel)
            request = PendingRequest(rid, record, data, limit, callback, on_progress, handle,
                                     undecoded=undecoded)
            self._requests[rid] = request
            self._queue.append(request)
            self._ensure_running()
            if self._pool.primary is None:
                self._spawn("starting", f"starting the engine with {self.devices} devices")
            self._cond.notify_all()
        return handle

    def cancel(self, request_id: int) -> None:
        """End a request with ``kind="cancelled"``; no-op if it already ended.

        A queued request is dropped. A running one is stopped by killing the
        engine, which is replaced at once (by the standby engine, if kept).
        """
        with self._cond:
            request = self._requests.get(request_id)
            if request is None:
                return
            if request is self._inflight:
                self._replace_engine(
                    faults.cancelled(request.record, f"cancelled while "
                                     f"{faults.doing(request.record)}; the engine was restarted"),
                    f"restarting the engine: request {request_id} was cancelled")
            else:
                self._queue.remove(request)
                self._finish(request,
                             faults.cancelled(request.record, "cancelled before it started"))

    def restart(self, devices: int | None = None) -> None:
        """Replace the engine (kill + respawn), with ``devices`` devices if given.

        A request in flight ends as cancelled; queued requests run on the new
        engine. Returns at once; :meth:`wait_ready` waits for the new engine.
        """
        with self._cond:
            if devices is not None:
                _check_devices(devices)
                self.devices = devices
            self._ensure_running()
            message = f"restarting the engine with {self.devices} devices"
            error = None
            if self._inflight is not None:
                error = faults.cancelled(self._inflight.record, f"cancelled: {message}")
            self._replace_engine(error, message)

    def stop(self) -> None:
        """End every request (as cancelled), stop the engines and the client's threads."""
        with self._cond:
            if not self._running:
                return
            self._running = False
            self._generation += 1
            idle = self._inflight is None
            for request in self._take_pending():
                self._finish(request, faults.cancelled(request.record, "the engine was stopped"))
            primary, processes = self._pool.detach()
            graceful = idle and primary is not None and primary.ready
            self._cond.notify_all()
        shut_down(primary, processes, graceful, STOP_GRACE)
        self._emit("stopped", "the engine was stopped")
        callbacks = self._callback_thread()
        callbacks.close()
        for thread in (self._dispatcher, callbacks.thread):
            if thread is not None and thread is not threading.current_thread():
                thread.join(STOP_GRACE)

    # ------------------------------------------------------------ the engines

    def _ensure_running(self) -> None:
        if self._running:
            return
        self._running = True
        self._generation += 1
        self._callbacks = CallbackThread()
        self._dispatcher = threading.Thread(target=self._dispatch, args=(self._generation,),
                                            name="jaxviz-engine-dispatch", daemon=True)
        self._dispatcher.start()

    def _spawn(self, kind: str, message: str) -> None:
        """Make a new primary engine: the standby if it fits, else a new process."""
        self._failure = None
        try:
            engine = self._pool.start_primary(self.devices)
        except OSError as exc:
            self._fail_start(ErrorInfo(kind="engine", message=(
                f"cannot start the engine with {self.python or 'this Python'}: {exc}")))
            return
        self._emit(kind, message)
        if engine.ready:
            self._emit("ready", faults.ready_message(engine.info), engine.info)
            self._keep_spare()
        self._cond.notify_all()

    def _keep_spare(self) -> None:
        if self.standby and self._running:
            self._pool.keep_spare(self.devices)

    def _replace_engine(self, error: ErrorInfo | None, message: str) -> None:
        """Kill the engine (ending the request in flight with ``error``) and respawn."""
        request, self._inflight = self._inflight, None
        old = self._pool.primary
        if request is not None and error is not None:
            self._finish(request, error, *(old.output() if old else ("", "")))
        elif request is not None:
            self._queue.appendleft(request)
        self._pool.retire_primary()
        self._spawn("restarting", message)

    def _fail_start(self, error: ErrorInfo) -> None:
        """The engine could not start: end every pending request with ``error``."""
        self._failure = error
        for request in self._take_pending():
            self._finish(request, error)
        self._emit("crashed", error.message)
        self._cond.notify_all()

    # ----------------------------------------------- engine reader callbacks

    def _on_message(self, engine: EngineProcess, message: dict[str, Any]) -> None:
        op = message.get("op")
        if op == protocol.READY:
            self._on_ready(engine, message)
            return
        if op == protocol.FAILED:
            engine.failure = (str(message.get("message")), str(message.get("details", "")))
            return
        with self._cond:
            request = self._inflight
            if request is None or request.engine is not engine or \
                    request.id != message.get("id"):
                return
            if op == protocol.BEGIN:
                request.begun = True
            elif op == protocol.PROGRESS and request.on_progress is not None:
                try:
                    self._callback_thread().put(request.on_progress,
                                                from_plain(message["record"]))
                except SchemaMismatch as exc:
                    _log.warning("engine request %d: unreadable progress record: %s",
                                 request.id, exc)
            elif op == protocol.REPLY:
                reply: Reply | UndecodedReply
                if request.undecoded:
                    reply = UndecodedReply(request.id, message.get("reply"))
                else:
                    reply = decode_reply(request.id, message.get("reply"))
                self._inflight = None
                self._finish(request, reply)
                self._cond.notify_all()

    def _on_ready(self, engine: EngineProcess, message: dict[str, Any]) -> None:
        refusal = faults.refusal(message, SCHEMA_VERSION, __version__, self.python)
        info = None
        if refusal is None:
            try:
                info = from_plain(message["info"])
            except (SchemaMismatch, KeyError, TypeError) as exc:
                refusal = f"refused the engine: its device inventory is unreadable ({exc})"
        with self._cond:
            if refusal is not None or info is None:
                engine.refusal = refusal
                engine.kill()
                return
            info.start_seconds = round(time.perf_counter() - engine.started, 4)
            engine.info = info
            if engine is self._pool.primary:
                log = str(message.get("log") or "").strip()
                text = faults.ready_message(info) + (f"\n{log}" if log else "")
                self._emit("ready", text, info)
                self._keep_spare()
            self._cond.notify_all()

    def _on_exit(self, engine: EngineProcess, returncode: int | None, stdout: str,
                 stderr: str) -> None:
        with self._cond:
            if self._pool.exited(engine) != "primary" or not self._running:
                return  # a standby, or replaced or stopped on purpose: already dealt with
            if not engine.ready:
                self._fail_start(faults.start_failure(engine, returncode, stderr))
                return
            request, self._inflight = self._inflight, None
            record = request.record if request else None
            if engine.forgery is not None:
                error = faults.forged(engine.forgery, record)
            else:
                error = faults.crash(returncode, record, stderr)
            self._emit("crashed", error.message)
            if request is not None:
                if request.begun or request.attempts >= 2 or engine.forgery is not None:
                    self._finish(request, error, stdout, stderr)
                else:  # the engine died before it started on this request: retry once
                    self._queue.appendleft(request)
            self._spawn("restarting", f"restarting the engine with {self.devices} devices")

    # ------------------------------------------------------------- threads

    def _dispatch(self, generation: int) -> None:
        """Send queued requests one at a time; enforce timeouts and start-up limits."""
        while True:
            with self._cond:
                request = self._next_to_send(generation)
                if request is None:
                    return
                engine = request.engine
            if engine is not None:
                engine.send(request.data)  # a dead engine is noticed by its reader

    def _next_to_send(self, generation: int) -> PendingRequest | None:
        """Wait (holding the lock) until a request can be sent; None when stopping."""
        while self._running and self._generation == generation:
            now = time.perf_counter()
            engine, request = self._pool.primary, self._inflight
            deadline = None
            if request is not None:
                assert request.sent_at is not None  # set when it was sent
                deadline = request.sent_at + request.timeout
                if now >= deadline and engine is not None and self._timed_out(request, engine, now):
                    continue
                if request.stack_asked is not None:
                    deadline = now + 0.02  # poll for the stack
            elif engine is not None and not engine.ready:
                deadline = engine.started + STARTUP_TIMEOUT
                if now >= deadline:
                    self._pool.retire_primary()
                    self._fail_start(ErrorInfo(kind="engine", message=(
                        f"the engine did not start within {STARTUP_TIMEOUT:g} s")))
                    continue
            elif engine is not None and self._queue:
                request = self._queue.popleft()
                request.engine, request.sent_at, request.begun = engine, now, False
                request.attempts += 1
                self._inflight = request
                return request
            self._cond.wait(None if deadline is None else deadline - now)
        return None

    # ------------------------------------------------------------- helpers

    def _timed_out(self, request: PendingRequest, engine: EngineProcess, now: float) -> bool:
        """Past its timeout: ask for the stack, then (once written) replace the engine."""
        if request.stack_asked is None:
            request.stack_asked = now
            engine.ask_stack()
            return False
        if not engine.has_stack() and now < request.stack_asked + STACK_GRACE:
            return False
        error = faults.timed_out(request.record, request.timeout, engine.output()[1])
        self._replace_engine(error, f"restarting the engine: request {request.id} timed out")
        return True

    def _finish(self, request: PendingRequest, outcome: Reply | UndecodedReply | ErrorInfo,
                stdout: str = "", stderr: str = "") -> None:
        """End a request (holding the lock): resolve its handle, queue its callback."""
        if isinstance(outcome, ErrorInfo):
            # A dying engine's stack dump is in the error's details, not in what was printed.
            outcome = Reply(id=request.id, ok=False, error=outcome, stdout=stdout,
                            stderr=faults.without_dump(stderr))
        outcome.elapsed_s = (0.0 if request.sent_at is None
                             else time.perf_counter() - request.sent_at)
        self._requests.pop(request.id, None)
        request.handle.finish(outcome)
        self._callback_thread().put(request.callback, outcome)

    def _callback_thread(self) -> CallbackThread:
        """The thread callbacks run on (the client must have been started)."""
        if self._callbacks is None:
            raise RuntimeError("the engine client was not started")
        return self._callbacks

    def _take_pending(self) -> list[PendingRequest]:
        """Remove and return the request in flight and the queued ones, in order."""
        pending = ([self._inflight] if self._inflight else []) + list(self._queue)
        self._inflight = None
        self._queue.clear()
        return pending

    def _emit(self, kind: str, message: str, info: EngineInfo | None = None) -> None:
        self._callback_thread().put(self._on_event, EngineEvent(kind, message, info))


def _check_devices(devices: int) -> None:
    if not isinstance(devices, int) or devices < 1:
        raise ValueError(f"the engine's device count must be a positive integer, not {devices!r}")
