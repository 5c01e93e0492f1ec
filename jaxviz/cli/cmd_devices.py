"""``jaxviz devices``: the device inventory the JAX engine reports."""

from __future__ import annotations

import dataclasses
import json
import os

from jaxviz.cli.options import EXIT_OK, add_device_options


def add_parser(sub) -> None:
    p = sub.add_parser("devices", help="list the devices the JAX engine starts with",
                       description="Start the JAX engine with N devices and print what it "
                                   "reports: each device's id, platform, kind and process "
                                   "index, whether the devices are simulated CPU devices, "
                                   "and the JAX and jaxlib versions.")
    p.add_argument("--json", action="store_true",
                   help="print the inventory as JSON (the fields of EngineInfo)")
    add_device_options(p)


def run(ns) -> int:
    from jaxviz.cli.common import report
    from jaxviz.cli.runner import EngineError, run_request
    from jaxviz.model import DevicesRequest

    try:
        info = run_request(DevicesRequest(), ns.devices, ns.timeout)
    except EngineError as exc:
        return report(exc.info, ns)
    if ns.json:
        print(json.dumps(dataclasses.asdict(info), indent=1))
    else:
        print(devices_text(info))
    return EXIT_OK


def devices_text(info) -> str:
    """The inventory as a small table, with a note on simulated devices."""
    kind = "simulated CPU devices" if info.simulated else f"{info.platform.upper()} devices"
    lines = [f"{len(info.devices)} {kind}  (JAX {info.jax_version}, jaxlib "
             f"{info.jaxlib_version}; engine pid {info.pid}, ready in "
             f"{info.start_seconds:.2f} s)", "",
             f"{'id':>4}  {'platform':<9} {'kind':<24} process"]
    for d in info.devices:
        lines.append(f"{d.id:>4}  {d.platform:<9} {d.kind:<24} {d.process_index}")
    if info.simulated:
        lines += ["", f"The devices share this machine's {os.cpu_count()} CPU cores: their "
                      "timings show structure (dispatch, queueing, collectives), not real "
                      "speed-ups."]
    return "\n".join(lines)
