"""The engine process: JAX with a fixed device count, serving request records.

Run as ``python -m jaxviz.worker.server --devices N`` with the protocol of
:mod:`jaxviz.engine.protocol` on its stdin and stdout (the client,
:class:`jaxviz.engine.EngineClient`, does this). Start-up, in order:

1. move the protocol to private file descriptors, point fd 0 at
   ``/dev/null`` and fds 1 and 2 at capture files, so user code printing
   (or reading) can never corrupt the channel;
2. set the device count and platform, then import JAX and start its backend
   (:func:`jaxviz.core.devices.configure`);
3. send the ready message: record schema, jaxviz version, device inventory,
   whether the devices are simulated, JAX and jaxlib versions.

Then it answers requests one at a time with
:func:`jaxviz.core.service.handle`. It listens on no socket, and exits at the
end of its input or when its parent process disappears
(:func:`jaxviz.engine.child.watch_parent`).
"""

from __future__ import annotations

import argparse
import contextlib
import faulthandler
import os
import signal
import sys
import tempfile
import time
import traceback
from typing import Any

from jaxviz.engine import protocol
from jaxviz.engine.capture import Capture
from jaxviz.engine.child import Channel, watch_parent, yield_to_the_window
from jaxviz.engine.reaper import MARK, become_subreaper, sweep_descendants

#: The signal that makes the engine write the current Python stack to fd 2.
STACK_SIGNAL = signal.SIGUSR2

