"""Measure in a fresh child process started with another CPU async-dispatch setting.

JAX reads ``jax_cpu_enable_async_dispatch`` once, when the CPU backend starts,
so a process that already runs JAX cannot switch it. :func:`run_in_child`
starts ``python -m jaxviz.engine.timing_child``, sends it the request (and the
device count and clock origin of the parent) as one JSON line on stdin, and
relays the records the child streams back, one JSON line each, on a private
copy of its stdout (the child's own stdout, where user code may print, goes to
stderr). The child configures the device count and the flag before JAX starts.

Both processes read the same system-wide monotonic clock, so the child's
records are placed on the parent's timeline.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from typing import Any

from jaxviz.model import ErrorInfo, from_plain, to_plain
from jaxviz.model.timing import TimingRequest, TimingRun


def run_in_child(req: TimingRequest, progress, origin_ns: int | None = None) -> TimingRun:
    """Measure ``req`` in a child process; relays each record to ``progress``."""
    from jaxviz.core import devices

    n = len(devices.active_devices())
    message = json.dumps({"devices": n, "origin_ns": origin_ns, "request": to_plain(req)})
    env = dict(os.environ)
    with tempfile.TemporaryFile(mode="w+", encoding="utf-8") as errors:
        proc = subprocess.Popen([sys.executable, "-m", "jaxviz.engine.timing_child"],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errors,
                                text=True, env=env)
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(message + "\n")
        proc.stdin.close()
        result = None
        try:
            for line in proc.stdout:
                data = json.loads(line)
                if "progress" in data:
                    progress(from_plain(data["progress"]))
                elif "result" in data:
                    result = from_plain(data["result"])
        finally:
            code = proc.wait()
        errors.seek(0)
        tail = errors.read()[-2000:]
    if isinstance(result, TimingRun):
        return result
    run = TimingRun(request=req)
    run.error = ErrorInfo(
        kind="crash", details=tail,
        message=f"the process measuring with async dispatch "
                f"{'on' if req.async_dispatch else 'off'} ended (exit code {code}) without "
                f"a result" + (f": {tail.strip().splitlines()[-1]}" if tail.strip() else ""))
    return run


def _exit_with_parent(poll_s: float = 1.0) -> None:
    """End this process when its parent (the engine) is gone, e.g. killed on a timeout."""
    parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(poll_s)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="jaxviz-timing-parent-watch", daemon=True).start()


def main() -> int:
    """The child: read the request, configure JAX, measure, stream records."""
    _exit_with_parent()
    channel = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # anything printed (user code, C libraries) goes to stderr
    sys.stdout = sys.stderr
    data = json.loads(sys.stdin.readline())
    req = from_plain(data["request"])

    def send(kind: str, record: Any) -> None:
        channel.write(json.dumps({kind: to_plain(record)}) + "\n")
        channel.flush()

    from jaxviz.core import devices

    devices.configure(int(data["devices"]))
    import jax

    jax.config.update("jax_cpu_enable_async_dispatch", bool(req.async_dispatch))
    from jaxviz.core.timing import measure_timings

    run = measure_timings(req, lambda record: send("progress", record), data.get("origin_ns"))
    send("result", run)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
