"""Multi-host scaling on one machine: several JAX processes acting as one.

:func:`run_multihost` starts ``processes`` child processes (each with
``local_devices`` simulated CPU devices) that find each other through a
coordinator on the loopback interface, as hosts of a cluster do through
``jax.distributed.initialize``. Together they form one global mesh; a
collective such as ``psum`` crosses process boundaries (gloo CPU collectives).

The workers are child processes because a peer that never arrives aborts
JAX's distributed runtime (SIGABRT): that must cost a worker, not the caller.
Each worker (:mod:`jaxviz.engine.multihost_worker`) replies over the engine's
protocol on its stdout. This module itself never imports JAX.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field

from jaxviz.engine import protocol
from jaxviz.engine.process import exit_reason
from jaxviz.model import ErrorInfo, SchemaMismatch, TraceResult, from_plain
from jaxviz.model.errors import UserError


@dataclass
class ProcessReport:
    """What one process saw: its devices, the shards it computed, the program it ran.

    ``result`` is the plain form (:func:`~jaxviz.model.to_plain`) of a
    :class:`~jaxviz.model.TraceResult` with the ``shard_map`` variant's jaxpr
    and storyboard, read by this process from the compiled multi-process
    program.
    """

    process_index: int
    local_device_ids: list[int]
    shards: list[dict]
    global_devices: list[dict] = field(default_factory=list)
    jaxpr: str = ""
    hlo: str = ""
    result: dict | None = None


def _free_loopback_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_multihost(target: str = "example:multi_host", processes: int = 2,
                  local_devices: int = 4, axis_name: str = "hosts",
                  timeout: float = 120.0) -> list[ProcessReport]:
    """Run the target function across ``processes`` cooperating JAX processes.

    Returns:
        One report per process, in process order.

    Raises:
        UserError: bad counts, a worker that failed (with its signal or exit
            code and the end of its stderr), or a run that timed out.
    """
    if processes < 1 or local_devices < 1:
        raise UserError(ErrorInfo(kind="option", message="--processes and --devices must be "
                                                         "at least 1"))
    coordinator = f"127.0.0.1:{_free_loopback_port()}"
    cmd = [sys.executable, "-m", "jaxviz.engine.multihost_worker", "--coordinator", coordinator,
           "--num-processes", str(processes), "--local-devices", str(local_devices),
           "--target", target, "--axis-name", axis_name]
    workers = [subprocess.Popen(cmd + ["--process-id", str(i)], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)
               for i in range(processes)]
    deadline = time.monotonic() + timeout
    outputs: list[tuple[bytes, bytes]] = [(b"", b"")] * processes
    try:
        for i, w in enumerate(workers):
            remaining = max(deadline - time.monotonic(), 0.1)
            outputs[i] = w.communicate(timeout=remaining)
    except subprocess.TimeoutExpired:
        raise UserError(ErrorInfo(kind="timeout", message=f"the {processes} processes did not "
                                  f"finish within {timeout:g} s")) from None
    finally:
        for w in workers:
            if w.poll() is None:
                w.kill()
                w.wait()
    reports = []
    for i, (w, (out, err)) in enumerate(zip(workers, outputs)):
        data = _report(out)
        if w.returncode != 0 or data is None:
            raise UserError(ErrorInfo(kind="crash", message=f"process {i} failed "
                                      f"({exit_reason(w.returncode)})",
                                      details=err[-3000:].decode("utf-8", "replace")))
        reports.append(ProcessReport(process_index=data["process_index"],
                                     local_device_ids=data["local_device_ids"],
                                     shards=data["shards"],
                                     global_devices=data["global_devices"],
                                     jaxpr=data["jaxpr"], hlo=data.get("hlo", ""),
                                     result=data.get("result")))
    return sorted(reports, key=lambda r: r.process_index)


def multihost_trace(target: str = "example:multi_host", processes: int = 2,
                    local_devices: int = 4, axis_name: str = "hosts",
                    timeout: float = 120.0) -> TraceResult:
    """The ``shard_map`` variant of a real multi-process run: its jaxpr and storyboard.

    The storyboard is process 0's reading of the compiled program that every
    process ran; its devices are those of all processes, each with its
    process index.

    Raises:
        UserError: as :func:`run_multihost`, or a worker whose report has no result.
    """
    reports = run_multihost(target, processes, local_devices, axis_name, timeout)
    data = reports[0].result
    try:
        result = from_plain(data) if data is not None else None
    except SchemaMismatch as exc:
        raise UserError(ErrorInfo(kind="crash", message=f"process 0 sent a result jaxviz "
                                  f"cannot read: {exc}")) from None
    if not isinstance(result, TraceResult):
        raise UserError(ErrorInfo(kind="crash", message="process 0 sent no trace result"))
    return result


def _report(stdout: bytes) -> dict | None:
    """The report in a worker's protocol messages; None if it sent none (or garbage)."""
    for line in stdout.splitlines():
        try:
            message = protocol.decode(line)
        except protocol.ProtocolError:
            return None
        if message["op"] == protocol.REPLY:
            return message.get("report")
    return None
