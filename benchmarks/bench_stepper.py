"""How much does stepping cost over running the same program op by op?

Steps the data_parallel example's pmap variant (8 simulated CPU devices; the
stepper runs the body once per device, computes both psums across the
devices and records every value) and runs the same program op by op with JAX
itself: ``jax.pmap(train_step, ...)`` called under ``jax.disable_jit()``, and
``jax.core.eval_jaxpr`` of the same jaxpr under ``jax.disable_jit()``. The
three are measured alternately in one run after a warm-up (eager primitives
compile once per shape); the script prints their medians and the ratio of
the stepper to the op-by-op run (target <= 20), plus the compiled call for
scale.

Run: ``.venv/bin/python benchmarks/bench_stepper.py``
"""

from __future__ import annotations

import statistics
import time

from jaxviz import core

RUNS = 7
TARGET = 20.0


def main() -> None:
    core.configure_devices(8)
    import jax

    from jaxviz.core import jax_internals
    from jaxviz.core.stepper import step
    from jaxviz.core.stepper_eval import Evaluator
    from jaxviz.core.stepper_values import Recorder
    from jaxviz.core.trace import load
    from jaxviz.model import TraceRequest
    from jaxviz.model.sources import resolve_target
    from jaxviz.model.stepping import StepRequest

    target, d = resolve_target("example:data_parallel")
    trace = TraceRequest(target=target, args=d["args"], in_axes=d["in_axes"],
                         axis_name=d["axis_name"])
    req = StepRequest(trace, variant="pmap")
    stepped = step(req)
    assert stepped.result.error is None, stepped.result.error
    prepared = load(trace).builder.prepare("pmap")
    args = jax.tree.unflatten(jax.tree.structure(prepared.args), stepped.args)
    closed = jax.make_jaxpr(prepared.fn)(*args)
    text, lines, context = jax_internals.jaxpr_text_and_lines(closed)
    jaxpr, consts = jax_internals.closed_parts(closed)
    flat = jax.tree.leaves(args)

    def stepper() -> object:
        recorder = Recorder(req.value_limit, req.summary, int(req.record_limit_mb * 1e6))
        evaluator = Evaluator(recorder, lines, context, target.filename)
        return jax.block_until_ready(evaluator.run(jaxpr, consts, flat))

    def op_by_op() -> object:
        with jax.disable_jit():
            return jax.block_until_ready(prepared.fn(*args))

    def eval_jaxpr() -> object:
        with jax.disable_jit():
            return jax.block_until_ready(jax.core.eval_jaxpr(jaxpr, consts, *flat))

    def compiled() -> object:
        return jax.block_until_ready(prepared.fn(*args))

    runs = {"stepper (8 devices, values recorded)": stepper,
            "pmap under jax.disable_jit()": op_by_op,
            "eval_jaxpr under jax.disable_jit()": eval_jaxpr,
            "compiled pmap call (for scale)": compiled}
    times: dict[str, list[float]] = {name: [] for name in runs}
    for fn in runs.values():  # warm-up: eager primitives compile once per shape
        fn()
        fn()
    for _ in range(RUNS):
        for name, fn in runs.items():
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)
    medians = {name: statistics.median(t) for name, t in times.items()}
    steps = len(stepped.result.steps)
    print(f"data_parallel, pmap over 8 devices: {steps} steps, {RUNS} runs each, medians:")
    for name, m in medians.items():
        print(f"  {name:40s} {m * 1000:8.1f} ms")
    stepper_ms = medians["stepper (8 devices, values recorded)"]
    for baseline in ("pmap under jax.disable_jit()", "eval_jaxpr under jax.disable_jit()"):
        ratio = stepper_ms / medians[baseline]
        print(f"ratio stepper / {baseline}: {ratio:.2f}  (target <= {TARGET:g})")
    start = time.perf_counter()
    step(req)
    print(f"whole request (load, trace, arguments, step, record): "
          f"{(time.perf_counter() - start) * 1000:.0f} ms")


if __name__ == "__main__":
    main()
