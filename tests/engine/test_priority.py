"""The engine runs below the window's priority: when both want a core, the window's
thread goes first (read from Linux's own view of the processes, /proc)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from jaxviz.engine.child import ENGINE_NICE

pytestmark = pytest.mark.skipif(not Path("/proc/self/task").is_dir(),
                                reason="reads the threads' priorities from Linux's /proc")


def thread_nices(pid: int) -> dict[int, int]:
    """Each thread's nice value, as the kernel holds it (field 19 of its stat line)."""
    nices = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        stat = Path(f"/proc/{pid}/task/{tid}/stat").read_text()
        nices[int(tid)] = int(stat.rsplit(")", 1)[1].split()[16])
    return nices


def test_every_thread_of_the_engine_runs_below_the_window(client):
    ours = os.getpriority(os.PRIO_PROCESS, 0)
    nices = thread_nices(client.info.pid)
    assert len(nices) > 2  # JAX's own threads are there: they inherited it
    assert set(nices.values()) == {max(ours, ENGINE_NICE)}
    assert os.getpriority(os.PRIO_PROCESS, 0) == ours  # the window's own is unchanged


def test_the_engines_scheduling_group_is_its_own_and_below_the_windows(client):
    group = Path(f"/proc/{client.info.pid}/autogroup")
    enabled = Path("/proc/sys/kernel/sched_autogroup_enabled")
    if not group.exists() or not enabled.exists() or enabled.read_text().strip() != "1":
        pytest.skip("this kernel does not group processes by session")
    name, _, nice = group.read_text().split()
    # The window's own group; a process in the kernel's default group (a session older
    # than autogroup, as under some CI runners) reads as nothing at all.
    ours = Path("/proc/self/autogroup").read_text().split()[:1]
    assert [name] != ours  # a session of its own
    assert int(nice) == ENGINE_NICE
