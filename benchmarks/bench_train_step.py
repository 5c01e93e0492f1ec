"""Tracing plus storyboard of a 12-layer train step vs a plain compile (target <= 2x).

The program is the GPT-style train step of ``tests/programs/gpt_train.py``
(12 transformer blocks, value_and_grad, SGD; FSDP x tensor parallel on a 4x2
mesh), unrolled and scanned. Measured side by side in one process, each run
on a freshly executed copy of the source (new function objects: no jit cache
is shared between runs):

* ``plain``: ``jax.jit(train_step, in_shardings=...).lower(...).compile()``;
* ``jaxviz``: :func:`jaxviz.core.trace_request` of the ``sharded`` variant
  with its jaxpr and storyboard (what ``jaxviz animate`` and the device view
  need), which traces, lowers, compiles, reads the compiled HLO and groups
  the steps; its ``story`` figure is the time spent reading the HLO, matching
  the jaxpr and grouping (the part that is jaxviz's own).

Prints the median of ``--runs`` runs (default 1: a 12-layer compile takes
minutes on two cores) and the ratio. Never asserts.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/bench_train_step.py [--layers 12] [--runs 1]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("JAX_NUM_CPU_DEVICES", "8")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
FILE = "<editor:gpt_train.py>"


def plain(source: str) -> float:
    import jax

    ns: dict = {}
    exec(compile(source, FILE, "exec"), ns)
    start = time.perf_counter()
    jax.jit(ns["train_step"], in_shardings=ns["SHARDINGS"]).lower(
        ns["params"], ns["tokens"], ns["targets"]).compile()
    return time.perf_counter() - start


def with_jaxviz(source: str, layers: int, scanned: bool) -> tuple[float, float, int]:
    from jaxviz import core
    from jaxviz.core import storyboard
    from jaxviz.model import Target, TraceRequest
    from tests.programs import gpt_mesh, gpt_specs

    spent = [0.0]
    build = storyboard.build

    def timed_build(*args, **kwargs):
        t = time.perf_counter()
        try:
            return build(*args, **kwargs)
        finally:
            spent[0] += time.perf_counter() - t

    req = TraceRequest(target=Target(source, FILE, "train_step"), variants=["sharded"],
                       want=["jaxpr", "story"], args="params, tokens, targets",
                       in_axes="None, None, None", mesh=gpt_mesh(),
                       specs=gpt_specs(layers, scanned))
    storyboard.build = timed_build
    try:
        start = time.perf_counter()
        result = core.trace_request(req)
        total = time.perf_counter() - start
    finally:
        storyboard.build = build
    sb = result.variants[0].storyboard
    assert sb is not None, result.variants[0].error
    return total, spent[0], len(sb.steps)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--layers", type=int, default=12)
    parser.add_argument("--runs", type=int, default=1)
    ns = parser.parse_args()
    from jaxviz import core
    from tests.programs import gpt_source

    core.configure_devices(8)
    print(f"{ns.layers}-layer GPT train step, sharded on 4x2, median of {ns.runs} run(s), "
          f"seconds")
    print(f"{'program':>10} {'plain':>8} {'jaxviz':>8} {'story':>7} {'ratio':>6} {'steps':>6}")
    for scanned in (False, True):
        source = gpt_source(ns.layers, scanned)
        plain_t, ours, story, steps = [], [], [], 0
        for _ in range(ns.runs):
            plain_t.append(plain(source))
            total, built, steps = with_jaxviz(source, ns.layers, scanned)
            ours.append(total)
            story.append(built)
        p, o = statistics.median(plain_t), statistics.median(ours)
        print(f"{'scanned' if scanned else 'unrolled':>10} {p:8.1f} {o:8.1f} "
              f"{statistics.median(story):7.2f} {o / p:6.2f} {steps:6d}   "
              f"target ratio <= 2: {'met' if o / p <= 2 else 'MISSED'} "
              f"(load average {os.getloadavg()[0]:.2f})", flush=True)
    print("target: ratio <= 2 (both timed side by side in this run, so the load weighs on "
          "both)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
