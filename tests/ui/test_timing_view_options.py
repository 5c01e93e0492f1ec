"""The timing view's Qt-free parts: example defaults, offered variants, requests, descriptions."""

from __future__ import annotations

import pytest

from jaxviz.model import Target, TraceRequest
from jaxviz.model.sizes import parse_size
from jaxviz.model.timing import TimingHeader, TimingRequest, TimingRun, validate
from jaxviz.views.timing.options import (
    RunOptions,
    build_request,
    declared_settings,
    default_options,
    describe_target,
    options_of,
    supported_variants,
    where_and_when,
)
from tests.helpers.timing_view import example_request


def test_an_examples_timing_settings_are_the_defaults():
    req = example_request("async_dispatch")
    declared = declared_settings(req.target.source, req.target.function)
    assert declared["baseline"] == "matmul_numpy"
    opts = default_options(declared)
    assert opts.variants == ["numpy", "op-by-op", "jit", "jit-sync"]
    assert opts.sweep == "n=256,512,1024,2048" and opts.sweep_args == "f32[n,n], f32[n,n]"
    assert not opts.sweep_on  # a sweep is asked for, not run by default
    assert supported_variants(req, declared) == ["numpy", "op-by-op", "jit", "jit-sync"]


def test_a_pmap_example_offers_the_parallel_variants():
    req = example_request("batched_matmul")
    declared = declared_settings(req.target.source, req.target.function)
    offered = supported_variants(req, declared)
    assert offered == ["numpy", "op-by-op", "jit", "jit-sync", "loop", "vmap", "jit-vmap",
                       "pmap", "sharded"]
    assert default_options(declared).variants == ["numpy", "jit-vmap", "pmap", "sharded"]


def test_another_function_of_an_example_keeps_only_the_baseline():
    req = example_request("async_dispatch")
    assert declared_settings(req.target.source, "matmul_numpy") == {"baseline": "matmul_numpy"}
    assert declared_settings("def f(:\n", "f") == {}
    assert declared_settings("JAXVIZ = make()\n", "f") == {}
    plain = TraceRequest(target=Target("def f(x): return x", "<editor:f.py>", "f"), args="f32[3]")
    assert supported_variants(plain, {}) == ["op-by-op", "jit", "jit-sync"]
    assert describe_target(plain) == "f(f32[3]) in editor:f.py"


def test_the_request_is_what_jaxviz_time_would_send():
    req = example_request("async_dispatch", "f32[64,64], f32[64,64]")
    declared = declared_settings(req.target.source, req.target.function)
    opts = RunOptions(variants=["jit", "numpy"], runs=7, warmup=2, pipeline=5, sweep_on=True,
                      sweep="n=32,64", sweep_args="f32[n,n], f32[n,n]", async_dispatch=False)
    timing = build_request(req, opts, declared)
    assert timing == TimingRequest(trace=req, variants=["jit", "numpy"], runs=7, warmup=2,
                                   pipeline=5, sweep="n=32,64", sweep_args="f32[n,n], f32[n,n]",
                                   async_dispatch=False, baseline="matmul_numpy")
    assert validate(timing) == []
    assert options_of(timing) == opts
    opts.sweep_on = False  # a sweep typed but not ticked is not sent
    assert build_request(req, opts, declared).sweep is None


def test_bad_settings_name_their_field():
    req = example_request("async_dispatch", "f32[64,64], f32[64,64]")
    bad = build_request(req, RunOptions(variants=["jit"], sweep_on=True, sweep="n=32,x"), {})
    assert [p.field for p in validate(bad)] == ["sweep"]
    missing = build_request(req, RunOptions(variants=["jit"], sweep_on=True, sweep="m=32,64",
                                            sweep_args="f32[n,n]"), {})
    assert [p.field for p in validate(missing)] == ["sweep_args"]
    assert [p.field for p in validate(build_request(req, RunOptions(variants=[]), {}))] == \
        ["variants"]


def test_where_and_when_names_host_devices_versions_and_date():
    header = TimingHeader(
        jaxviz="0.1", jax="0.10.2", jaxlib="0.10.2", backend="cpu", device_kind="cpu",
        device_count=8, simulated=True, host_cpu="AMD EPYC (2 cores)", python="3.11.7",
        os="Linux", date="2026-11-22T03:04:05+01:00", clock="perf_counter_ns",
        function="matmul", filename="/x/async_dispatch.py", source="", function_source="",
        args="x, y", async_dispatch=False)
    run = TimingRun(request=None, header=header)  # type: ignore[arg-type]
    live, tip = where_and_when(run)
    assert live == ("Measured 2026-11-22 03:04 on AMD EPYC (2 cores) · 8 simulated CPU devices "
                    "sharing the host's cores · jax 0.10.2 / jaxlib 0.10.2 · Python 3.11.7 · "
                    "async dispatch off · matmul(x, y) in async_dispatch.py")
    replay, tip = where_and_when(run, "/talks/gpu/timings.json")
    assert replay.startswith("Recording timings.json, shown as recorded (not rerun): measured "
                             "2026-11-22 03:04 on AMD EPYC (2 cores)")
    assert "file: /talks/gpu/timings.json" in tip and "date: 2026-11-22T03:04:05+01:00" in tip
    header.simulated, header.device_kind, header.device_count = False, "NVIDIA H100", 4
    assert "4 × NVIDIA H100" in where_and_when(run)[0]


@pytest.mark.parametrize("text, size", [("1920x1080", (1920, 1080)),
                                        (" 1280 × 720 ", (1280, 720))])
def test_sizes_parse(text, size):
    assert parse_size(text) == size


@pytest.mark.parametrize("text", ["1920", "axb", "10x10", "20000x1080"])
def test_bad_sizes_say_what_is_expected(text):
    with pytest.raises(ValueError, match="1920x1080|200x150"):
        parse_size(text)


def test_defaults_leave_out_variants_that_cannot_run_and_fall_back_to_the_examples():
    """normalize declares vmap, pmap and shard_map (no timing block): jit is the default
    until the trace says jit cannot run it; then the example's own variants, timed."""
    req = example_request("normalize")
    declared = declared_settings(req.target.source, req.target.function)
    assert default_options(declared).variants == ["jit"]
    unable = {"jit": "jit cannot run normalize: unbound axis name"}
    assert default_options(declared, unable).variants == ["jit-vmap", "pmap", "shard_map"]
    unable["pmap"] = "pmap cannot run normalize"
    assert default_options(declared, unable).variants == ["jit-vmap", "shard_map"]
    timed = declared_settings(*(lambda r: (r.target.source, r.target.function))(
        example_request("async_dispatch")))
    assert default_options(timed, {"op-by-op": "x"}).variants == ["numpy", "jit", "jit-sync"]
