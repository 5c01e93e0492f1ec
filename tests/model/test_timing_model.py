"""Timing records, request checks, captions and writers on hand-made runs (no JAX, no Qt)."""

from __future__ import annotations

import csv
import json

import pytest

from jaxviz.model import ErrorInfo, Target, TraceRequest, from_plain, to_plain
from jaxviz.model.specs import SpecError
from jaxviz.model.timing import (
    CallRecord,
    DeviceReady,
    FirstCall,
    PipelineInfo,
    TimingHeader,
    TimingRequest,
    TimingRun,
    TimingStatus,
    VariantInfo,
    parse_sweep,
    sweep_args_for,
    validate,
)
from jaxviz.views.timing.export import CSV_COLUMNS, chrome_trace, read_json, write_csv, write_json
from jaxviz.views.timing.stats import (
    caption_dispatch,
    caption_sweep,
    caption_timeline,
    caption_variants,
    fmt_ms,
    steady,
)

MS = 1_000_000


def request(**kw) -> TimingRequest:
    trace = TraceRequest(target=Target("def f(x, y): return x @ y", "<editor:f.py>", "f"),
                         args="f32[n,n], f32[n,n]")
    return TimingRequest(trace=trace, **kw)


def make_run() -> TimingRun:
    """A jit run: async (0.05 ms vs 5 ms), a 3-call pipeline on 2 devices, a sweep."""
    run = TimingRun(request=request(variants=["numpy", "jit"], sweep="n=8,16"))
    records = [
        VariantInfo("numpy", "f_np(x, y)", "f32[8,8], f32[8,8]"),
        FirstCall("numpy", 0, execute_ns=9 * MS, dispatch_ns=9 * MS, total_ns=9 * MS),
        VariantInfo("jit", "jax.jit(f)(x, y)", "f32[8,8], f32[8,8]", devices=[0, 1]),
        FirstCall("jit", 100 * MS, execute_ns=6 * MS, dispatch_ns=MS, total_ns=36 * MS,
                  trace_ns=10 * MS, lower_ns=5 * MS, compile_ns=15 * MS, implicit_ns=35 * MS),
    ]
    for i in range(4):
        records.append(CallRecord("numpy", "steady", i, 10 * MS * i, 0, 10 * MS, 10 * MS))
        records.append(CallRecord("jit", "steady", i, 200 * MS + 10 * MS * i, 0, 50_000,
                                  5 * MS + i))
    records.append(PipelineInfo("jit", 3, chained=True))
    for k in range(3):
        records.append(CallRecord(
            "jit", "pipelined", k, 300 * MS, 10_000 * k, 10_000 * k + 5000, 5 * MS * (k + 1),
            devices=[DeviceReady(0, 5 * MS * (k + 1) - 100), DeviceReady(1, 5 * MS * (k + 1))]))
    for j, (size, work) in enumerate(((8, 1 * MS), (16, 8 * MS))):
        for i in range(3):
            records.append(CallRecord("jit", "sweep", i, 400 * MS + 10 * MS * (3 * j + i), 0,
                                      40_000, work, size=size))
    records.append(ErrorInfo("option", "pmap needs a batched argument", variant="pmap"))
    records.append(TimingStatus("done", 10, 10))
    for r in records:
        run.add(r)
    run.complete = True
    return run


def test_parse_sweep_and_substitution():
    assert parse_sweep("n = 256, 512 ,1024") == ("n", [256, 512, 1024])
    assert sweep_args_for("f32[n,n], f32[n,nn], g(n)", "n", 4) == "f32[4,4], f32[4,nn], g(4)"
    with pytest.raises(SpecError) as err:
        parse_sweep("n=256,big")
    assert err.value.position == 6 and "big" in err.value.message
    with pytest.raises(SpecError):
        parse_sweep("256,512")
    # 0 has no place on the sweep plot's log axis (it drew nothing: "Cannot set range");
    # a size beyond the bound is an array no machine holds.
    for text, position in (("n=0,8", 2), ("n=8, 99999999999", 5)):
        with pytest.raises(SpecError) as err:
            parse_sweep(text)
        assert err.value.position == position
        assert "a sweep size is a whole number from 1 to 16777216" in err.value.message


def test_validate_names_the_field_at_fault():
    assert validate(request(sweep="n=8,16")) == []
    fields = {e.field: e.message for e in validate(request(
        runs=0, warmup=-1, pipeline=-2, variants=["jit", "warp"], sweep="m=4"))}
    assert "at least 1, not 0" in fields["runs"]
    assert {"warmup", "pipeline", "variants", "sweep_args"} <= set(fields)
    assert "'warp'" in fields["variants"] and "'m'" in fields["sweep_args"]


def test_run_folds_streamed_records_and_round_trips():
    run = make_run()
    assert [v.variant for v in run.variants] == ["numpy", "jit"]
    assert run.pipeline.chained and run.status.message == "done"
    assert run.errors[0].variant == "pmap"
    assert len(run.calls_of("jit", "steady")) == 4 and run.variant_names() == ["numpy", "jit"]
    again = from_plain(json.loads(json.dumps(to_plain(run))))
    assert again == run
    with pytest.raises(TypeError):
        run.add("not a record")


