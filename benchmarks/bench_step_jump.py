"""Step mode's jump into a big program: one run and a window of values, not every value.

Steps the GPT-style train step of ``tests/programs`` (``--layers``, default 12; the
``plain`` variant, as step mode does) twice in this process, with the engine's own
function (:func:`jaxviz.core.stepper.step`):

* ``everything``: every step's values recorded (what stepping did before windows; the
  record limit raised so that it finishes);
* ``jump``: a jump to step ``--at`` (default: 90% of the way) as step mode asks for it
  -- the 400 steps around it (:func:`jaxviz.views.stepper.record_window.window_for`).

After a warm-up run (JAX caches each eager primitive's compiled form on first use;
both runs below find it warm), prints, for each, the wall time, the steps that carry
values, the values recorded (one per input or output per device) and the size of the
result as the engine sends it (JSON), with the load average. The value counts and
sizes do not depend on the load; the target is a jump costing about one run (the
``jump`` time close to ``everything``'s or below) with a bounded number of values (the
window's, whatever the jump's distance).

    PYTHONPATH=$PWD .venv/bin/python benchmarks/bench_step_jump.py [--layers 12] [--at N]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("JAX_NUM_CPU_DEVICES", "8")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--layers", type=int, default=12)
    parser.add_argument("--at", type=int, help="the step jumped to (default: 90%% of them)")
    ns = parser.parse_args()
    from jaxviz import core
    from jaxviz.core.stepper import step
    from jaxviz.model import Target, TraceRequest, to_plain
    from jaxviz.model.stepping import StepRequest
    from jaxviz.views.stepper.record_window import window_for
    from tests.programs import gpt_source

    core.configure_devices(8)
    trace = TraceRequest(target=Target(gpt_source(ns.layers), "<editor:gpt_train.py>",
                                       "train_step"),
                         args="params, tokens, targets", in_axes="None, None, None")

    def run(label: str, **window) -> int:
        req = StepRequest(trace, "plain", value_limit=256, record_limit_mb=4096, **window)
        start = time.perf_counter()
        result = step(req).result
        spent = time.perf_counter() - start
        if result.error is not None:
            raise SystemExit(f"{label}: {result.error.message}")
        values = sum(len(lane.inputs) + len(lane.outputs)
                     for s in result.steps for lane in s.lanes)
        carrying = sum(1 for s in result.steps if s.lanes)
        size = len(json.dumps(to_plain(result))) / 1e6
        print(f"{label:12} {spent:8.1f} {len(result.steps):7d} {carrying:9d} {values:8d} "
              f"{size:8.2f} {os.getloadavg()[0]:6.2f}", flush=True)
        return len(result.steps)

    print(f"{ns.layers}-layer train step, plain, stepped in this process")
    print(f"{'':12} {'wall s':>8} {'steps':>7} {'w/ values':>9} {'values':>8} {'JSON MB':>8} "
          f"{'load':>6}")
    run("(warm-up)", record_from=0, record_steps=1)  # JAX's eager op cache, for both below
    count = run("everything")
    at = ns.at if ns.at is not None else count * 9 // 10
    record_from, record_steps = window_for(at)
    run(f"jump to {at}", record_from=record_from, record_steps=record_steps)
    print("target: the jump costs about one run, and its values are the window's "
          f"({record_steps} steps), not the {at} steps before it")
    return 0


if __name__ == "__main__":
    sys.exit(main())
