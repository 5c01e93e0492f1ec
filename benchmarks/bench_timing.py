"""How faithful is jaxviz's timing harness? Side by side with a plain script, in one run.

The plain script is what the teaching material recommends: time
``f(x, y).block_until_ready()`` with ``time.perf_counter`` after a warm-up.
The harness is ``jaxviz time``'s measurement (a ``TimingRequest`` run in the
JAX engine process, as the command line and the GUI run it). Both use one
CPU device and the same jitted 1000x1000 float32 matmul, and time the
dispatch of a trivial jitted function (``x + 1`` on 4 floats). Rounds of the
two alternate, so slow drifts of a shared machine hit both alike.

Targets: completion medians within ±10% of each other; the harness's
dispatch median of the trivial function within 1.2x of the plain script's.

Usage::

    python benchmarks/bench_timing.py [--rounds 6] [--runs 30]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

TARGET = textwrap.dedent('''
    import jax.numpy as jnp


    def matmul(x, y):
        return jnp.dot(x, y)


    def trivial(x):
        return x + 1
''')

PLAIN = textwrap.dedent('''
    import json, statistics, sys, time
    import jax
    import jax.numpy as jnp

    runs, warmup = int(sys.argv[1]), int(sys.argv[2])
    f = jax.jit(lambda x, y: jnp.dot(x, y))
    g = jax.jit(lambda x: x + 1)
    x = jnp.ones((1000, 1000), jnp.float32)
    y = jnp.ones((1000, 1000), jnp.float32)
    s = jnp.ones((4,), jnp.float32)
    for _ in range(warmup):
        f(x, y).block_until_ready()
        g(s).block_until_ready()
    complete = []
    for _ in range(runs):
        t0 = time.perf_counter()
        f(x, y).block_until_ready()
        complete.append(time.perf_counter() - t0)
    dispatch = []
    for _ in range(runs):
        t0 = time.perf_counter()
        out = g(s)
        dispatch.append(time.perf_counter() - t0)
        out.block_until_ready()
    print(json.dumps({"complete_ms": [c * 1e3 for c in complete],
                      "dispatch_ms": [d * 1e3 for d in dispatch]}))
''')


def plain_round(runs: int, warmup: int) -> dict[str, list[float]]:
    """One run of the plain script in its own process (one CPU device)."""
    env = {"JAX_NUM_CPU_DEVICES": "1", "JAX_PLATFORMS": "cpu", "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-c", PLAIN, str(runs), str(warmup)],
                         capture_output=True, text=True, timeout=600, env=env, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def harness_round(path: Path, runs: int, warmup: int) -> dict[str, list[float]]:
    """One jaxviz timing run of each function, through the engine (one device)."""
    from jaxviz.cli.runner import run_request
    from jaxviz.model import Target, TraceRequest
    from jaxviz.model.timing import TimingRequest

    source = path.read_text()
    result = {}
    for function, args, key in (("matmul", "f32[1000,1000], f32[1000,1000]", "complete_ms"),
                                ("trivial", "f32[4]", "dispatch_ms")):
        trace = TraceRequest(target=Target(source, str(path), function), args=args)
        req = TimingRequest(trace=trace, variants=["jit"], runs=runs, warmup=warmup,
                            pipeline=0)
        run = run_request(req, 1, 600.0)
        if run.error is not None or run.errors:
            raise SystemExit(f"harness failed: {run.error or run.errors}")
        calls = run.calls_of("jit", "steady")
        attr = "complete_ns" if key == "complete_ms" else "dispatch_ns"
        result[key] = [getattr(c, attr) / 1e6 for c in calls]
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=5)
    ns = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench_target.py"
        path.write_text(TARGET)
        plain: dict[str, list[float]] = {"complete_ms": [], "dispatch_ms": []}
        harness: dict[str, list[float]] = {"complete_ms": [], "dispatch_ms": []}
        rounds = {k: {"complete": [], "dispatch": []} for k in ("plain", "harness")}
        for i in range(ns.rounds):
            for name, sink, measure in (
                    ("plain", plain, lambda: plain_round(ns.runs, ns.warmup)),
                    ("harness", harness, lambda: harness_round(path, ns.runs, ns.warmup))):
                got = measure()
                for key in sink:
                    sink[key] += got[key]
                rounds[name]["complete"].append(statistics.median(got["complete_ms"]))
                rounds[name]["dispatch"].append(statistics.median(got["dispatch_ms"]))
                print(f"round {i + 1}/{ns.rounds} {name:<8} complete median "
                      f"{statistics.median(got['complete_ms']):8.3f} ms   dispatch median "
                      f"{statistics.median(got['dispatch_ms']):7.4f} ms", file=sys.stderr)
    pc, hc = statistics.median(plain["complete_ms"]), statistics.median(harness["complete_ms"])
    pd, hd = statistics.median(plain["dispatch_ms"]), statistics.median(harness["dispatch_ms"])
    complete_ok = abs(hc / pc - 1) <= 0.10
    dispatch_ok = hd / pd <= 1.2
    paired_c = statistics.median(h / p for p, h in zip(rounds["plain"]["complete"],
                                                       rounds["harness"]["complete"]))
    paired_d = statistics.median(h / p for p, h in zip(rounds["plain"]["dispatch"],
                                                       rounds["harness"]["dispatch"]))
    n = ns.rounds * ns.runs
    print(f"jaxviz timing harness vs a plain perf_counter script "
          f"({ns.rounds} alternating rounds x {ns.runs} calls, 1 CPU device)\n")
    print(f"{'':44} {'plain':>10} {'jaxviz':>10} {'ratio':>7}  target")
    print(f"{'jit 1000x1000 matmul, completion median':44} {pc:8.3f}ms {hc:8.3f}ms "
          f"{hc / pc:7.3f}  within ±10%  {'OK' if complete_ok else 'MISSED'}")
    print(f"{'jit x + 1 (f32[4]), dispatch median':44} {pd:8.4f}ms {hd:8.4f}ms "
          f"{hd / pd:7.3f}  <= 1.2x      {'OK' if dispatch_ok else 'MISSED'}")
    print(f"\n(medians of {n} calls each; spread of completion p10-p90: plain "
          f"{_spread(plain['complete_ms'])}, jaxviz {_spread(harness['complete_ms'])}; "
          f"median of the per-round ratios, robust to the machine's drift: completion "
          f"{paired_c:.3f}, dispatch {paired_d:.3f})")
    return 0 if complete_ok and dispatch_ok else 1


def _spread(values: list[float]) -> str:
    data = sorted(values)
    lo, hi = data[len(data) // 10], data[(9 * len(data)) // 10]
    return f"{lo:.2f}-{hi:.2f} ms"


if __name__ == "__main__":
    raise SystemExit(main())
