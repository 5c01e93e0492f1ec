"""What the code being run cannot do: open ports to the network, forge replies, leave processes.

Each test runs the real thing (an engine, ``jaxviz multihost``, ``jaxviz
run``) with user code that tries, and checks from outside: the kernel's
socket tables (``/proc/net/tcp*``, as ``ss -ltnp`` reads them), the replies,
``/proc/PID``.
"""

from __future__ import annotations

import ipaddress
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from jaxviz.engine import EngineClient
from jaxviz.model.engine import Reply
from tests.helpers.engine import READY_S, alive, trace, wait_for_file

# Not in the fast tier: real engine processes.
pytestmark = pytest.mark.slow

#: A reply line as jaxviz writes it, but without the engine's token.
FORGED = ('{"op":"reply","id":1,"reply":{"schema":2,"record":{"__type__":"Reply","id":1,'
          '"ok":false}}}')
WRITE_EVERYWHERE = (f"line = {FORGED!r}.encode() + b'\\n'\n"
                    "for fd in range(3, 30):\n"
                    "    try:\n        os.write(fd, line)\n"
                    "    except OSError:\n        pass\n"
                    "return x")


def children(pid: int) -> list[int]:
    """Every live descendant of ``pid`` (read from /proc)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        kids = [p for p, parent in parents.items() if parent == current]
        found += kids
        todo += kids
    return found


def listening(pids: list[int]) -> list[ipaddress.IPv4Address | ipaddress.IPv6Address]:
    """The local addresses of the TCP sockets these processes listen on (/proc/net/tcp{,6})."""
    inodes = set()
    for pid in pids:
        with_fds = Path(f"/proc/{pid}/fd")
        try:
            links = [os.readlink(fd) for fd in with_fds.iterdir()]
        except OSError:
            continue
        inodes |= {link[8:-1] for link in links if link.startswith("socket:[")}
    found = []
    for table, size in (("/proc/net/tcp", 4), ("/proc/net/tcp6", 16)):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            address, state, inode = fields[1], fields[3], fields[9]
            if state != "0A" or inode not in inodes:  # 0A: LISTEN
                continue
            raw = bytes.fromhex(address.split(":")[0])
            # The kernel prints each 32-bit word in host (little-endian) order.
            packed = b"".join(raw[i:i + 4][::-1] for i in range(0, size, 4))
            found.append(ipaddress.ip_address(packed))
    return found


def loopback(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    mapped = getattr(address, "ipv4_mapped", None)
    return address.is_loopback or (mapped is not None and mapped.is_loopback)


@pytest.mark.slow
def test_multihost_listens_on_loopback_only(tmp_path):
    (tmp_path / "slow.py").write_text("import time\n\ndef f(x):\n    time.sleep(4)\n"
                                      "    return x\n")
    run = subprocess.Popen([sys.executable, "-m", "jaxviz", "multihost", "slow.py:f"],
                           cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
    seen: set = set()
    try:
        deadline = time.monotonic() + READY_S
        # Until the workers have met (the coordinator and both gloo peers listen).
        while len(seen) < 3 and run.poll() is None and time.monotonic() < deadline:
            seen |= set(listening(children(run.pid)))
            time.sleep(0.1)
        out, err = run.communicate(timeout=READY_S)
    finally:
        run.kill()
    assert run.returncode == 0, err
    assert len(seen) >= 2, f"no listeners seen while the processes ran: {seen}"
    assert all(loopback(a) for a in seen), f"listening beyond loopback: {sorted(map(str, seen))}"


def test_a_forged_reply_is_refused_as_forgery_and_the_engine_replaced():
    c = EngineClient(devices=1, standby=False)
    try:
        c.start(wait=True)
        first = c.info.pid
        reply: Reply = c.submit(trace(WRITE_EVERYWHERE)).result(READY_S)
        assert not reply.ok and reply.error.kind == "forgery"
        assert reply.error.message.startswith("refused a forged reply while tracing `f`: a line "
                                              "on the engine's private channel did not carry")
        assert "another jaxviz version" not in reply.error.message
        assert '"op":"reply"' in reply.error.details  # what was refused, for --debug
        assert c.submit(trace("return x + 1")).result(READY_S).ok  # on a fresh engine
        assert c.info.pid != first
    finally:
        c.stop()


def test_an_engine_without_tokens_is_refused_as_another_version():
    from jaxviz.engine import faults

    ready = {"op": "ready", "schema": 2, "jaxviz": "0.1"}
    assert "does not sign its messages" in faults.refusal(ready, 2, "0.2", None)
    assert faults.refusal({**ready, "token": "t"}, 2, "0.2", None) is None


SPAWN_SLEEP = ("import subprocess\n"
               "p = subprocess.Popen(['sleep', '300'])\n"
               "open({path!r}, 'w').write(str(p.pid))\n"
               "return x")


def _wait_gone(pid: int, seconds: float = 30) -> bool:
    deadline = time.monotonic() + seconds
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not alive(pid)


def test_a_process_started_by_user_code_ends_with_a_normal_stop(tmp_path):
    pid_file = tmp_path / "sleep.pid"
    c = EngineClient(devices=1, standby=False)
    try:
        reply = c.submit(trace(SPAWN_SLEEP.format(path=str(pid_file)))).result(READY_S)
        assert reply.ok, reply.error
        sleeper = int(pid_file.read_text())
        assert alive(sleeper)
    finally:
        c.stop()  # idle: the engine exits at the end of its input (no kill)
    assert _wait_gone(sleeper), f"`sleep 300` (pid {sleeper}) outlived its engine"


def test_a_process_started_by_user_code_ends_with_the_command(tmp_path):
    pid_file = tmp_path / "sleep.pid"
    (tmp_path / "spawns.py").write_text(
        "import subprocess\n\ndef f(x):\n" + "".join(
            f"    {line}\n" for line in SPAWN_SLEEP.format(path=str(pid_file)).splitlines()))
    out = subprocess.run([sys.executable, "-m", "jaxviz", "run", "spawns.py:f", "--args",
                          "f32[3]"], cwd=tmp_path, capture_output=True, text=True,
                         timeout=READY_S)
    assert out.returncode == 0, out.stderr
    sleeper = int(pid_file.read_text())
    assert _wait_gone(sleeper), f"`sleep 300` (pid {sleeper}) outlived `jaxviz run`"


def test_a_process_started_by_user_code_ends_when_the_request_is_cancelled(tmp_path):
    pid_file = tmp_path / "sleep.pid"
    c = EngineClient(devices=1, standby=False)
    try:
        body = SPAWN_SLEEP.format(path=str(pid_file)).replace("return x", "while True:\n"
                                                                          "    pass")
        handle = c.submit(trace(body))
        wait_for_file(pid_file)
        time.sleep(0.1)  # the pid is written
        sleeper = int(pid_file.read_text())
        c.cancel(handle.id)
        assert handle.result(READY_S).error.kind == "cancelled"
        assert _wait_gone(sleeper), f"`sleep 300` (pid {sleeper}) outlived a cancel"
    finally:
        c.stop()
