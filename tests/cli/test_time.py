"""`jaxviz time`, run as a user runs it: `python -m jaxviz time ...` in a subprocess."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

# Not in the fast tier: the jaxviz command in subprocesses, each with an engine.
pytestmark = pytest.mark.slow

SMALL = ["--args", "f32[32,32], f32[32,32]", "--runs", "3", "--warmup", "1", "--devices", "2",
         "--size", "800x450"]


def jaxviz_time(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    return subprocess.run([sys.executable, "-m", "jaxviz", "time", *args], capture_output=True,
                          text=True, timeout=300, env=env)


@pytest.fixture(scope="module")
def full_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("time")
    proc = jaxviz_time("example:async_dispatch", *SMALL, "--variants", "numpy,op-by-op,jit",
                       "--pipeline", "3", "--sweep", "n=16,32",
                       "--sweep-args", "f32[n,n], f32[n,n]", "--theme", "dark", "--out", str(out))
    return proc, out


def test_writes_data_and_plots(full_run):
    proc, out = full_run
    assert proc.returncode == 0, proc.stderr
    names = sorted(p.name for p in out.iterdir())
    plots = [f"{k}.{e}" for k in ("dispatch_vs_complete", "sweep", "timeline", "variants")
             for e in ("png", "svg", "pdf")]
    assert names == sorted(["timings.csv", "timings.json", "trace.json", *plots])
    for name in plots:
        if name.endswith(".svg"):
            root = ET.parse(out / name).getroot()
            assert root.get("viewBox") == "0 0 800 450" and root.get("width") == "800px"
        elif name.endswith(".pdf"):
            assert (out / name).read_bytes()[:5] == b"%PDF-"
        else:
            assert (out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_summary_and_progress(full_run):
    proc, _ = full_run
    assert "jax 0.10" in proc.stdout and "2 simulated CPU devices" in proc.stdout
    assert "dispatch_vs_complete: jit: calls return after" in proc.stdout
    assert "sweep: jit: as n grows from 16 to 32" in proc.stdout
    assert "jaxviz time: done" in proc.stderr  # the progress line


def test_csv_columns_and_rows(full_run):
    _, out = full_run
    rows = list(csv.DictReader((out / "timings.csv").open()))
    assert list(rows[0])[:6] == ["variant", "run", "phase", "dispatch_ms", "complete_ms",
                                 "device"]
    steady = [r for r in rows if r["phase"] == "steady"]
    assert sorted({r["variant"] for r in steady}) == ["jit", "numpy", "op-by-op"]
    assert len(steady) == 9
    assert all(float(r["dispatch_ms"]) <= float(r["complete_ms"]) for r in steady)
    assert {r["size"] for r in rows if r["phase"] == "sweep"} == {"16", "32"}


def test_trace_json_is_chrome_trace_format(full_run):
    _, out = full_run
    trace = json.loads((out / "trace.json").read_text())
    assert isinstance(trace["traceEvents"], list) and trace["displayTimeUnit"] == "ms"
    complete = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    assert len(complete) >= 3 * 9
    for e in complete:
        assert {"name", "ph", "ts", "dur", "pid", "tid"} <= set(e) and e["dur"] >= 0
    meta = {e["args"]["name"] for e in trace["traceEvents"] if e["ph"] == "M"
            and e["name"] == "thread_name"}
    assert "device 0: from start to result ready" in meta


def test_json_replays_the_run(full_run):
    from jaxviz.views.timing.export import read_json

    _, out = full_run
    run = read_json(out / "timings.json")
    assert run.complete and run.header.async_dispatch and run.header.device_count == 2
    assert run.request.runs == 3 and run.request.trace.args == "f32[32,32], f32[32,32]"


def test_unsupported_variant_and_bad_sweep_still_write_what_was_measured(tmp_path):
    proc = jaxviz_time("example:async_dispatch", *SMALL, "--in-axes", "None, None",
                       "--variants", "jit,pmap", "--pipeline", "2", "--sweep", "n=16,32",
                       "--sweep-args", "f32[n,n], f32[16,16]", "--no-plots",
                       "--out", str(tmp_path))
    assert proc.returncode == 2, proc.stderr
    assert "[pmap] pmap needs at least one batched argument" in proc.stderr
    from jaxviz.model import get_example

    source = Path(get_example("async_dispatch").path).read_text().splitlines()
    line = 1 + next(i for i, text in enumerate(source) if "return jnp.dot(x, y)" in text)
    assert "sweep n=32: TypeError" in proc.stderr
    assert f"async_dispatch.py:{line}" in proc.stderr
    rows = list(csv.DictReader((tmp_path / "timings.csv").open()))
    assert {r["variant"] for r in rows if r["phase"] == "steady"} == {"jit"}
    assert {r["size"] for r in rows if r["phase"] == "sweep"} == {"16"}
    assert (tmp_path / "trace.json").is_file() and (tmp_path / "timings.json").is_file()


@pytest.mark.parametrize("args, message", [
    (["--runs", "0"], "argument --runs: the number of runs must be a whole number from 1"),
    (["--variants", "jit,warp"], "unknown timing variant 'warp'"),
    (["--sweep", "n=16,x"], "sweep size 'x' is not a whole number"),
    (["--sweep", "m=16"], "the sweep name 'm' does not appear"),
    (["--size", "big"], "argument --size: the size 'big' is not WIDTHxHEIGHT"),
])
def test_bad_options_are_usage_errors(tmp_path, args, message):
    proc = jaxviz_time("example:async_dispatch", "--out", str(tmp_path), *args)
    assert proc.returncode == 2 and message in proc.stderr, proc.stderr


def test_unwritable_out_is_refused_before_measuring(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    proc = jaxviz_time("example:async_dispatch", "--out", str(blocker / "out"))
    assert proc.returncode == 2
    assert "cannot write into --out" in proc.stderr and "a-file" in proc.stderr


def test_out_pdf_writes_the_plots_alone_a_page_each(tmp_path):
    from tests.helpers.rasters import pdf_pages, pdftotext

    proc = jaxviz_time("example:async_dispatch", *SMALL, "--variants", "jit", "--pipeline", "2",
                       "--out", str(tmp_path / "timing.pdf"))
    assert proc.returncode == 0, proc.stderr
    assert "wrote 1 file into" in proc.stdout
    assert sorted(p.name for p in tmp_path.iterdir()) == ["timing.pdf"]
    pages, points = pdf_pages(tmp_path / "timing.pdf")
    assert pages == 3 and points == pytest.approx((600, 337.5), abs=0.5)  # 800x450 px
    for page, words in enumerate(["Dispatch vs completion", "2 chained jit calls",
                                  "variants compared"], start=1):
        assert words in pdftotext(tmp_path / "timing.pdf", page)


@pytest.mark.parametrize("out, args, message", [
    ("timings.csv", [], "the data files (timings.csv, timings.json, trace.json) go into a "
                        "folder together"),
    ("plot.pdf", ["--no-plots"], "--no-plots writes only the data files"),
    ("missing/plot.pdf", [], "the folder"),
    ("plot.pdf", ["--plot", "sweep"], "--plot sweep needs a size sweep"),
    ("plot.svg", ["--plot", "timeline", "--pipeline", "0"], "--plot timeline needs a pipeline"),
])
def test_out_file_problems_are_said_before_measuring(tmp_path, out, args, message):
    proc = jaxviz_time("example:async_dispatch", *SMALL, *args, "--out", str(tmp_path / out))
    assert proc.returncode == 2 and message in proc.stderr, proc.stderr
    assert list(tmp_path.iterdir()) == []