_STARTED = time.time()


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m jaxviz.worker.server",
        description="The jaxviz engine: serves requests over its stdin/stdout. "
                    "Started by jaxviz.engine.EngineClient.")
    parser.add_argument("--devices", type=int, default=8, metavar="N",
                        help="simulated CPU devices (on accelerators: use the first N)")
    parser.add_argument("--platform", default=None,
                        help="JAX platform to use (sets JAX_PLATFORMS), e.g. cpu")
    parser.add_argument("--capture", default=None, metavar="DIR",
                        help="directory for the files capturing fds 1 and 2 "
                             "(default: a new temporary directory)")
    parser.add_argument("--spawned-at", type=float, default=None, metavar="EPOCH",
                        help="time.time() when the client spawned this process")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Start the engine and serve requests until the input ends.

    Returns:
        The process exit status (1 when the devices could not be started).
    """
    yield_to_the_window()
    faulthandler.enable(all_threads=False)  # a crash leaves a Python traceback on fd 2
    # On a timeout the client asks where the code is stuck before it kills the engine.
    # All threads: a signal may land on any thread, the user's code runs on the main one.
    faulthandler.register(STACK_SIGNAL, all_threads=True)
    args = parse_args(argv)
    channel = Channel()
    capture = Capture(args.capture or tempfile.mkdtemp(prefix="jaxviz-engine-"))
    # Whatever the user's code starts (setsid, double forks) stays our descendant, and
    # ends with us; the mark lets the client find them if we crash (engine.reaper).
    become_subreaper()
    os.environ[MARK] = str(os.getpid())

    def gone() -> None:
        capture.remove()
        sweep_descendants()

    watch_parent(gone)  # no orphaned engines: the client died, so do we
    try:
        info = start_devices(args)
    except BaseException as exc:  # noqa: BLE001 - report any start-up failure, then exit
        _, log = capture.end()
        channel.send({"op": protocol.FAILED,
                      "message": f"{type(exc).__name__}: {exc}",
                      "details": log + "".join(traceback.format_exception(exc))})
        return 1
    _, log = capture.end()
    from jaxviz import __version__
    from jaxviz.model import SCHEMA_VERSION, to_plain

    channel.send({"op": protocol.READY, "schema": SCHEMA_VERSION, "jaxviz": __version__,
                  "info": to_plain(info), "log": log})
    _warm_up()
    serve(channel, capture, info)
    return 0


def start_devices(args: argparse.Namespace) -> Any:
    """Configure the devices, start JAX, and describe the result as an ``EngineInfo``."""
    from jaxviz.core import devices
    from jaxviz.model.engine import EngineInfo

    devices.configure(args.devices, args.platform)
    inventory = devices.inventory()
    versions = devices.versions()
    started = time.time() - (args.spawned_at or _STARTED)
    info = EngineInfo(devices=inventory, simulated=devices.simulated(),
                      jax_version=versions["jax"], jaxlib_version=versions["jaxlib"],
                      platform=inventory[0].platform if inventory else "",
                      pid=os.getpid(), start_seconds=round(started, 4))
    _register_handlers(info)
    return info


def serve(channel: Channel, capture: Capture, info: Any) -> None:
    """Answer requests one at a time until the input ends or the client goes away."""
    try:
        while (message := channel.receive()) is not None:
            if message.get("op") != protocol.REQUEST:
                continue
            rid = int(message["id"])
            channel.send({"op": protocol.BEGIN, "id": rid})
            reply = answer(rid, message, channel, capture)
            channel.send({"op": protocol.REPLY, "id": rid, "reply": reply})
    except (BrokenPipeError, protocol.ProtocolError):
        pass
    except (OSError, ValueError) as exc:  # the channel's descriptors, closed by user code
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        with contextlib.suppress(OSError):
            os.write(2, (f"the engine lost its channel to jaxviz ({reason}): the code closed "
                         f"file descriptors it did not open\n").encode())
        sweep_descendants()
        os._exit(1)  # the capture files stay: the client shows that line, then removes them
    # Skip interpreter and JAX teardown: nothing here needs saving, and the
    # client is waiting for this process to end. What the code started ends too.
    sweep_descendants()
    capture.remove()
    os._exit(0)


def answer(rid: int, message: dict[str, Any], channel: Channel, capture: Capture) -> dict:
    """Run one request and return its reply, encoded."""
    from jaxviz.core import service
    from jaxviz.model import ErrorInfo, SchemaMismatch, from_plain, to_plain
    from jaxviz.model.engine import Reply

    def progress(record: Any) -> None:
        channel.send({"op": protocol.PROGRESS, "id": rid, "record": to_plain(record)})

    capture.begin()
    start = time.perf_counter()
    record = None
    try:
        record = from_plain(message["record"])
        reply = Reply(id=rid, ok=True, result=service.handle(record, progress))
    except SchemaMismatch as exc:
        reply = Reply(id=rid, ok=False, error=ErrorInfo(
            kind="engine", message=f"the engine refused the request: {exc}"))
    except BaseException as exc:  # noqa: BLE001 - user code may raise anything, even SystemExit
        reply = Reply(id=rid, ok=False, error=_error_of(exc, record))
    reply.stdout, reply.stderr = capture.end()
    _forget_request()
    reply.elapsed_s = time.perf_counter() - start
    try:
        return to_plain(reply)
    except TypeError as exc:
        return to_plain(Reply(
            id=rid, ok=False, stdout=reply.stdout, stderr=reply.stderr,
            elapsed_s=reply.elapsed_s, error=ErrorInfo(
                kind="engine", message=f"the engine cannot send the result of a "
                                       f"{type(record).__name__}: {exc}")))


def _forget_request() -> None:
    """Bounded memory over a long session: drop the request's module and caches."""
    with contextlib.suppress(Exception):  # never fail a reply over housekeeping
        from jaxviz.core.loader import forget_request

        forget_request()


def _error_of(exc: BaseException, record: Any) -> Any:
    from jaxviz.model.errors import from_exception

    target = getattr(record, "target", None)
    filename = getattr(target, "filename", "") or ""
    info = from_exception(exc, filename, kind="trace")
    if not filename:
        info.file = None
    return info


def _register_handlers(info: Any) -> None:
    """The requests only an engine can answer: its devices, and timings (which may need
    a child process started with another async-dispatch setting)."""
    from jaxviz.core import service

    @service.handler("DevicesRequest")
    def _devices(_record: Any, _progress: Any) -> Any:
        return info

    @service.handler("TimingRequest")
    def _timing(record: Any, progress: Any) -> Any:
        from jaxviz.core.timing import measure_timings
        from jaxviz.worker.timing_child import run_in_child

        return measure_timings(record, progress, in_child=run_in_child)


def _warm_up() -> None:
    """Import the tracing code while the client is still preparing its first request."""
    with contextlib.suppress(Exception):  # the first request will report it properly
        import jaxviz.core.trace  # noqa: F401


if __name__ == "__main__":
    sys.exit(main())
