"""``jaxviz cost``: what a variant would cost on real chips, phase by phase (a roofline projection).

Reads the compiled program's FLOPs, HBM bytes and collectives per device
(:mod:`jaxviz.core.program_analysis`, loops times their trip counts) and
projects them onto a chip preset (:mod:`jaxviz.model.chips`, or the user's own
file) with the scaling book's rooflines (:mod:`jaxviz.model.cost_model`):
``T_compute``, ``T_memory`` and ``T_comm`` per phase, a phase's time between
their max and their sum, each number with its formula. ``--calibrate`` measures
the accelerators the engine runs on; on CPU there is nothing to measure.
"""

from __future__ import annotations

import json

from jaxviz.cli.collectives_variant import pick_variant
from jaxviz.cli.common import trace_one
from jaxviz.cli.options import (
    EXIT_FAILED,
    add_target_options,
    one_line,
    output_path,
    usage_error,
)


def add_parser(sub) -> None:
    from jaxviz.model.chips import PRESETS

    p = sub.add_parser(
        "cost", help="project a variant's time per phase onto a real chip (roofline)",
        description="Compile a variant and project each phase (compute runs and collectives "
                    "of the compiled program) onto a real chip: T_compute = FLOPs / peak, "
                    "T_memory = HBM bytes / bandwidth, T_comm from the scaling book's "
                    "collective formulas; a phase takes between their max and their sum. "
                    "Every number comes with its formula (--json, --formulas). A projection, "
                    "not a measurement.")
    add_target_options(p)
    p.add_argument("--chip", metavar="NAME", type=one_line,
                   help="the chip: tpu-v5e, tpu-v5p, tpu-v6e, h100, h200, b200 (the presets in "
                        f"{PRESETS.name}), or one of --chip-file's")
    p.add_argument("--chip-file", type=output_path, metavar="FILE",
                   help="a TOML file of your own chips with the presets' fields")
    p.add_argument("--formulas", action="store_true",
                   help="print every phase's formulas under the table")
    p.add_argument("--calibrate", action="store_true",
                   help="measure matmul FLOP/s and all-gather bandwidth on the accelerators "
                        "the engine runs on and print them beside the preset (on CPU there is "
                        "nothing to calibrate against)")
    p.add_argument("--json", action="store_true",
                   help="print chip, devices, total, phases and memory as JSON")
    p.add_argument("--what-if", metavar="COUNTS", type=one_line,
                   help="compile the variants again for each device count (e.g. "
                        "1,2,4,8,16,32,64,128,256; compile only, with that many simulated CPU "
                        "devices) and print the projected step time and memory per device at "
                        "each, where it turns communication-bound and where it stops fitting "
                        "in HBM (--variant picks one variant; else the example's multi-device "
                        "ones and vmap on one device)")
    p.add_argument("--what-if-plot", type=output_path, metavar="FILE",
                   help="with --what-if: also draw the what-if plot into FILE (.png or .svg)")


def run(ns) -> int:
    from jaxviz.cli.cost_text import projection_text
    from jaxviz.model.chips import ChipFileError, find_chip, load_chips
    from jaxviz.model.cost_model import project, projection_json

    if ns.chip is None:
        try:
            names = ", ".join(load_chips(ns.chip_file))
        except ChipFileError as exc:
            return usage_error(f"--chip-file: {exc}")
        return usage_error(f"--chip: say which chip to project onto: {names}")
    try:
        chip = find_chip(ns.chip, ns.chip_file)
    except ChipFileError as exc:
        return usage_error(f"--chip{'-file' if 'cannot read' in str(exc) else ''}: {exc}")
    if ns.what_if is not None or ns.what_if_plot is not None:
        from jaxviz.cli.cost_what_if import run_what_if

        return run_what_if(ns, chip)
    pick_variant(ns)
    result, variant, code = trace_one(ns, ["jaxpr", "cost"])
    if code:
        return code
    assert result is not None and variant is not None and variant.program is not None
    projection = project(variant.program, chip)
    calibration = None
    if ns.calibrate:
        calibration = _calibrate(ns, result.simulated)
        if calibration is None:
            return EXIT_FAILED
    if ns.json:
        data = projection_json(projection)
        if calibration is not None:
            data["calibration"] = _calibration_json(calibration, chip)
        print(json.dumps(data, indent=1))
        return 0
    print(projection_text(projection, variant.call, ns.formulas))
    if calibration is not None:
        print()
        print(_calibration_text(calibration, chip))
    return 0


def _calibrate(ns, simulated: bool):
    from jaxviz.model.calibration import CalibrationRequest, CalibrationResult

    if simulated:
        return CalibrationResult(platform="cpu", message=(
            "nothing to calibrate against: the devices are simulated CPU devices sharing "
            "this machine's cores, not the chip the preset describes; the projection uses "
            "the preset's numbers"))
    from jaxviz.cli.runner import EngineError, run_request

    try:
        return run_request(CalibrationRequest(), ns.devices, max(ns.timeout, 120.0))
    except EngineError as exc:
        print(f"jaxviz: error: --calibrate: {exc.info.message}")
        return None


def _calibration_json(c, chip) -> dict:
    return {"platform": c.platform, "device_kind": c.device_kind, "devices": c.devices,
            "measured": c.measured, "message": c.message,
            "matmul_flops_per_s": c.matmul_flops_per_s or None,
            "matmul_formula": c.matmul_formula,
            "preset_bf16_flops_per_s": chip.flops.get("bf16"),
            "all_gather_bytes_per_s": c.all_gather_bytes_per_s or None,
            "all_gather_formula": c.all_gather_formula,
            "preset_link_bytes_per_s": chip.link_bidirectional or chip.link_bandwidth}


def _calibration_text(c, chip) -> str:
    if not c.measured:
        return f"calibrate: {c.message}"
    lines = [f"calibrate: {c.message}",
             f"  bf16 matmul: measured {c.matmul_flops_per_s:.3g} FLOP/s, preset "
             f"{chip.flops.get('bf16', 0):.3g} ({c.matmul_formula})"]
    if c.all_gather_bytes_per_s:
        link = chip.link_bidirectional or chip.link_bandwidth
        lines.append(f"  all-gather: measured {c.all_gather_bytes_per_s:.3g} B/s, preset link "
                     f"{link:.3g} B/s ({c.all_gather_formula})")
    return "\n".join(lines)
