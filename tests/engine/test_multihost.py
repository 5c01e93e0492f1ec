"""Multi-host scaling played on one machine: processes that form one global mesh."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from jaxviz.engine.multihost import run_multihost
from jaxviz.model.errors import UserError

# Not in the fast tier: real engine processes.
pytestmark = pytest.mark.slow


@pytest.mark.slow
def test_two_processes_psum_across_each_other():
    reports = run_multihost("example:multi_host", processes=2, local_devices=4)
    assert [r.process_index for r in reports] == [0, 1]
    # Every process sees all 8 devices; each holds only its own 4.
    for r in reports:
        assert len(r.global_devices) == 8
        assert sorted({d["process_index"] for d in r.global_devices}) == [0, 1]
        owned = [d["id"] for d in r.global_devices if d["process_index"] == r.process_index]
        assert r.local_device_ids == owned and len(owned) == 4
    shards = sorted((s["index"][0][0], s["input"], s["output"])
                    for r in reports for s in r.shards)
    inputs = np.array([s[1] for s in shards])
    outputs = np.array([s[2] for s in shards])
    np.testing.assert_array_equal(inputs, np.arange(8.0))
    # The psum crossed the process boundary: the same numbers as pmap(normalize) on 8 devices.
    np.testing.assert_allclose(outputs, np.arange(8.0) / 28.0, rtol=1e-6)
    assert "psum" in reports[0].jaxpr


@pytest.mark.slow
def test_a_failing_worker_is_reported_not_hung(tmp_path):
    source = tmp_path / "fails.py"
    source.write_text("def f(x):\n    raise ValueError('no good')\n")
    with pytest.raises(UserError) as info:
        run_multihost(f"{source}:f", processes=2, local_devices=1, timeout=60)
    # The worker's own cause, located in the user's file (not "process 0 failed").
    assert info.value.info.kind == "trace"
    assert info.value.info.message == "process 0: ValueError: no good"
    assert (info.value.info.file, info.value.info.line) == (str(source), 2)


@pytest.mark.slow
def test_cli_prints_processes_and_devices():
    out = subprocess.run([sys.executable, "-m", "jaxviz", "multihost", "--processes", "2",
                          "--devices", "2"], capture_output=True, text=True, timeout=180)
    assert out.returncode == 0, out.stderr
    assert "2 processes x 2 simulated CPU devices = 4 devices" in out.stdout
    assert "process 1: jax.local_devices()" in out.stdout


@pytest.mark.slow
def test_the_multi_host_storyboard_is_the_real_runs():
    """The storyboard the workers return, against their real shards and their compiled HLO."""
    from jaxviz.model import TraceResult, from_plain
    from jaxviz.views.devices import build_scene, geometry
    from tests.helpers import hlo_oracle

    reports = run_multihost("example:multi_host", processes=2, local_devices=4)
    result = from_plain(reports[0].result)
    assert isinstance(result, TraceResult)
    story = result.variants[0].storyboard
    devices = reports[0].global_devices  # jax.devices(): the mesh's order
    ids = [d["id"] for d in devices]
    assert story.devices == ids and len(set(ids)) == 8
    assert story.processes == [d["process_index"] for d in devices] == [0] * 4 + [1] * 4
    # The collectives, as the tests' own HLO reader finds them in the program both ran.
    found = hlo_oracle.read(reports[0].hlo, ids)
    assert [(s.collective.kind, s.collective.groups) for s in story.collectives] == [
        (f.kind, f.groups) for f in found] == [("all-reduce", [ids])]
    assert [s.input_shapes for s in story.collectives] == [f.operands for f in found]
    # Each device's output tile is the block that process really computed there.
    real = {s["device"]: [list(r) for r in s["index"]] for r in reports for s in r.shards}
    assert {d: t.index for t in story.outputs[0].tiles for d in t.devices} == real
    # Drawn grouped by process: one frame each, around its own devices only.
    scene = build_scene(result, "shard_map")
    assert scene.processes == [0, 1]
    lay = geometry.canvas_geometry(scene, 1280, 720, geometry.default_unit(1280, 720))
    assert [label for _, label in lay.frames] == ["process 0: 4 simulated CPU devices",
                                                  "process 1: 4 simulated CPU devices"]
    for (fx, fy, fw, fh), label in lay.frames:
        proc = int(label.split(":")[0].split()[1])
        inside = {d for d, p in lay.devices.items()
                  if fx <= p.rect[0] and p.rect[0] + p.rect[2] <= fx + fw
                  and fy <= p.rect[1] and p.rect[1] + p.rect[3] <= fy + fh}
        assert inside == {d["id"] for d in devices if d["process_index"] == proc}
    (a, _), (b, _) = lay.frames
    assert a[1] + a[3] <= b[1]  # the frames do not overlap
    [collective] = [p for p in scene.phases if p.kind == "collective"]
    assert "crosses between processes" in collective.caption


def test_the_multi_host_arrays_start_placed_on_each_process_issue_26():
    """make_array_from_process_local_data places x before the call: no host array, no
    transfer, and each process holds only its own blocks (the workers' real shards)."""
    from jaxviz.model import from_plain
    from jaxviz.views.devices import build_scene

    reports = run_multihost("example:multi_host", processes=2, local_devices=4)
    result = from_plain(reports[0].result)
    held = {r.process_index: {s["device"] for s in r.shards} for r in reports}
    assert held[0].isdisjoint(held[1])  # JAX: no process holds another's blocks
    claims = result.variants[0].storyboard.claims
    x = claims.array("x")
    assert x.starts == "placed" and x.processes == len(held) == 2
    scene = build_scene(result, "shard_map")
    text = " ".join(p.title + " " + p.caption for p in scene.phases)
    assert scene.phases[0].kind == "placed"
    assert "host memory" not in text and "np.asarray(out) would gather" not in text
    assert "each process holding only its own blocks" in text
    assert [p.kind for p in scene.phases].count("transfer") == 0
