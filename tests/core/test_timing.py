"""Timing runs in this process (8 simulated CPU devices): invariants of real measurements.

No timed assertions: the machine is shared and noisy. What must hold on any
machine is checked -- orderings, counts, one record per device, stages inside
the wall-clock time this test measured itself, files that parse.
"""

from __future__ import annotations

import csv
import datetime
import json
import time

import pytest

from jaxviz.model import from_plain, to_plain
from jaxviz.model.timing import CallRecord, TimingRequest, TimingRun, TimingStatus
from jaxviz.views.exports import write_data
from jaxviz.views.timing.export import CSV_COLUMNS
from tests.helpers.jax_requests import example_request

# Not in the fast tier: real timing runs.
pytestmark = pytest.mark.slow

VARIANTS = ["numpy", "op-by-op", "jit", "loop", "vmap", "jit-vmap", "pmap", "sharded"]
RUNS, WARMUP, PIPELINE = 3, 1, 4


def small_request(**overrides) -> TimingRequest:
    """batched_matmul on 16x16 matrices: 8 products, one per device for pmap/sharded."""
    trace = example_request("batched_matmul", args="f32[16,16], f32[16,16]")
    fields = dict(variants=VARIANTS, runs=RUNS, warmup=WARMUP, pipeline=PIPELINE,
                  sweep="n=8,16", sweep_args="f32[n,n], f32[n,n]", baseline="matmul_numpy")
    fields.update(overrides)
    return TimingRequest(trace=trace, **fields)


@pytest.fixture(scope="module")
def measured():
    """The run, what was streamed, and how long the run took by this test's own clock."""
    from jaxviz.core.timing import measure_timings

    streamed = []
    start = time.perf_counter_ns()  # the run's times are relative to this reading
    run = measure_timings(small_request(), streamed.append, origin_ns=start)
    wall_ns = time.perf_counter_ns() - start
    return run, streamed, wall_ns


def test_run_is_complete_without_errors(measured):
    run, _, _ = measured
    assert run.error is None and run.errors == [] and run.complete
    for v in VARIANTS:
        assert len([c for c in run.calls_of(v, "warmup") if c.size is None]) == WARMUP
        assert len(run.calls_of(v, "steady")) == RUNS
        assert run.first_call(v) is not None and run.info(v) is not None


def test_every_record_was_streamed_before_the_run_returned(measured):
    run, streamed, _ = measured
    calls = [r for r in streamed if isinstance(r, CallRecord)]
    assert calls == run.calls
    replay = TimingRun(request=run.request)
    for record in streamed:
        replay.add(record)
    replay.complete = True
    assert replay == run
    statuses = [r for r in streamed if isinstance(r, TimingStatus)]
    assert statuses[-1].done == statuses[-1].total and statuses[-1].message == "done"


def test_dispatch_never_after_completion(measured):
    run, _, _ = measured
    assert run.calls
    for c in run.calls:
        assert 0 <= c.t_start_ns <= c.t_dispatch_ns <= c.t_complete_ns, c
        for d in c.devices:
            assert c.t_dispatch_ns <= d.t_ready_ns <= c.t_complete_ns, c


def test_pipelined_completions_in_order_after_their_dispatch(measured):
    run, _, _ = measured
    assert run.pipeline.variant == "pmap" and run.pipeline.calls == PIPELINE
    assert run.pipeline.chained  # matmul(x, y) has x's shape: each call feeds the next
    calls = sorted(run.calls_of(phase="pipelined"), key=lambda c: c.run)
    assert [c.run for c in calls] == list(range(PIPELINE))
    assert len({c.t0_ns for c in calls}) == 1  # one origin: one timeline
    starts = [c.t_start_ns for c in calls]
    assert starts == sorted(starts)
    for before, after in zip(calls, calls[1:]):
        assert before.t_dispatch_ns <= after.t_start_ns
        assert before.t_complete_ns <= after.t_complete_ns
    for c in calls:
        assert c.t_dispatch_ns <= c.t_complete_ns


def test_one_per_device_record_per_device(measured):
    run, _, _ = measured
    for variant in ("pmap", "sharded"):
        assert run.info(variant).devices == list(range(8))
        for c in run.calls_of(variant, "steady") + run.calls_of(variant, "pipelined"):
            assert [d.device for d in c.devices] == list(range(8))
    for variant in ("jit", "jit-vmap", "op-by-op"):
        assert run.info(variant).devices == [0]
        assert all(not c.devices for c in run.calls_of(variant))
    assert run.info("numpy").devices == []


