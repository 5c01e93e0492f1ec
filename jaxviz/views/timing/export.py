"""Write timing runs as CSV, JSON and Chrome trace events (pure Python writers).

* ``timings.csv`` -- one row per call (and per device of multi-device calls),
  columns :data:`CSV_COLUMNS`; times in milliseconds relative to the run's origin.
* ``timings.json`` -- the whole :class:`~jaxviz.model.timing.TimingRun` through the
  record codec; :func:`read_json` gives it back.
* ``trace.json`` -- the Chrome trace event format (open it in https://ui.perfetto.dev
  or chrome://tracing): per variant one process with a host dispatch track, a
  host wait track and one track per device.

Rows of ``timings.csv``:

* phase ``warmup``/``steady``/``pipelined``/``sweep``: a call; ``start_ms`` when it
  was issued, ``dispatch_ms`` when it returned, ``complete_ms`` when its result
  was ready; ``device`` is empty. Multi-device calls add one row per device
  with ``complete_ms`` the moment that device's shard was seen ready.
* phase ``first``: the first execution of the first call (for op-by-op, vmap and
  the loop, which JAX does not compile as a whole, it also traces and compiles
  each operation as it runs); ``trace``, ``lower``, ``compile``: the first
  call's ahead-of-time stages (``start_ms`` to ``complete_ms``; no dispatch).
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from jaxviz.model.files import RECORDING_BYTES, parse_json, read_bytes
from jaxviz.model.limits import SWEEP_SIZE
from jaxviz.model.records import from_plain, to_plain
from jaxviz.model.timing import TimingRun, variant_label

#: The columns of ``timings.csv``, in order.
CSV_COLUMNS = ("variant", "run", "phase", "dispatch_ms", "complete_ms", "device", "size",
               "start_ms", "t0_ms")


def _ms(ns: int | None) -> str:
    return "" if ns is None else f"{ns / 1e6:.6f}"


def csv_rows(run: TimingRun) -> list[dict[str, str]]:
    """The rows of ``timings.csv`` as dicts keyed by :data:`CSV_COLUMNS`."""
    rows: list[dict[str, str]] = []
    for first in run.first_calls:
        t = 0
        for name, ns in first.phases():
            row = {"variant": first.variant, "run": "0", "t0_ms": _ms(first.t0_ns),
                   "start_ms": _ms(t), "complete_ms": _ms(t + ns), "size": "", "device": ""}
            if name in ("execute", "first call"):
                row.update(phase="first", dispatch_ms=_ms(t + first.dispatch_ns))
            else:
                row.update(phase=name, dispatch_ms="")
            rows.append(row)
            t += ns
    for c in run.calls:
        base = {"variant": c.variant, "run": str(c.run), "phase": c.phase,
                "t0_ms": _ms(c.t0_ns), "start_ms": _ms(c.t_start_ns),
                "dispatch_ms": _ms(c.t_dispatch_ns), "size": "" if c.size is None else str(c.size)}
        rows.append({**base, "complete_ms": _ms(c.t_complete_ns), "device": ""})
        for d in c.devices:
            rows.append({**base, "complete_ms": _ms(d.t_ready_ns), "device": str(d.device)})
    return rows


def write_csv(run: TimingRun, path: str | Path) -> Path:
    """Write ``timings.csv``; returns its path."""
    path = Path(path)
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=CSV_COLUMNS)
        writer.writeheader()
        writer.writerows(csv_rows(run))
    return path


def write_json(run: TimingRun, path: str | Path) -> Path:
    """Write the whole run through the record codec; :func:`read_json` reloads it."""
    path = Path(path)
    path.write_text(json.dumps(to_plain(run), indent=1), encoding="utf-8")
    return path


def read_json(path: str | Path) -> TimingRun:
    """Load a run written by :func:`write_json`.

    The file is read as every file is (:mod:`jaxviz.model.files`: a regular
    file, at most :data:`~jaxviz.model.files.RECORDING_BYTES`, within a time
    limit) and its JSON nested at most :data:`~jaxviz.model.files.MAX_DEPTH` deep.

    Raises:
        ValueError: the file cannot be read (a
            :class:`~jaxviz.model.files.FileProblem`), or is not a jaxviz
            timing recording (not UTF-8, not
            JSON, not jaxviz data, another schema, another kind of record); the
            message says which.
    """
    raw = read_bytes(path, limit=RECORDING_BYTES, what="timing recording")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"it is not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset "
                         f"{exc.start})") from None
    try:
        data = parse_json(text, str(path))
    except json.JSONDecodeError as exc:
        raise ValueError(f"it is not JSON ({exc.msg} at line {exc.lineno}, column "
                         f"{exc.colno})") from None
    run = from_plain(data, check_types=True)
    if not isinstance(run, TimingRun):
        raise ValueError(f"{path} holds a {type(run).__name__}, not a timing run")
    for number, call in enumerate(run.calls):
        if call.size is not None and not SWEEP_SIZE.contains(call.size):
            raise ValueError(f"a malformed jaxviz record: call {number} has the sweep size "
                             f"{call.size}; {SWEEP_SIZE.what} is {SWEEP_SIZE.describe()}")
    return run


# --------------------------------------------------------------------------- #
# Chrome trace events
# --------------------------------------------------------------------------- #

_HOST_DISPATCH, _HOST_WAIT, _HOST_FIRST = 1, 2, 3
_DEVICE_TID = 100


def _us(ns: int) -> float:
    return ns / 1000.0


def chrome_trace(run: TimingRun) -> dict[str, Any]:
    """The run as a Chrome trace (JSON object format, complete ``"X"`` events).

    Per variant one process (``pid``); its threads are the host dispatch track
    (the call, until it returned), the host wait track (``block_until_ready``,
    until the result was ready), the first call's stages, and one track per
    device. A device track's slice for a call runs from when the device could
    start it (the call was issued and the device's previous result was ready:
    devices run their calls in order) to when its result was seen ready.
    """
    events: list[dict[str, Any]] = []
    names = run.variant_names()
    for pid, variant in enumerate(names, start=1):
        label = variant_label(variant)
        events.append(_meta("process_name", pid, 0, f"{label} ({variant})"))
        events.append(_meta("process_sort_index", pid, 0, pid, key="sort_index"))
        tracks = {_HOST_DISPATCH: "host: call until it returned (dispatch)",
                  _HOST_WAIT: "host: block_until_ready until the result was ready",
                  _HOST_FIRST: "host: first call (trace, lower, compile, execute)"}
        first = run.first_call(variant)
        if first is not None:
            t = first.t0_ns
            for name, ns in first.phases():
                events.append(_x(f"first call: {name}", "first", pid, _HOST_FIRST, t, ns,
                                 {"ms": ns / 1e6}))
                t += ns
        device_last: dict[int, int] = {}
        info = run.info(variant)
        default_devices = info.devices if info and info.devices else [0]
        calls = sorted(run.calls_of(variant), key=lambda c: c.t0_ns + c.t_complete_ns)
        piped = [c.t0_ns + c.t_dispatch_ns for c in calls if c.phase == "pipelined"]
        host_free = 0  # the host awaits results one at a time, after dispatching
        for c in calls:
            start = c.t0_ns + c.t_start_ns
            dispatch = c.t0_ns + c.t_dispatch_ns
            complete = c.t0_ns + c.t_complete_ns
            name = f"{c.phase} {c.run}" + (f" (size {c.size})" if c.size is not None else "")
            args = {"dispatch_ms": c.dispatch_ns / 1e6, "complete_ms": c.complete_ns / 1e6}
            events.append(_x(name, c.phase, pid, _HOST_DISPATCH, start, dispatch - start, args))
            wait = max(dispatch, host_free, max(piped) if c.phase == "pipelined" else 0)
            events.append(_x(name, c.phase, pid, _HOST_WAIT, wait, complete - wait, args))
            host_free = max(host_free, complete)
            ready = {d.device: c.t0_ns + d.t_ready_ns for d in c.devices} or \
                {d: complete for d in default_devices}
            for dev, t_ready in ready.items():
                begin = max(start, device_last.get(dev, start))
                events.append(_x(name, c.phase, pid, _DEVICE_TID + dev, begin,
                                 max(t_ready - begin, 0), {**args, "device": dev}))
                device_last[dev] = max(t_ready, device_last.get(dev, 0))
        for dev in sorted(device_last):
            tracks[_DEVICE_TID + dev] = f"device {dev}: from start to result ready"
        for tid, tname in tracks.items():
            events.append(_meta("thread_name", pid, tid, tname))
            events.append(_meta("thread_sort_index", pid, tid, tid, key="sort_index"))
    other = {}
    if run.header is not None:
        h = run.header
        other = {"jax": h.jax, "jaxlib": h.jaxlib, "backend": h.backend,
                 "devices": f"{h.device_count} x {h.device_kind}",
                 "simulated": h.simulated, "host_cpu": h.host_cpu, "date": h.date,
                 "function": f"{h.filename}:{h.function}", "args": h.args,
                 "async_dispatch": h.async_dispatch, "clock": h.clock}
    return {"traceEvents": events, "displayTimeUnit": "ms", "otherData": other}


def _x(name: str, cat: str, pid: int, tid: int, ts_ns: int, dur_ns: int,
       args: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "cat": cat, "ph": "X", "pid": pid, "tid": tid,
            "ts": _us(ts_ns), "dur": _us(max(dur_ns, 0)), "args": args}


def _meta(name: str, pid: int, tid: int, value: Any, key: str = "name") -> dict[str, Any]:
    return {"name": name, "ph": "M", "pid": pid, "tid": tid, "args": {key: value}}


def write_chrome_trace(run: TimingRun, path: str | Path) -> Path:
    """Write ``trace.json`` (Chrome trace event format; opens in Perfetto)."""
    path = Path(path)
    path.write_text(json.dumps(chrome_trace(run)), encoding="utf-8")
    return path
