"""``jaxviz multihost``: several JAX processes on this machine acting as the hosts of a cluster."""

from __future__ import annotations

import json

from jaxviz.cli.options import axis_name, number
from jaxviz.model.limits import DEVICES, PROCESSES, TIMEOUT


def add_parser(sub) -> None:
    p = sub.add_parser(
        "multihost", help="run a function across several cooperating JAX processes",
        description="Start several JAX processes that join through jax.distributed on the "
                    "loopback interface, build one global array from each process's slice, "
                    "and run the function with jit(shard_map(vmap(f))) over the devices of all "
                    "processes: collectives cross process boundaries.")
    p.add_argument("target", nargs="?", default="example:multi_host",
                   help="a function of one scalar that uses the axis name (default "
                        "example:multi_host)")
    p.add_argument("--processes", type=number(PROCESSES), default=2,
                   help=f"number of processes (default 2, at most {PROCESSES.high:g})")
    p.add_argument("--devices", type=number(DEVICES), default=4,
                   help="simulated CPU devices per process (default 4)")
    p.add_argument("--axis-name", type=axis_name, default="hosts",
                   help="mesh axis name (default hosts)")
    p.add_argument("--timeout", type=number(TIMEOUT), default=120.0, metavar="SECONDS",
                   help="give up after this long (default 120)")
    p.add_argument("--json", action="store_true", help="print the reports as JSON")
    p.add_argument("--jaxpr", action="store_true", help="also print the jaxpr of the step")
    p.add_argument("--debug", action="store_true", help="show a failing worker's stderr")


def run(ns) -> int:
    from jaxviz.cli.common import report
    from jaxviz.engine.multihost import run_multihost
    from jaxviz.model.errors import UserError

    try:
        reports = run_multihost(ns.target, ns.processes, ns.devices, ns.axis_name, ns.timeout)
    except UserError as exc:
        return report(exc.info, ns)
    if ns.json:
        print(json.dumps([{k: v for k, v in r.__dict__.items() if k not in ("result", "hlo")}
                          for r in reports], indent=1))
        return 0
    total = len(reports[0].global_devices)
    print(f"{len(reports)} processes x {ns.devices} simulated CPU devices = {total} devices "
          f"in one global mesh (axis {ns.axis_name!r})")
    print("jax.devices() on every process: "
          + " ".join(f"{d['id']}@p{d['process_index']}" for d in reports[0].global_devices))
    for r in reports:
        print(f"\nprocess {r.process_index}: jax.local_devices() = {r.local_device_ids}")
        for s in r.shards:
            print(f"    device {s['device']:>5}: x[{s['index'][0][0]}] = {s['input']:g}"
                  f"  ->  {s['output']:.6g}")
    if ns.jaxpr:
        print("\n" + reports[0].jaxpr)
    return 0
