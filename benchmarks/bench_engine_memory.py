"""Does the engine stay small over a long session? RSS over many identical requests.

A lecturer's window runs for hours, and every edit is a request: an engine that
kept something per request (the module it ran, a cache entry keyed by the
request's function) would grow without end. This sends the same trace request
(plain and vmap jaxprs of a small function, as the window asks while one
edits) ``--requests`` times (default 10,000) to one engine, reads the engine
process's resident set size (``VmRSS`` in ``/proc/PID/status``) after the
warm-up and then every ``--every`` requests, and prints the growth after the
warm-up: in total and per request, and over the last half of the run (flat
means it plateaued).

Prints (never asserts; machines are noisy). Linux only (``/proc``).

Run: ``python benchmarks/bench_engine_memory.py [--requests N] [--warmup N]``.
"""

from __future__ import annotations

import argparse
import time

from jaxviz.engine import EngineClient
from jaxviz.model import Target, TraceRequest

SOURCE = "import jax.numpy as jnp\n\n\ndef f(x):\n    return jnp.sin(x) * 2 + x.sum()\n"
REQUEST = TraceRequest(target=Target(SOURCE, "/tmp/jaxviz_bench_memory.py", "f"),
                       args="f32[8]", variants=["plain", "vmap"], want=["jaxpr"])


def rss_kb(pid: int) -> int:
    """The resident set size of ``pid`` in KB."""
    with open(f"/proc/{pid}/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for process {pid}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=10_000,
                        help="identical requests to send (default 10,000)")
    parser.add_argument("--warmup", type=int, default=None,
                        help="requests before the first measurement (default: a tenth, "
                             "at least 50)")
    parser.add_argument("--every", type=int, default=None,
                        help="measure every N requests (default: a tenth of the rest)")
    ns = parser.parse_args()
    warmup = ns.warmup if ns.warmup is not None else max(50, ns.requests // 10)
    every = ns.every or max(1, (ns.requests - warmup) // 10)
    client = EngineClient(devices=8, standby=False, timeout=120)
    client.start(wait=True)
    pid = client.info.pid
    start = time.perf_counter()
    samples: list[tuple[int, int]] = []
    try:
        for n in range(1, ns.requests + 1):
            reply = client.submit(REQUEST).result(120)
            if not reply.ok or reply.result.variants[0].error is not None:
                raise SystemExit(f"request {n} failed: {reply.error or reply.result}")
            if n == warmup or (n > warmup and (n - warmup) % every == 0) or n == ns.requests:
                samples.append((n, rss_kb(pid)))
                print(f"  after {n:6d} requests: RSS {samples[-1][1] / 1024:8.1f} MB "
                      f"({time.perf_counter() - start:6.1f} s)", flush=True)
    finally:
        client.stop()
    (n0, r0), (n1, r1) = samples[0], samples[-1]
    half = next((s for s in samples if s[0] >= (n0 + n1) / 2), samples[-1])
    per = (r1 - r0) / max(n1 - n0, 1)
    late = (r1 - half[1]) / max(n1 - half[0], 1)
    print(f"engine RSS after warm-up ({n0} requests): {r0 / 1024:.1f} MB; after {n1}: "
          f"{r1 / 1024:.1f} MB")
    print(f"growth after warm-up: {(r1 - r0) / 1024:+.1f} MB over {n1 - n0} requests = "
          f"{per * 1024:+.0f} bytes per request; over the last half ({half[0]}..{n1}): "
          f"{late * 1024:+.0f} bytes per request")


if __name__ == "__main__":
    main()