def test_first_call_stages_fit_the_wall_clock_and_come_first(measured):
    run, _, wall_ns = measured
    for variant in ("jit", "jit-vmap", "sharded", "pmap"):
        first = run.first_call(variant)
        phases = dict(first.phases())
        stages = sum(phases.values())
        # The stages happened inside the run, as this test's clock saw it, and before
        # the variant's next calls (the warm-up) started.
        assert first.t0_ns >= 0 and first.t0_ns + stages <= wall_ns
        later = min(c.t0_ns + c.t_start_ns for c in run.calls_of(variant, "warmup"))
        assert first.t0_ns + stages <= later
        assert all(ns > 0 for ns in phases.values())
        assert 0 < first.dispatch_ns <= first.execute_ns
        assert first.implicit_ns and first.implicit_ns > 0
    assert run.first_call("pmap").trace_ns is None  # pmap traces while lowering
    assert run.first_call("jit").trace_ns is not None
    for variant in ("numpy", "op-by-op", "loop", "vmap"):
        first = run.first_call(variant)
        assert first.compile_ns is None and first.total_ns == first.execute_ns


def test_first_calls_not_compiled_as_a_whole_say_they_compile_as_they_run(measured):
    """op-by-op, vmap and the loop compile each op during their first call: JAX says so
    (backend compilations counted here with jax.monitoring), and so does the record."""
    import jax
    import jax.numpy as jnp

    run, _, _ = measured
    for v in ("op-by-op", "vmap", "loop"):
        assert run.first_call(v).phases() == [("first call", run.first_call(v).execute_ns)]
    assert run.first_call("numpy").phases()[0][0] == "execute"
    assert [n for n, _ in run.first_call("jit").phases()][-1] == "execute"
    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, _secs, **_: compiles.append(event)
        if event == "/jax/core/compile/backend_compile_duration" else None)
    x = jnp.ones((16, 16))
    jax.block_until_ready(x)
    jax.clear_caches()
    compiles.clear()
    jax.block_until_ready(jnp.matmul(x, x))  # one op, op by op, after clearing the caches
    assert compiles


def test_timing_records_carry_the_variants_notes_and_code(measured):
    run, _, _ = measured
    assert any("dispatched on its own" in n.text for n in run.info("op-by-op").notes)
    pmap = run.info("pmap")
    assert pmap.code is not None and pmap.code.call == pmap.call
    assert "pmap(matmul" in pmap.call


def test_sweep_measures_every_size(measured):
    run, _, _ = measured
    sweep = run.calls_of("jit", "sweep")
    assert sorted({c.size for c in sweep}) == [8, 16]
    assert len(sweep) == 2 * RUNS


def test_header_describes_where_and_what(measured):
    run, _, _ = measured
    h = run.header
    assert h.jax and h.jaxlib and h.backend == "cpu" and h.device_count == 8
    assert h.simulated and len(h.devices) == 8 and h.host_cpu and h.async_dispatch
    assert "def matmul" in h.function_source and h.function == "matmul"
    assert h.filename.endswith("batched_matmul.py") and h.args == "f32[16,16], f32[16,16]"
    assert datetime.datetime.fromisoformat(h.date).tzinfo is not None
    assert "perf_counter_ns" in h.clock
    assert run.info("loop").args.startswith("8 x (f32[16,16], f32[16,16])")
    assert run.info("jit-vmap").call.startswith("jax.jit(jax.vmap(matmul")


def test_run_survives_the_codec_and_the_writers(measured, tmp_path):
    run, _, _ = measured
    assert from_plain(json.loads(json.dumps(to_plain(run)))) == run
    paths = write_data(run, tmp_path)
    assert [p.name for p in paths] == ["timings.csv", "timings.json", "trace.json"]
    rows = list(csv.DictReader((tmp_path / "timings.csv").open()))
    assert tuple(rows[0]) == CSV_COLUMNS
    assert {r["variant"] for r in rows} == set(VARIANTS)
    steady_rows = [r for r in rows if r["phase"] == "steady" and not r["device"]]
    assert len(steady_rows) == RUNS * len(VARIANTS)
    assert all(float(r["dispatch_ms"]) <= float(r["complete_ms"]) for r in steady_rows)
    trace = json.loads((tmp_path / "trace.json").read_text())
    complete = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    assert complete and all(isinstance(e["ts"], float) and e["dur"] >= 0 for e in complete)
    threads = [e["args"]["name"] for e in trace["traceEvents"] if e["name"] == "thread_name"]
    assert sum(t.startswith("device ") for t in threads) >= 8
    assert any(t.startswith("host: call") for t in threads)


