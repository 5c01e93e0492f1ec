"""How promptly does the engine keep its limits? Timeouts and cancel, in seconds.

Moved out of the tests (timed assertions fail on a busy machine and prove little on a quiet
one); the tests keep what these requests must answer. Prints (never asserts), each over
``--runs`` runs:

* a request that loops forever, sent with ``timeout=2``: seconds from submit to its
  ``timeout`` reply (target <= 2 + 5 s: the timeout, the stack sample, the kill);
* cancelling a request that loops forever: seconds from ``cancel()`` to its ``cancelled``
  reply (target < 1 s);
* ``jaxviz jaxpr FILE:f --timeout 2`` on a looping function, as a user runs it: seconds
  for the whole command, engine start-up included (target < 2 + 60 s on a busy 2-core
  machine), against ``jaxviz devices`` (the start-up alone).

Run: ``python benchmarks/bench_engine_limits.py [--runs N]``.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from jaxviz.engine import EngineClient
from jaxviz.model import Target, TraceRequest

LOOP_SOURCE = "def f(x):\n    while True:\n        pass\n"


def loop_request(marker: Path | None = None) -> TraceRequest:
    """``def f(x)`` that loops forever (after touching ``marker``, when given)."""
    body = f"    open({str(marker)!r}, 'w').close()\n" if marker else ""
    source = f"def f(x):\n{body}    while True:\n        pass\n"
    return TraceRequest(target=Target(source, "<bench:loop.py>", "f"), args="f32[3]",
                        want=["jaxpr"])


def timeout_reply(client: EngineClient) -> float:
    start = time.perf_counter()
    reply = client.submit(loop_request(), timeout=2).result(120)
    elapsed = time.perf_counter() - start
    assert not reply.ok and reply.error.kind == "timeout", reply
    return elapsed


def cancel_reply(client: EngineClient, folder: Path, n: int) -> float:
    marker = folder / f"running-{n}"
    running = client.submit(loop_request(marker))
    deadline = time.monotonic() + 120
    while not marker.exists():
        assert time.monotonic() < deadline, "the looping request never started"
        time.sleep(0.01)
    start = time.perf_counter()
    running.cancel()
    reply = running.result(120)
    elapsed = time.perf_counter() - start
    assert reply.error.kind == "cancelled", reply
    return elapsed


def command(*args: str) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "jaxviz", *args], capture_output=True, timeout=600)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="runs of each measurement")
    ns = parser.parse_args()

    client = EngineClient(devices=8)
    client.start(wait=True)
    timeouts = [timeout_reply(client) for _ in range(ns.runs)]
    with tempfile.TemporaryDirectory() as folder:
        cancels = [cancel_reply(client, Path(folder), n) for n in range(ns.runs)]
    client.stop()
    print(f"timeout=2 s request -> its timeout reply: median {statistics.median(timeouts):.2f} s,"
          f" max {max(timeouts):.2f} s  (target <= 7 s)")
    print(f"cancel() of a running request -> its reply: median "
          f"{statistics.median(cancels) * 1000:.0f} ms, max {max(cancels) * 1000:.0f} ms"
          f"  (target < 1000 ms)")

    with tempfile.TemporaryDirectory() as folder:
        loop = Path(folder) / "loop.py"
        loop.write_text(LOOP_SOURCE)
        cli, start_up = [], []
        for _ in range(ns.runs):  # alternate, so load changes hit both alike
            cli.append(command("jaxpr", f"{loop}:f", "--args", "f32[3]", "--timeout", "2"))
            start_up.append(command("devices"))
    print(f"`jaxviz jaxpr loop.py:f --timeout 2`: median {statistics.median(cli):.1f} s, "
          f"max {max(cli):.1f} s  (target < 62 s); `jaxviz devices` (start-up alone): "
          f"median {statistics.median(start_up):.1f} s")


if __name__ == "__main__":
    main()
