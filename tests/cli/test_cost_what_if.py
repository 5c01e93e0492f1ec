"""``jaxviz cost --what-if`` as a user runs it: the table, --json, the plot, bad input."""

from __future__ import annotations

import json

import pytest
from PySide6.QtGui import QImage

from tests.helpers.cli import jaxviz

# subprocesses that start engines (seconds each)
pytestmark = pytest.mark.slow


def test_what_if_json_has_every_count_and_the_markers(tmp_path):
    plot = tmp_path / "w.png"
    out = jaxviz("cost", "example:data_parallel", "--chip", "tpu-v5e", "--what-if", "4,1,2",
                 "--json", "--what-if-plot", str(plot))
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["counts"] == [1, 2, 4] and data["per"] == "device"
    assert "compiled with N simulated CPU devices" in data["method"]
    rows = data["rows"]
    assert {(r["devices"], r["variant"]) for r in rows} == {
        (n, v) for n in (1, 2, 4) for v in ("vmap", "pmap", "shard_map")}
    pmap = sorted((r for r in rows if r["variant"] == "pmap"), key=lambda r: r["devices"])
    first = next((r["devices"] for r in pmap if r["t_comm_s"] > r["t_compute_s"]), None)
    assert data["comm_bound_at"]["pmap"] == first
    for r in rows:  # the step time lies between the bounds' definitions
        assert r["t_lower_s"] == pytest.approx(max(r["t_compute_s"], r["t_memory_s"],
                                                   r["t_comm_s"]))
        assert r["t_upper_s"] == pytest.approx(r["t_compute_s"] + r["t_memory_s"]
                                               + r["t_comm_s"])
    image = QImage(str(plot))
    assert (image.width(), image.height()) == (1920, 1080)


def test_what_if_table_and_svg(tmp_path):
    plot = tmp_path / "w.svg"
    out = jaxviz("cost", "example:batched_matmul", "--chip", "h100", "--variant", "pmap",
                 "--what-if", "1,2", "--what-if-plot", str(plot))
    assert out.returncode == 0, out.stderr
    assert "what-if: matmul projected on H100" in out.stdout
    assert "never communication-bound" in out.stdout
    assert plot.read_text().lstrip().startswith(("<?xml", "<svg"))


@pytest.mark.parametrize("flags, words", [
    (["--what-if", "0,2"], "1 to 512"),
    (["--what-if", "1,,2"], "empty item"),
    (["--what-if", "two"], "not a device count"),
    (["--what-if", "1,2", "--what-if-plot", "x.pdf"], "neither .png nor .svg"),
])
def test_bad_what_if_input_exits_2(flags, words, tmp_path):
    out = jaxviz("cost", "example:batched_matmul", "--chip", "h100", *flags, cwd=tmp_path)
    assert out.returncode == 2
    assert words in out.stderr + out.stdout and "Traceback" not in out.stderr
