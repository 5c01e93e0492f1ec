"""Multi-host scaling on one machine: several JAX processes acting as one.

:func:`run_multihost` starts ``processes`` child processes (each with
``local_devices`` simulated CPU devices) that find each other through a
coordinator on the loopback interface (it listens on 127.0.0.1, nowhere
else), as hosts of a cluster do through
``jax.distributed.initialize``. Together they form one global mesh; a
collective such as ``psum`` crosses process boundaries (gloo CPU collectives).

The workers are child processes because a peer that never arrives aborts
JAX's distributed runtime (SIGABRT): that must cost a worker, not the caller.
Each worker (:mod:`jaxviz.worker.multihost_worker`) replies over the engine's
protocol on its stdout. This module itself never imports JAX.
"""

from __future__ import annotations

import contextlib
import io
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from jaxviz.engine import protocol, reaper
from jaxviz.engine.process import exit_reason, kill_group
from jaxviz.model import ErrorInfo, SchemaMismatch, TraceResult, from_plain
from jaxviz.model.errors import UserError, check_syntax
from jaxviz.model.sources import resolve_target


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

    The target is read and compiled here first (nothing runs), so a missing
    file, an unknown example or function, bytes that are not UTF-8 and syntax
    errors are reported before any process starts. The coordinator listens on
    127.0.0.1 only. Every worker runs in its own process group, which is
    killed once the run is over, however it ended: nothing the function
    started outlives the run.

    Returns:
        One report per process, in process order.

    Raises:
        UserError: bad counts or target; the first cause a worker reported
            (an exception in the function, with its line), or how a worker
            ended without one (signal or exit code, the end of its stderr);
            a run that timed out; a worker whose report was malformed or
            forged.
    """
    if processes < 1 or local_devices < 1:
        raise UserError(ErrorInfo(kind="option", message="--processes and --devices must be "
                                                         "at least 1"))
    resolved, _ = resolve_target(target)
    check_syntax(resolved.source, resolved.filename)
    coordinator = f"127.0.0.1:{_free_loopback_port()}"
    reaper.become_subreaper()  # a crashed worker's orphans come here (see engine.reaper)
    cmd = [sys.executable, "-m", "jaxviz.worker.multihost_worker", "--coordinator", coordinator,
           "--num-processes", str(processes), "--local-devices", str(local_devices),
           "--target", target, "--axis-name", axis_name]
    tokens = [protocol.new_token() for _ in range(processes)]
    workers: list[subprocess.Popen[bytes]] = []
    try:
        for i, token in enumerate(tokens):
            worker = subprocess.Popen(cmd + ["--process-id", str(i)], stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                      start_new_session=True)
            workers.append(worker)
            stdin, worker.stdin = worker.stdin, None  # communicate() must not touch it
            assert stdin is not None  # a PIPE
            with contextlib.suppress(OSError):  # a worker that died at once says why later
                stdin.write(protocol.hello(token))
                stdin.close()
        outputs = _collect(workers, timeout)
    finally:
        for worker in workers:
            reaper.kill_descendants(worker.pid)  # what it detached (it is their subreaper)
            kill_group(worker.pid)  # the worker, if still running, and what it started
            worker.wait()
            reaper.sweep_orphans_of(worker.pid)  # what a crashed worker left (to us)
    return _reports(workers, outputs, tokens)


#: Seconds the other processes get to report once one has died.
PEER_GRACE_SECONDS = 2.0


def _collect(workers: list[subprocess.Popen[bytes]], timeout: float
             ) -> list[tuple[bytes, bytes, float]]:
    """Every worker's stdout, stderr and when it ended (``time.monotonic``), once all have.

    Each worker is waited for on a thread of its own, so the order in which they
    ended is known: when one dies, its peers abort after it, and the first to
    end is the one to name.

    Raises:
        UserError: (``kind="timeout"``) they did not end within ``timeout`` seconds.
    """
    deadline = time.monotonic() + timeout
    ended: dict[int, tuple[bytes, bytes, float]] = {}
    failed = threading.Event()

    def wait(i: int, w: subprocess.Popen[bytes]) -> None:
        with contextlib.suppress(subprocess.TimeoutExpired, OSError, ValueError):
            out, err = w.communicate(timeout=timeout)
            ended[i] = (out, err, time.monotonic())
            if w.returncode != 0:
                failed.set()

    threads = [threading.Thread(target=wait, args=(i, w), daemon=True,
                                name=f"jaxviz-multihost-{i}") for i, w in enumerate(workers)]
    for t in threads:
        t.start()
    while any(t.is_alive() for t in threads) and time.monotonic() < deadline:
        if failed.wait(0.1):
            # One process died: its peers would wait for the runtime's heartbeat (about
            # 100 s) before they abort. Give them a moment to report, then stop them.
            time.sleep(PEER_GRACE_SECONDS)
            for i, w in enumerate(workers):
                if i not in ended:
                    kill_group(w.pid)
            break
    for t in threads:
        t.join(max(deadline - time.monotonic(), 0.1))
    if len(ended) < len(workers):
        raise UserError(ErrorInfo(kind="timeout", message=(
            f"the {len(workers)} processes did not finish within {timeout:g} s "
            f"(--timeout); they were stopped")))
    return [ended[i] for i in range(len(workers))]


def _reports(workers: list[subprocess.Popen[bytes]], outputs: list[tuple[bytes, bytes, float]],
             tokens: list[str]) -> list[ProcessReport]:
    """The workers' reports in process order, or the first cause of a failure."""
    replies = [_reply(i, out, token) for i, ((out, _, _), token) in
               enumerate(zip(outputs, tokens))]
    # A worker whose function raised says why; its peers then fail only because it left.
    for i, message in enumerate(replies):
        if message is not None and message.get("error") is not None:
            info = _error_of(message["error"], i)
            raise UserError(info)
    failed = [i for i, (w, message) in enumerate(zip(workers, replies))
              if w.returncode != 0 or not isinstance((message or {}).get("report"), dict)]
    if failed:
        # The first to end is the cause; the others (the distributed runtime aborts a
        # process whose peer is gone) failed because it did.
        first = min(failed, key=lambda i: outputs[i][2])
        w, err = workers[first], outputs[first][1]
        tail = err[-3000:].decode("utf-8", "replace").strip()
        last = tail.splitlines()[-1] if tail else ""
        others = [i for i in failed if i != first]
        after = (f"; then process{'es' if len(others) > 1 else ''} "
                 f"{', '.join(map(str, others))} failed because it was gone") if others else ""
        raise UserError(ErrorInfo(kind="crash", details=tail or None, message=(
            f"process {first} failed first ({exit_reason(w.returncode)}) without a report"
            + (f": {last}" if last else "") + after)))
    reports = []
    for i, message in enumerate(replies):
        data = (message or {})["report"]
        result = data.get("result")
        try:
            reports.append(ProcessReport(
                process_index=int(data["process_index"]),
                local_device_ids=list(data["local_device_ids"]), shards=list(data["shards"]),
                global_devices=list(data["global_devices"]), jaxpr=str(data["jaxpr"]),
                hlo=str(data.get("hlo", "")), result=result if isinstance(result, dict) else None))
        except (KeyError, TypeError, ValueError) as exc:
            raise UserError(ErrorInfo(kind="crash", message=(
                f"process {i} sent a malformed report ({type(exc).__name__}: {exc})"))) from None
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


def _reply(index: int, stdout: bytes, token: str) -> dict[str, Any] | None:
    """The reply in a worker's protocol messages; None if it sent none.

    Raises:
        UserError: (``kind="forgery"``) a line that does not carry the worker's token.
    """
    stream = io.BytesIO(stdout)
    try:
        while (message := protocol.receive_signed(stream, token)) is not None:
            if message.get("op") == protocol.REPLY:
                return message
    except protocol.ProtocolError as exc:  # a forged line, or pieces that do not fit
        raise UserError(ErrorInfo(kind="forgery", message=f"process {index}: {exc}")) from None
    return None


def _error_of(plain: Any, index: int) -> ErrorInfo:
    """The :class:`ErrorInfo` a worker sent, its message naming the process."""
    try:
        info = from_plain(plain)
    except (SchemaMismatch, KeyError, TypeError):
        info = None
    if not isinstance(info, ErrorInfo):
        return ErrorInfo(kind="crash", message=f"process {index} failed with an unreadable "
                                               f"error report")
    info.message = f"process {index}: {info.message}"
    return info
