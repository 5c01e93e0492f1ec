"""Measure in a fresh child process started with another CPU async-dispatch setting.

JAX reads ``jax_cpu_enable_async_dispatch`` once, when the CPU backend starts,
so a process that already runs JAX cannot switch it. :func:`run_in_child`
starts ``python -m jaxviz.worker.timing_child`` and speaks the engine's
protocol (:mod:`jaxviz.engine.protocol`) with it: one ``request`` message
(the request, and the device count and clock origin of the parent), then the
child streams a ``progress`` message per record and ends with a ``reply``
holding a :class:`~jaxviz.model.engine.Reply` whose result is the run. The
child configures the device count and the flag before JAX starts, keeps the
protocol on private descriptors (:class:`~jaxviz.engine.child.Channel`: what
user code prints goes to stderr), and exits when its parent (the engine) is
gone (:func:`~jaxviz.engine.child.watch_parent`).

Both processes read the same system-wide monotonic clock, so the child's
records are placed on the parent's timeline.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from collections.abc import Callable
from typing import Any

from jaxviz.engine import protocol
from jaxviz.engine.process import exit_reason
from jaxviz.model import ErrorInfo, from_plain, to_plain
from jaxviz.model.engine import Reply
from jaxviz.model.timing import TimingRequest, TimingRun


def run_in_child(req: TimingRequest, progress: Callable[[Any], None],
                 origin_ns: int | None = None) -> TimingRun:
    """Measure ``req`` in a child process; relays each record to ``progress``.

    Runs in the engine process (it asks the running JAX for the device count).
    A child that ends without a result gives a run whose ``error`` says how it
    ended (signal or exit code) and the end of what it wrote to stderr.
    """
    from jaxviz.core import devices

    request = {"op": protocol.REQUEST, "id": 0, "record": to_plain(req),
               "devices": len(devices.active_devices()), "origin_ns": origin_ns}
    reply: Reply | None = None
    forged: str | None = None
    token = protocol.new_token()
    with tempfile.TemporaryFile() as errors:
        proc = subprocess.Popen([sys.executable, "-m", "jaxviz.worker.timing_child"],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errors)
        assert proc.stdin is not None and proc.stdout is not None
        try:
            proc.stdin.write(protocol.hello(token))
            protocol.send(proc.stdin, request)
            proc.stdin.close()
            while (message := protocol.receive_signed(proc.stdout, token)) is not None:
                if message["op"] == protocol.PROGRESS:
                    progress(from_plain(message["record"]))
                elif message["op"] == protocol.REPLY:
                    reply = from_plain(message["reply"])
        except protocol.ForgedMessage as exc:
            forged = str(exc)
            proc.kill()
        except (OSError, ValueError):  # a broken pipe, or a record of another schema
            proc.kill()
        finally:
            code = proc.wait()
        errors.seek(0)
        tail = errors.read()[-2000:].decode("utf-8", "replace")
    if reply is not None and reply.ok and isinstance(reply.result, TimingRun):
        return reply.result
    run = TimingRun(request=req)
    if forged is not None:
        run.error = ErrorInfo(kind="forgery", message=forged)
        return run
    if reply is not None and reply.error is not None:
        run.error = reply.error
        return run
    last = tail.strip().splitlines()[-1] if tail.strip() else ""
    run.error = ErrorInfo(
        kind="crash", details=tail,
        message=f"the process measuring with async dispatch "
                f"{'on' if req.async_dispatch else 'off'} ended ({exit_reason(code)}) without "
                f"a result" + (f": {last}" if last else ""))
    return run


def main() -> int:
    """The child: read the request, configure JAX, measure, stream records, reply."""
    from jaxviz.engine.child import Channel, watch_parent, yield_to_the_window

    yield_to_the_window()  # (the engine's already, from the thread that started it)
    watch_parent()
    channel = Channel(stdout_to_stderr=True)  # anything printed goes to stderr
    message = channel.receive()
    if message is None or message.get("op") != protocol.REQUEST:
        return 2
    rid = int(message["id"])
    req = from_plain(message["record"])

    def send_progress(record: Any) -> None:
        channel.send({"op": protocol.PROGRESS, "id": rid, "record": to_plain(record)})

    from jaxviz.core import devices

    devices.configure(int(message["devices"]))
    import jax

    jax.config.update("jax_cpu_enable_async_dispatch", bool(req.async_dispatch))
    from jaxviz.core.timing import measure_timings

    run = measure_timings(req, send_progress, message.get("origin_ns"))
    channel.send({"op": protocol.REPLY, "id": rid,
                  "reply": to_plain(Reply(id=rid, ok=True, result=run))})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
