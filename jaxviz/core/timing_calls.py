"""Measuring calls: dispatch versus completion, first-call stages, pipelines, devices.

The clock is :func:`time.perf_counter_ns` (monotonic, nanoseconds). A call's
*dispatch* is the moment it returned to Python; its *completion* is the moment
``jax.block_until_ready`` returned on its output. Nothing but the call and the
clock reads sits between the two timestamps of a measurement, and results are
released outside the measured region (freeing a buffer is not the call's cost).

Per-device readiness of outputs spread over several devices is polled with
``shard.data.is_ready()`` every :data:`POLL_INTERVAL_S` (sleeping in between,
so the polling thread leaves the cores to the computation); a device's time is
the first poll that saw its shards ready, an upper bound within one interval.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import jax

from jaxviz.model.timing import DeviceReady

clock = time.perf_counter_ns

#: Sleep between two polls of the shards' readiness.
POLL_INTERVAL_S = 50e-6

CLOCK_NAME = "time.perf_counter_ns (monotonic)"


@dataclass
class Measured:
    """Timestamps of one call, relative to ``t0`` (an absolute clock reading)."""

    t0: int
    start: int
    dispatch: int
    complete: int
    devices: list[DeviceReady] = field(default_factory=list)
    out_devices: list[int] = field(default_factory=list)


def _shards_by_device(out: Any) -> dict[int, list[Any]]:
    """The shards of the multi-device arrays of an output tree, by device id."""
    found: dict[int, list[Any]] = {}
    for leaf in jax.tree.leaves(out):
        if isinstance(leaf, jax.Array) and len(leaf.sharding.device_set) > 1:
            for shard in leaf.addressable_shards:
                found.setdefault(int(shard.device.id), []).append(shard.data)
    return found


def output_devices(out: Any) -> list[int]:
    """Ids of the devices an output tree lives on."""
    ids: set[int] = set()
    for leaf in jax.tree.leaves(out):
        if isinstance(leaf, jax.Array):
            # (jaxlib's stubs leave Device untyped; every Device has an id)
            ids.update(int(d.id) for d in leaf.sharding.device_set)  # type: ignore[attr-defined]
    return sorted(ids)


def poll_ready(outs: list[Any], t0: int) -> list[list[DeviceReady]]:
    """When each device's shards of each output were first seen ready, relative to ``t0``.

    Returns one list per output (empty for outputs on a single device).
    """
    pending = [(i, dev, datas) for i, out in enumerate(outs)
               for dev, datas in _shards_by_device(out).items()]
    ready: list[list[DeviceReady]] = [[] for _ in outs]
    while pending:
        still = []
        for i, dev, datas in pending:
            if all(d.is_ready() for d in datas):
                ready[i].append(DeviceReady(device=dev, t_ready_ns=clock() - t0))
            else:
                still.append((i, dev, datas))
        pending = still
        if pending:
            time.sleep(POLL_INTERVAL_S)
    for devices in ready:
        devices.sort(key=lambda d: d.device)
    return ready


def call_once(fn: Callable, args: list[Any], per_device: bool,
              want_devices: bool = False) -> Measured:
    """Call ``fn(*args)``: when it returned, when its result was ready.

    ``want_devices`` also notes the devices the output lives on (after timing).
    """
    t0 = clock()
    out = fn(*args)
    t1 = clock()
    devices = poll_ready([out], t0)[0] if per_device else []
    wait = getattr(out, "block_until_ready", None)
    if wait is not None:
        wait()  # as the plain script does it: no tree walk between two calls
    else:
        jax.block_until_ready(out)
    t2 = clock()
    where = output_devices(out) if want_devices else []
    del out
    return Measured(t0=t0, start=0, dispatch=t1 - t0, complete=t2 - t0, devices=devices,
                    out_devices=where)


@dataclass
class Stages:
    """The first call of a compiled variant, stage by stage (ns)."""

    t0: int
    trace: int | None
    lower: int
    compile: int
    dispatch: int
    execute: int
    compiled: Any
    out_devices: list[int]


def first_call_stages(make: Callable[[], Any], args: list[Any]) -> Stages:
    """Trace, lower, compile and run a fresh wrapper once, timing each stage.

    JAX's caches are cleared first, so the stages do the work a first call
    does. Wrappers without ``.trace`` (``pmap``) trace while lowering. The
    first execution includes moving the arguments to the devices, as a
    user's first call would.
    """
    jax.clear_caches()
    wrapper = make()
    t0 = clock()
    if hasattr(wrapper, "trace"):
        traced = wrapper.trace(*args)
        t1 = clock()
        lowered = traced.lower()
    else:
        t1 = None
        lowered = wrapper.lower(*args)
    t2 = clock()
    compiled = lowered.compile()
    t3 = clock()
    out = compiled(*args)
    t4 = clock()
    jax.block_until_ready(out)
    t5 = clock()
    where = output_devices(out)
    del out
    return Stages(out_devices=where, t0=t0, trace=None if t1 is None else t1 - t0,
                  lower=t2 - (t0 if t1 is None else t1), compile=t3 - t2,
                  dispatch=t4 - t3, execute=t5 - t3, compiled=compiled)


def implicit_first_call(make: Callable[[], Any], args: list[Any]) -> int:
    """A plain first call ``make()(*args)`` after clearing caches, until ready (ns)."""
    jax.clear_caches()
    wrapper = make()
    t0 = clock()
    out = wrapper(*args)
    jax.block_until_ready(out)
    elapsed = clock() - t0
    del out
    return elapsed


def place(args: list[Any], compiled: Any) -> list[Any]:
    """Put the arguments where the compiled program wants them (before timing)."""
    try:
        shardings = compiled.input_shardings[0]
        placed = jax.device_put(list(args), list(shardings))
    except (TypeError, ValueError, AttributeError):
        return list(args)
    return jax.block_until_ready(placed)


def chainable(out: Any, args: list[Any]) -> bool:
    """True when ``out`` can replace the first argument without moving data."""
    if not args or not isinstance(out, jax.Array) or not isinstance(args[0], jax.Array):
        return False
    first = args[0]
    return (out.shape == first.shape and out.dtype == first.dtype
            and out.sharding.is_equivalent_to(first.sharding, out.ndim))


@dataclass
class Pipelined:
    """K calls dispatched back to back, then awaited in order."""

    chained: bool
    calls: list[Measured]


class ShardWatcher(threading.Thread):
    """Polls, from a background thread, the shards of outputs as they are produced.

    Used while a pipeline is being dispatched, so a device's part of an early
    call is seen ready when it becomes ready, not only once every call has
    been dispatched. The thread sleeps between polls; handing it an output is
    a queue put (about a microsecond) between two dispatches.
    """

    def __init__(self, t0: int):
        super().__init__(name="jaxviz-shard-watcher", daemon=True)
        self.t0 = t0
        self.ready: dict[int, list[DeviceReady]] = {}
        self.error: BaseException | None = None
        self._new: queue.SimpleQueue = queue.SimpleQueue()
        self._closed = threading.Event()

    def add(self, index: int, out: Any) -> None:
        self._new.put((index, out))

    def close(self) -> dict[int, list[DeviceReady]]:
        """Wait until every shard handed over was seen ready; the ready times by call."""
        self._closed.set()
        self.join()
        if self.error is not None:
            raise self.error
        for devices in self.ready.values():
            devices.sort(key=lambda d: d.device)
        return self.ready

    def run(self) -> None:
        pending: list[tuple[int, int, list[Any]]] = []
        try:
            while True:
                closing = self._closed.is_set()
                while not self._new.empty():
                    index, out = self._new.get()
                    self.ready.setdefault(index, [])
                    pending += [(index, dev, datas)
                                for dev, datas in _shards_by_device(out).items()]
                    del out
                still = []
                for index, dev, datas in pending:
                    if all(d.is_ready() for d in datas):
                        self.ready[index].append(DeviceReady(dev, clock() - self.t0))
                    else:
                        still.append((index, dev, datas))
                pending = still
                if closing and not pending and self._new.empty():
                    return
                time.sleep(POLL_INTERVAL_S)
        except BaseException as exc:  # noqa: BLE001 - reported by close()
            self.error = exc


def pipeline(fn: Callable, args: list[Any], k: int, chain: bool, per_device: bool) -> Pipelined:
    """Dispatch ``k`` calls without blocking, then await each result in order.

    With ``chain``, call ``i + 1`` takes call ``i``'s output as its first
    argument (the computations depend on each other). With ``per_device``
    (for outputs spread over several devices), a :class:`ShardWatcher` polls
    each device's shards from the first dispatch on; a call's completion is
    then the moment its last shard was seen ready.
    """
    outs: list[Any] = []
    starts: list[int] = []
    dispatches: list[int] = []
    current = list(args)
    t0 = clock()
    watcher = ShardWatcher(t0) if per_device else None
    if watcher is not None:
        watcher.start()
    for i in range(k):
        ts = clock()
        out = fn(*current)
        td = clock()
        starts.append(ts - t0)
        dispatches.append(td - t0)
        outs.append(out)
        if watcher is not None:
            watcher.add(i, out)
        if chain:
            current = [out, *current[1:]]
    del current
    ready = watcher.close() if watcher is not None else {}
    per_call = [ready.get(i, []) for i in range(len(outs))]
    completes = []
    for out, devices in zip(outs, per_call):
        jax.block_until_ready(out)
        seen = clock() - t0
        completes.append(max(d.t_ready_ns for d in devices) if devices else seen)
    del outs
    calls = [Measured(t0=t0, start=s, dispatch=d, complete=c, devices=devs)
             for s, d, c, devs in zip(starts, dispatches, completes, per_call)]
    return Pipelined(chained=chain, calls=calls)