def test_first_call_phases_are_the_measured_stages_in_order():
    first = make_run().first_call("jit")
    assert first.phases() == [("trace", 10 * MS), ("lower", 5 * MS), ("compile", 15 * MS),
                              ("execute", 6 * MS)]
    # pmap traces while it lowers; NumPy is not compiled: stages not measured are left out
    pmap = FirstCall("pmap", 0, execute_ns=2, dispatch_ns=1, total_ns=9, lower_ns=3,
                     compile_ns=4)
    assert [n for n, _ in pmap.phases()] == ["lower", "compile", "execute"]
    numpy = make_run().first_call("numpy")
    assert numpy.phases() == [("execute", 9 * MS)]
    # op-by-op compiles each op inside its first call: one phase, named for what it is
    op = FirstCall("op-by-op", 0, execute_ns=7, dispatch_ns=1, total_ns=7, compiled_in_call=True)
    assert op.phases() == [("first call", 7)]
    # the variants caption counts what the first call spent before executing, once
    assert "30 ms tracing and compiling, once" in caption_variants(make_run())


def test_captions_are_computed_from_the_records():
    run = make_run()
    s = steady(run, "jit")
    assert s.dispatch_median == pytest.approx(0.05) and s.asynchronous
    text = caption_dispatch(run)
    assert text.startswith("jit: calls return after 0.050 ms; results are ready after 5.0 ms")
    assert "asynchronous" in text
    assert caption_dispatch(run, "numpy").endswith("NumPy computes before returning")
    assert "3 chained jit calls" in caption_timeline(run)
    assert "2 devices finished each call within 0.00010 ms" in caption_timeline(run)
    assert "jit is fastest at 5.0 ms" in caption_variants(run)
    assert "2.0× faster than NumPy" in caption_variants(run)
    assert "30 ms tracing and compiling" in caption_variants(run)
    assert "from 8 to 16, completion grows 8.0×" in caption_sweep(run)
    assert fmt_ms(0.04321) == "0.043 ms" and fmt_ms(123.4) == "123 ms"


def sweep_run(dispatch_ms: list[float], complete_ms: list[float]) -> TimingRun:
    run = TimingRun(request=request(variants=["jit"], sweep="n=256,512,1024,2048"))
    for j, (size, d, c) in enumerate(zip((256, 512, 1024, 2048), dispatch_ms, complete_ms)):
        for i in range(3):
            run.add(CallRecord("jit", "sweep", i, 10 * MS * (3 * j + i), 0, int(d * MS),
                               int(c * MS), size=size))
    return run


def test_sweep_caption_says_dispatch_grows_when_it_grows():
    # the measurement: dispatch 0.0096 -> 0.15 ms while completion grows much more
    grows = caption_sweep(sweep_run([0.0096, 0.02, 0.06, 0.15], [0.5, 3.0, 20.0, 150.0]))
    assert "completion grows 300×" in grows
    assert "dispatch grows 16× too (0.0096 ms → 0.15 ms)" in grows
    assert "stays" not in grows
    assert "at least 52× sooner than its result is ready" in grows  # 0.5 / 0.0096
    flat = caption_sweep(sweep_run([0.01, 0.012, 0.011, 0.015], [0.5, 3.0, 20.0, 150.0]))
    assert "while dispatch stays between 0.010 ms and 0.015 ms" in flat


def test_csv_has_the_documented_columns(tmp_path):
    run = make_run()
    path = write_csv(run, tmp_path / "timings.csv")
    rows = list(csv.DictReader(path.open()))
    assert tuple(rows[0]) == CSV_COLUMNS
    assert CSV_COLUMNS[:6] == ("variant", "run", "phase", "dispatch_ms", "complete_ms", "device")
    steady_rows = [r for r in rows if r["phase"] == "steady" and r["variant"] == "jit"]
    assert len(steady_rows) == 4 and float(steady_rows[0]["dispatch_ms"]) == 0.05
    device_rows = [r for r in rows if r["phase"] == "pipelined" and r["device"]]
    assert sorted({r["device"] for r in device_rows}) == ["0", "1"] and len(device_rows) == 6
    stages = [r["phase"] for r in rows if r["variant"] == "jit" and r["run"] == "0"][:4]
    assert stages == ["trace", "lower", "compile", "first"]


def test_json_reloads_the_run(tmp_path):
    run = make_run()
    assert read_json(write_json(run, tmp_path / "timings.json")) == run
    (tmp_path / "other.json").write_text(json.dumps(to_plain(run.request)))
    with pytest.raises(ValueError, match="not a timing run"):
        read_json(tmp_path / "other.json")


