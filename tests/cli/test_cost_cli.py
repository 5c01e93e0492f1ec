"""`jaxviz collectives` and `jaxviz cost` on a 12-layer GPT-style train step, as a user runs them.

The train step (tests/programs/gpt_train_step.py) is FSDP x tensor parallel over a 4x2 mesh,
written unrolled and with ``lax.scan``. The projections are checked against the
rooflines computed here from the presets file itself (read with tomllib), and the
collective counts against the scan's trip count.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib

import pytest

from jaxviz.model.chips import PRESETS
from tests.programs import gpt_train_step as gpt_train

# Not in the fast tier: compiles 12-layer train steps in subprocesses.
pytestmark = pytest.mark.slow

PROGRAM = gpt_train.__file__
LAYERS = 12


def jaxviz(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "jaxviz", *args], capture_output=True,
                          text=True, timeout=1200)


def train_args(scanned: bool) -> list[str]:
    name = "train_step_scanned" if scanned else "train_step_unrolled"
    return [f"{PROGRAM}:{name}", "--variant", "sharded", "--mesh", gpt_train.MESH_TEXT,
            "--args", gpt_train.args_text(LAYERS, scanned),
            "--specs", gpt_train.specs_text(LAYERS, scanned), "--timeout", "900"]


@pytest.mark.slow
@pytest.mark.parametrize("scanned", [False, True])
def test_collectives_of_a_12_layer_train_step(scanned):
    out = jaxviz("collectives", *train_args(scanned), "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    rows = data["collectives"]
    assert rows and data["mesh"]["axis_names"] == ["data", "model"]
    assert {r["origin"] for r in rows} == {"xla"}  # the step has no collective of its own
    looped = [r for r in rows if r["in_loop"]]
    if scanned:
        assert looped and all(r["count"] % LAYERS == 0 for r in looped)
    else:
        assert not looped
    for r in rows:
        n = r["group_size"]
        if r["kind"] == "all-gather":
            assert r["sent_bytes"] == (n - 1) * r["operand_bytes"]
            assert r["result_bytes"] == n * r["operand_bytes"]
        if r["kind"] == "all-reduce":
            assert r["sent_bytes"] == pytest.approx(2 * (n - 1) / n * r["operand_bytes"])
        assert set(r["mesh_axes"]) <= {"data", "model"}
    # FSDP: the parameters are gathered over 'data'; the batch is reduced over 'data'
    assert any(r["kind"] == "all-gather" and r["mesh_axes"] == ["data"] for r in rows)
    assert data["memory"]["argument_bytes"] > 0 and data["memory"]["temp_bytes"] > 0
    text = jaxviz("collectives", *train_args(scanned))
    assert text.returncode == 0, text.stderr
    assert "memory per device" in text.stdout and "XLA" in text.stdout


@pytest.mark.slow
@pytest.mark.parametrize("scanned", [False, True])
def test_cost_of_a_12_layer_train_step_on_tpu_v5e(scanned):
    out = jaxviz("cost", *train_args(scanned), "--chip", "tpu-v5e", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    preset = tomllib.loads(PRESETS.read_text())["tpu-v5e"]
    assert data["chip"] == "tpu-v5e" and data["devices"] == 8
    total = data["total"]
    for key in ("flops", "hbm_bytes", "comm_bytes", "t_compute_s", "t_memory_s", "t_comm_s",
                "t_lower_s", "t_upper_s"):
        assert total[key] >= 0, key
    # the rooflines, from the presets file: f32 FLOPs at the f32 peak, bytes over HBM
    assert total["t_compute_s"] == pytest.approx(total["flops"] / preset["flops"]["f32"])
    assert total["t_memory_s"] == pytest.approx(total["hbm_bytes"] / preset["hbm_bandwidth"])
    assert total["t_lower_s"] == pytest.approx(max(total["t_compute_s"], total["t_memory_s"],
                                                   total["t_comm_s"]))
    assert total["t_upper_s"] == pytest.approx(total["t_compute_s"] + total["t_memory_s"]
                                               + total["t_comm_s"])
    phases = data["phases"]
    assert phases and {p["kind"] for p in phases} == {"compute", "collective"}
    assert total["t_comm_s"] == pytest.approx(sum(p["t_comm_s"] for p in phases))
    assert sum(p["flops"] for p in phases) <= total["flops"] * (1 + 1e-9)
    for p in phases:
        assert p["t_lower_s"] <= p["t_upper_s"] + 1e-18
        assert "source_line" in p and all(p["formulas"].values())
        if p["kind"] == "collective":
            assert p["t_comm_s"] >= 1e-6  # at least one hop of about 1us
    if scanned:
        assert any(p["times"] == LAYERS for p in phases)
    mem = data["memory"]
    assert mem["argument_bytes"] > 0 and mem["fits"] is True
    text = jaxviz("cost", *train_args(scanned), "--chip", "tpu-v5e")
    assert text.returncode == 0, text.stderr
    assert "projected: 8x TPU v5e, mesh data=4,model=2" in text.stdout


def test_cost_needs_a_known_chip():
    out = jaxviz("cost", "example:data_parallel", "--chip", "tpu-v9")
    assert out.returncode == 2 and out.stdout == ""
    [line] = out.stderr.splitlines()
    assert "no chip 'tpu-v9'" in line and "tpu-v5e" in line
    out = jaxviz("cost", "example:data_parallel")
    assert out.returncode == 2 and "--chip" in out.stderr
    out = jaxviz("cost", "example:data_parallel", "--chip", "x", "--chip-file", "/nonexistent.toml")
    assert out.returncode == 2 and "cannot read" in out.stderr


def test_calibrate_on_cpu_says_there_is_nothing_to_calibrate_against():
    out = jaxviz("cost", "example:data_parallel", "--chip", "h100", "--calibrate")
    assert out.returncode == 0, out.stderr
    assert "nothing to calibrate against" in out.stdout
    assert "projected: 8x H100 SXM" in out.stdout
