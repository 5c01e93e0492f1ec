"""What does the engine process cost? Start-up, round trips, restarts.

Prints (never asserts; machines are noisy), all measured in the same run:

* engine cold start (spawn to ready message, 8 devices) against a bare
  ``python -c "import jax; jax.devices()"``, both as the whole bare process
  and up to the moment it has its devices (target: engine <= 1.5x bare);
* the round-trip overhead of a trivial request (``DevicesRequest``: the
  handler does nothing but return the cached inventory), median over many
  (target <= 2 ms);
* how long a cancelled request leaves the next one waiting, with and without
  a standby engine.

Run: ``python benchmarks/bench_engine.py [--runs N]``.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

from jaxviz.engine import EngineClient
from jaxviz.model import Target, TraceRequest
from jaxviz.model.engine import DevicesRequest

BARE = "import jax; jax.devices(); print('ready', flush=True)"
LOOP = TraceRequest(target=Target("def f(x):\n    while True:\n        pass\n",
                                  "<bench:loop.py>", "f"), args="f32[3]", want=["jaxpr"])


def bare_start() -> tuple[float, float]:
    """A bare JAX process: (seconds until it has its devices, seconds until it exited)."""
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", BARE], stdout=subprocess.PIPE)
    proc.stdout.readline()
    ready = time.perf_counter() - start
    proc.wait()
    return ready, time.perf_counter() - start


def engine_start(devices: int = 8) -> float:
    """Seconds from creating a client to its engine's ready message."""
    start = time.perf_counter()
    client = EngineClient(devices=devices, standby=False)
    client.start()
    client.wait_ready(120)
    elapsed = time.perf_counter() - start
    client.stop()
    return elapsed


def round_trips(count: int) -> list[float]:
    """Seconds per trivial request, submitted one after another."""
    client = EngineClient(devices=8, standby=False)
    client.start(wait=True)
    for _ in range(20):  # warm up
        client.submit(DevicesRequest()).result(30)
    times = []
    for _ in range(count):
        start = time.perf_counter()
        reply = client.submit(DevicesRequest()).result(30)
        times.append(time.perf_counter() - start)
        assert reply.ok, reply.error
    client.stop()
    return times


def cancel_then_next(standby: bool, runs: int) -> list[float]:
    """Seconds from cancelling a running request to the reply of the next one."""
    client = EngineClient(devices=8, standby=standby)
    client.start(wait=True)
    times = []
    for _ in range(runs):
        if standby:  # let the standby finish starting, as it would between clicks
            while client._pool.spare is None or not client._pool.spare.ready:
                time.sleep(0.05)
        running = client.submit(LOOP)
        time.sleep(0.3)
        start = time.perf_counter()
        running.cancel()
        client.submit(DevicesRequest()).result(120)
        times.append(time.perf_counter() - start)
    client.stop()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7, help="cold starts of each kind")
    parser.add_argument("--requests", type=int, default=1000, help="round trips to time")
    ns = parser.parse_args()

    bare_ready, bare_exit, engine = [], [], []
    for _ in range(ns.runs):  # alternate, so load changes hit both alike
        ready, done = bare_start()
        bare_ready.append(ready)
        bare_exit.append(done)
        engine.append(engine_start())
    mr, me, mg = (statistics.median(x) for x in (bare_ready, bare_exit, engine))
    print(f"bare `python -c \"import jax; jax.devices()\"`  to devices {mr * 1000:6.0f} ms, "
          f"whole process {me * 1000:6.0f} ms  (median of {ns.runs})")
    print(f"engine cold start to ready (8 devices)       {mg * 1000:6.0f} ms")
    print(f"ratio engine / bare process {mg / me:.2f}, engine / bare to devices {mg / mr:.2f}"
          f"  (target <= 1.5)")

    rt = sorted(round_trips(ns.requests))
    print(f"trivial request round trip: median {statistics.median(rt) * 1000:.3f} ms, "
          f"p90 {rt[int(len(rt) * 0.9)] * 1000:.3f} ms over {len(rt)}  (target <= 2 ms median)")

    for standby in (True, False):
        times = cancel_then_next(standby, max(3, ns.runs // 2))
        print(f"cancel a running request -> next reply, standby={standby!s:<5}: "
              f"median {statistics.median(times) * 1000:6.0f} ms")


if __name__ == "__main__":
    main()