@pytest.mark.parametrize("content, words", [
    ('{"name": "my notes", "items": [1, 2]}', "this is not jaxviz data"),
    ("[1, 2, 3]", "this is not jaxviz data"),
    ('{"schema": true, "record": {}}', "this is not jaxviz data"),
    ('{"schema": %d, "record": {"__type__": "TimingRun", "request": 3}}',
     "a malformed jaxviz record: TimingRun.request should be TimingRequest, not 3"),
    ("{ this is not json", "it is not JSON (Expecting property name enclosed in double quotes "
                           "at line 1, column 3)"),
    (b"\x89PNG\r\n\x1a\n", "it is not UTF-8 text (byte 0x89 at offset 0)"),
])
def test_a_file_that_is_not_a_recording_is_called_what_it_is(tmp_path, content, words):
    """Issue 14 (9): JSON that jaxviz never wrote was 'written by another jaxviz version'."""
    from jaxviz.model.codec import SCHEMA_VERSION

    path = tmp_path / "other.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content.replace("%d", str(SCHEMA_VERSION)))
    with pytest.raises(ValueError) as caught:
        read_json(path)
    assert words in str(caught.value) and "another jaxviz version" not in str(caught.value)


@pytest.mark.parametrize("path, value", [
    (("calls", 0, "run"), "x"), (("calls", 0, "devices"), 5), (("header",), [1]),
    (("variants", 1, "devices", 0), None), (("calls", 11, "size"), 0),
    (("calls", 11, "size"), -1), (("calls", 11, "size"), 10**30)])
def test_a_recording_with_a_field_of_the_wrong_kind_is_refused(tmp_path, path, value):
    """Every field is checked against its record's annotation (a hand-edited or hostile
    timings.json built records the plots then failed on), sweep sizes against their range."""
    data = to_plain(make_run())
    where = data["record"]
    for key in path[:-1]:
        where = where[key]
    where[path[-1]] = value
    (tmp_path / "t.json").write_text(json.dumps(data))
    with pytest.raises(ValueError, match="a malformed jaxviz record: "):
        read_json(tmp_path / "t.json")


def test_chrome_trace_tracks_do_not_overlap():
    trace = chrome_trace(make_run())
    events = trace["traceEvents"]
    complete = [e for e in events if e["ph"] == "X"]
    assert complete and all(e["dur"] >= 0 and {"pid", "tid", "ts", "name"} <= set(e)
                            for e in complete)
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in events if e["name"] == "thread_name"}
    assert any(n.startswith("device 1") for n in names.values())
    by_track: dict = {}
    for e in complete:
        by_track.setdefault((e["pid"], e["tid"]), []).append((e["ts"], e["ts"] + e["dur"]))
    for spans in by_track.values():  # slices on one track follow each other
        spans.sort()
        for (_a0, a1), (b0, _b1) in zip(spans, spans[1:]):
            assert b0 >= a1 - 1e-6


@pytest.mark.parametrize("dispatch_us, complete_us, says, never", [
    # an H100 running async_dispatch's small matmul (jaxviz time, 2026-11-27): the call
    # returned 0.087 ms in, the result was ready 0.043 ms later
    (87, 130, "results are ready 0.043 ms later", "waits for its result"),
    (50, 5000, "the call returns 100× sooner than its result", "waits"),
    (20_000, 20_050, "the call waits for its result", "returns before"),
])
def test_the_dispatch_caption_says_whether_the_call_waited(dispatch_us, complete_us, says,
                                                           never):
    run = TimingRun(request=request(variants=["jit"]))
    for i in range(5):
        run.add(CallRecord("jit", "steady", i, 10 * MS * i, 0, dispatch_us * 1000,
                           complete_us * 1000))
    text = caption_dispatch(run)
    assert says in text and never not in text


def _header(backend: str) -> TimingHeader:
    return TimingHeader("0", "0.10", "0.10", backend, "dev", 1, backend == "cpu", "host",
                        "3.11", "linux", "today", "perf_counter_ns", "f", "f.py", "", "", "")


@pytest.mark.parametrize("backend", ["cpu", "gpu"])
def test_the_sweep_caption_says_a_call_waited_only_where_it_did(backend):
    """The dispatch caption's rule, size by size: a call that returned 0.087 ms in with
    its result ready at 0.13 ms (an H100's small matmul) did not wait for its result; one
    at 20 of 20.05 ms did. Why small calls wait is said for CPU devices alone."""
    short = sweep_run([0.087, 0.09, 0.1, 0.12], [0.13, 0.5, 3.0, 20.0])
    short.header = _header(backend)
    text = caption_sweep(short)
    assert "only when their results are ready" not in text
    assert "while dispatch stays between 0.087 ms and 0.12 ms" in text
    waits = sweep_run([20.0, 0.09, 0.1, 0.12], [20.05, 0.5, 3.0, 20.0])
    waits.header = _header(backend)
    text = caption_sweep(waits)
    assert "up to n = 256 calls return only when their results are ready" in text
    assert ("small CPU computations run inline" in text) == (backend == "cpu")
