"""Multi-host scaling played on one machine: processes that form one global mesh."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from jaxviz.engine.multihost import run_multihost
from jaxviz.model.errors import UserError


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
def test_a_failing_worker_is_reported_not_hung():
    with pytest.raises(UserError) as info:
        run_multihost("example:no_such_example", processes=2, local_devices=1, timeout=60)
    assert info.value.info.kind in ("crash", "timeout")
    assert "process" in info.value.info.message


@pytest.mark.slow
def test_cli_prints_processes_and_devices():
    out = subprocess.run([sys.executable, "-m", "jaxviz", "multihost", "--processes", "2",
                          "--devices", "2"], capture_output=True, text=True, timeout=180)
    assert out.returncode == 0, out.stderr
    assert "2 processes x 2 simulated CPU devices = 4 devices" in out.stdout
    assert "process 1: jax.local_devices()" in out.stdout