def test_bad_variants_and_sweep_sizes_are_reported_and_the_rest_is_measured():
    from jaxviz.core.timing import measure_timings

    req = small_request(variants=["jit", "pmap", "numpy"], baseline=None, pipeline=2,
                        sweep="n=16,8", sweep_args="f32[n,n], f32[16,16]")
    req.trace.in_axes = "None, None"  # nothing batched: pmap cannot map anything
    run = measure_timings(req)
    assert run.error is None and run.complete
    by_variant = {e.variant: e for e in run.errors if "sweep" not in e.message}
    assert by_variant["pmap"].kind == "option" and "batched argument" in by_variant["pmap"].message
    assert by_variant["numpy"].field == "baseline"
    sweep_errors = [e for e in run.errors if e.message.startswith("sweep n=8")]
    assert len(sweep_errors) == 1 and sweep_errors[0].line  # the user's line
    assert len(run.calls_of("jit", "steady")) == RUNS
    assert {c.size for c in run.calls_of("jit", "sweep")} == {16}
    assert run.pipeline.variant == "jit"  # the failed pmap is not pipelined


def test_zero_runs_and_a_broken_function_are_clear_errors(user_file):
    from jaxviz.core.timing import measure_timings

    run = measure_timings(small_request(runs=0))
    assert run.error.field == "runs" and not run.calls
    req = small_request(variants=["jit"], sweep=None, pipeline=0)
    req.trace.target.source += "\nraise RuntimeError('broken module')\n"
    run = measure_timings(req)
    assert run.error is not None and "broken module" in run.error.message


def test_async_dispatch_off_runs_in_a_child_process():
    import jax

    from jaxviz.core.timing import async_dispatch_setting, ensure_async_dispatch, measure_timings
    from jaxviz.worker.timing_child import run_in_child

    jax.devices()  # the backend runs: the setting can no longer change in this process
    assert async_dispatch_setting() is True
    assert ensure_async_dispatch(True) and not ensure_async_dispatch(False)
    streamed = []
    run = measure_timings(small_request(variants=["jit", "jit-sync"], sweep=None, pipeline=2),
                          streamed.append, in_child=run_in_child)
    assert run.error is None and run.errors == [], run.errors
    assert len(run.calls_of("jit-sync", "steady")) == RUNS
    assert any("child process" in n.text for n in run.info("jit-sync").notes)
    assert any(isinstance(r, CallRecord) and r.variant == "jit-sync" for r in streamed)
    # the child's records sit on this run's timeline, after the jit ones
    assert min(c.t0_ns for c in run.calls_of("jit-sync")) > max(
        c.t0_ns for c in run.calls_of("jit", "steady"))
    whole = measure_timings(small_request(variants=["jit"], sweep=None, pipeline=2,
                                          async_dispatch=False), in_child=run_in_child)
    assert whole.error is None and whole.header.async_dispatch is False
    assert len(whole.calls_of("jit", "pipelined")) == 2
    # Without a way to start processes (only the engine has one) the run says so.
    alone = measure_timings(small_request(variants=["jit"], sweep=None, pipeline=0,
                                          async_dispatch=False))
    assert alone.error.kind == "engine" and "fresh JAX process" in alone.error.message
    assert not alone.calls


def test_a_timed_variant_that_differs_carries_its_note():
    from jaxviz.core.timing import measure_timings

    trace = example_request("normalize", batched_args="jnp.arange(16.)")
    run = measure_timings(TimingRequest(trace=trace, variants=["vmap", "pmap"], runs=2,
                                        warmup=0, pipeline=0), lambda _record: None)
    assert run.error is None and run.errors == [], run.errors
    [note] = [n for n in run.info("pmap").notes if n.differs]
    assert note.kind == "per_device_collective" and "not 16" in note.text
    assert not [n for n in run.info("vmap").notes if n.differs]
    assert run.info("pmap").call == run.info("pmap").code.call


def test_async_dispatch_off_is_refused_on_an_accelerator(monkeypatch):
    """JAX's switch is for CPU devices only (jax_cpu_enable_async_dispatch): on an H100
    the 'jit (async dispatch off)' row returned 0.058 ms in and was ready at 0.33 ms,
    asynchronous like jit, under a label saying otherwise (jaxviz time, 2026-11-27).
    On any other platform the variant, or a whole run asked to be off, says why not."""
    from jaxviz.core import timing
    from jaxviz.worker.timing_child import run_in_child

    monkeypatch.setattr(timing, "device_platform", lambda: "gpu")
    run = timing.measure_timings(small_request(variants=["jit", "jit-sync"], sweep=None,
                                               pipeline=0), in_child=run_in_child)
    assert run.error is None and len(run.calls_of("jit", "steady")) == RUNS
    assert not run.calls_of("jit-sync")
    refused = [e for e in run.errors if e.variant == "jit-sync"]
    assert len(refused) == 1 and "only on CPU devices" in refused[0].message
    assert "on gpu devices JAX always dispatches asynchronously" in refused[0].message
    assert not any("child process" in note for note in run.header.notes)
    whole = timing.measure_timings(small_request(variants=["jit"], sweep=None, pipeline=0,
                                                 async_dispatch=False), in_child=run_in_child)
    assert whole.error.kind == "option" and "only on CPU devices" in whole.error.message
    assert not whole.calls
