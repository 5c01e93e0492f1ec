"""One process of a multi-process JAX run (``python -m jaxviz.worker.multihost_worker``).

Started by :mod:`jaxviz.engine.multihost`, never by hand: it joins the other
processes through ``jax.distributed.initialize`` (loopback coordinator, gloo
CPU collectives), contributes its process-local slice of a global array, runs
the example function under ``jit(shard_map(...))`` over a mesh of every
device of every process, and replies with what it saw over the engine's
protocol (:mod:`jaxviz.engine.protocol`, on private descriptors: what JAX
prints goes to stderr): the shards it computed and, as a plain
:class:`~jaxviz.model.TraceResult`, the jaxpr and storyboard of the real
multi-process program (every device of every process with its process index).
It exits when its parent is gone.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from jaxviz.engine import protocol
from jaxviz.engine.child import Channel, watch_parent, yield_to_the_window
from jaxviz.engine.reaper import MARK, become_subreaper, sweep_descendants


def main(argv: list[str] | None = None) -> int:
    yield_to_the_window()  # a session of its own: as the engine, below the window
    p = argparse.ArgumentParser()
    p.add_argument("--coordinator", required=True)
    p.add_argument("--process-id", type=int, required=True)
    p.add_argument("--num-processes", type=int, required=True)
    p.add_argument("--local-devices", type=int, required=True)
    p.add_argument("--target", required=True)
    p.add_argument("--axis-name", default="hosts")
    ns = p.parse_args(argv)
    # as the engine: what the function starts (setsid, double forks) ends with us
    become_subreaper()
    os.environ[MARK] = str(os.getpid())
    watch_parent(sweep_descendants)
    channel = Channel(stdout_to_stderr=True)
    try:
        report = run_process(ns)
    except BaseException as exc:  # noqa: BLE001 - say why, whatever the user's code raised
        channel.send({"op": protocol.REPLY, "id": ns.process_id, "error": _error(exc, ns)})
        sweep_descendants()
        return 1
    channel.send({"op": protocol.REPLY, "id": ns.process_id, "report": report})
    sweep_descendants()
    import jax

    jax.distributed.shutdown()
    return 0


def _error(exc: BaseException, ns: argparse.Namespace) -> dict[str, Any]:
    """The failure as a plain :class:`~jaxviz.model.ErrorInfo`, located in the user's file.

    A collective over an axis other than ``--axis-name`` is named as such
    (inside ``shard_map`` JAX only asserts).
    """
    from jaxviz.model import to_plain
    from jaxviz.model.errors import from_exception

    info = from_exception(exc, _LOADED.get("filename", ""), kind="trace")
    fn = _LOADED.get("fn")
    if fn is not None and isinstance(exc, (AssertionError, NameError)):
        from jaxviz.core.trace import unbound_axis

        axis = unbound_axis(fn, [0.0])
        if axis is not None and axis != ns.axis_name:
            info.kind = "collective"
            info.message = (f"the function uses a collective over axis {axis!r}, but the "
                            f"processes' mesh axis is {ns.axis_name!r}: use --axis-name {axis}")
    return to_plain(info)


#: What :func:`run_process` loaded, for :func:`_error` to locate a failure.
_LOADED: dict[str, Any] = {}


def run_process(ns: argparse.Namespace) -> dict[str, Any]:
    """Join the other processes, run the step on this process's slice, describe what it saw."""
    import jax

    from jaxviz.core import jax_internals

    jax.config.update("jax_num_cpu_devices", ns.local_devices)
    jax.config.update("jax_cpu_collectives_implementation", "gloo")
    jax_internals.gloo_on_loopback()  # its peers' listeners: loopback, not the LAN address
    # The coordinator (on process 0) listens where the others reach it: loopback, not
    # every interface (JAX's default bind address is [::]:port).
    jax.distributed.initialize(ns.coordinator, num_processes=ns.num_processes,
                               process_id=ns.process_id, initialization_timeout=60,
                               coordinator_bind_address=ns.coordinator)
    import numpy as np
    from jax.sharding import AxisType, Mesh, NamedSharding
    from jax.sharding import PartitionSpec as P

    from jaxviz.core.loader import find_function, load_namespace
    from jaxviz.model import to_plain
    from jaxviz.model.sources import resolve_target

    target, _ = resolve_target(ns.target)
    _LOADED["filename"] = target.filename
    fn = find_function(load_namespace(target), target)
    _LOADED["fn"] = fn
    devices = jax.devices()
    mesh = Mesh(np.array(devices), (ns.axis_name,), axis_types=(AxisType.Auto,))
    sharding = NamedSharding(mesh, P(ns.axis_name))
    n_local = len(jax.local_devices())
    # Process k holds the values k*n_local ... (k+1)*n_local - 1 of arange(global).
    start = ns.process_id * n_local
    local = np.arange(start, start + n_local, dtype=np.float32)
    x = jax.make_array_from_process_local_data(sharding, local)
    step = jax.jit(jax.shard_map(jax.vmap(fn), mesh=mesh, in_specs=P(ns.axis_name),
                                 out_specs=P(ns.axis_name)))
    y = step(x)
    y.block_until_ready()
    return {
        "process_index": jax.process_index(),
        "process_count": jax.process_count(),
        "global_devices": [{"id": int(d.id), "platform": d.platform, "kind": d.device_kind,
                            "process_index": int(d.process_index)} for d in devices],
        "local_device_ids": [int(d.id) for d in jax.local_devices()],
        "shards": [{"device": int(s.device.id),
                    "index": [list(sl.indices(n)[:2]) for sl, n in zip(s.index, y.shape)],
                    "input": float(np.asarray(xs.data)[0]),
                    "output": float(np.asarray(s.data)[0])}
                   for s, xs in zip(y.addressable_shards, x.addressable_shards)],
        "jaxpr": str(jax.make_jaxpr(step)(x)),
        "hlo": step.lower(x).compile().as_text(),
        "result": to_plain(_traced(step, x, target, ns)),
    }


def _traced(step, x, target, ns):
    """The step's jaxpr and storyboard, read from the compiled multi-process program."""
    import jax

    from jaxviz.core import claims, hlo_program, storyboard, trace
    from jaxviz.model import DeviceInfo, TraceResult, VariantResult

    devices = jax.devices()
    call = (f"jax.jit(jax.shard_map(jax.vmap({target.function}), mesh={ns.axis_name}="
            f"{len(devices)} on {ns.num_processes} processes, in_specs=P({ns.axis_name!r}), "
            f"out_specs=P({ns.axis_name!r})))(x)")
    vr = VariantResult(variant="shard_map", call=call)
    closed = jax.make_jaxpr(step)(x)
    trace.describe_jaxpr(vr, closed, target.filename)
    compiled = step.lower(x).compile()
    vr.storyboard = storyboard.build(vr, compiled, list(closed.in_avals), list(closed.out_avals),
                                     ["x"], ["out"], target.filename)
    text = compiled.as_text() or ""
    claims.apply(vr.storyboard, claims.story_claims(
        vr.storyboard, vr, step, closed, [x], ["x"],
        jax.tree.leaves(compiled.input_shardings[0], is_leaf=lambda s: s is None),
        hlo_program.num_partitions(text), target.source, target.filename))
    return TraceResult(
        function=target.function, filename=target.filename, simulated=True, variants=[vr],
        devices=[DeviceInfo(int(d.id), d.platform, d.device_kind, int(d.process_index))
                 for d in devices])


if __name__ == "__main__":
    raise SystemExit(main())
