"""Is ``jaxviz cost``'s lower bound below the real run? Projected against measured.

For every program of ``cost_programs.py``: jaxviz traces and compiles it on the
accelerator it runs on (as ``jaxviz cost FILE:FUNC --variant jit --devices 1``), projects
it onto a chip preset, and the same program is timed on the real device (best of 20
calls after 3 warm-ups, ``block_until_ready``). Prints one JSON line per program:
projected lower / upper bound, measured, and measured / lower, which must be at least 1
(a lower bound above the real run is a false claim; 1-2 is usual for a roofline). Writes
``results.json`` into ``$OUT`` (default the current folder). Meant for a machine with a
GPU or TPU: on the CPU the preset is not the chip it runs on, and the ratios mean nothing.

Run: ``python benchmarks/bench_cost_vs_real.py`` (``JAXVIZ_COST_CHIP=h200`` for another
preset, ``JAXVIZ_COST_ONLY="mm,f32 HIGHEST"`` for some programs, by function or label,
``JAXVIZ_COST_DUMP=`` the same to keep their compiled HLO beside the results).
"""
import functools
import json
import os
import time
import traceback
from pathlib import Path

import jax

from jaxviz.cli import make_parser
from jaxviz.cli.options import build_request
from jaxviz.core import devices
from jaxviz.core.service import handle
from jaxviz.model.chips import find_chip
from jaxviz.model.cost_model import project

CHIP = os.environ.get("JAXVIZ_COST_CHIP", "h100")
OUT = os.environ.get("OUT", ".")
FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cost_programs.py")
BF = "mat('bfloat16'), mat('bfloat16')"
F32 = "mat(), mat()"
#: (what, function, arguments, static arguments)
CASES = [
    ("bf16 matmul", "mm", BF, None),
    ("f32 matmul (default)", "mm", F32, None),
    *[(f"f32 {p}", "mm_at", F32, f"precision='{p}'")
      for p in ("HIGH", "HIGHEST", "BF16_BF16_F32", "BF16_BF16_F32_X3", "BF16_BF16_F32_X6",
                "BF16_BF16_F32_X9", "TF32_TF32_F32", "F32_F32_F32", "TF32_TF32_F32_X3")],
    ("2x + y, 1 GiB", "axpy", "vec(), vec()", None),
    ("sum(x * x)", "sumsq", "vec()", None),
    ("softmax rows", "softmax", "rows()", None),
    ("12-layer GPT step bf16", "train_step", "params(), tokens()", None),
    ("12-layer GPT step bf16, scan", "train_step_scanned", "params(True), tokens()", None),
]
only = os.environ.get("JAXVIZ_COST_ONLY")
if only:  # in the order given
    CASES = [c for name in only.split(",") for c in CASES if name in (c[1], c[0])]

devices.configure(1)
print("devices", jax.devices(), "jax", jax.__version__, flush=True)
chip = find_chip(CHIP, None)
parser = make_parser()
ns_mod: dict = {"__name__": "progs"}
exec(compile(Path(FILE).read_text(), FILE, "exec"), ns_mod)
rows = []


def best(f, args, repeats=20, warmups=3):
    for _ in range(warmups):
        jax.block_until_ready(f(*args))
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        jax.block_until_ready(f(*args))
        times.append(time.perf_counter() - t)
    return min(times), sorted(times)[len(times) // 2]


for label, func, args, static in CASES:
    row = {"program": label, "func": func, "args": args, "static": static}
    t0 = time.perf_counter()
    try:
        ns = parser.parse_args(["cost", f"{FILE}:{func}", "--args", args, "--chip", CHIP,
                                "--variant", "jit", "--devices", "1", "--timeout", "600",
                                *(["--static", static] if static else [])])
        req, _ = build_request(ns, ["jaxpr", "cost"])
        result = handle(req)
        if result.error is not None:
            raise RuntimeError(result.error.message)
        v = result.variants[0]
        if v.error is not None:
            raise RuntimeError(v.error.message)
        p = project(v.program, chip)
        row.update(lower_ms=p.total.t_lower.value * 1e3, upper_ms=p.total.t_upper.value * 1e3,
                   flops=p.total.flops, hbm=p.total.hbm_bytes, bound=p.total.bound,
                   phases=len(p.phases), notes=list(p.notes),
                   formulas=sorted({ph.t_compute.formula for ph in p.phases
                                    if ph.flops})[:6])
    except Exception as exc:  # keep going: record what failed
        row["project_error"] = f"{type(exc).__name__}: {exc}"[:800]
        traceback.print_exc()
    try:
        a = eval(f"({args},)", ns_mod)
        kwargs = eval(f"dict({static})", ns_mod) if static else {}
        f = jax.jit(functools.partial(ns_mod[func], **kwargs))
        b, med = best(f, a)
        row.update(measured_ms=b * 1e3, median_ms=med * 1e3)
        hlo = f.lower(*a).compile().as_text()
        if {func, label} & set(os.environ.get("JAXVIZ_COST_DUMP", "").split(",")):
            name = label.replace(" ", "_").replace("/", "_")
            with open(os.path.join(OUT, f"{name}.hlo.txt"), "w") as fh:
                fh.write(hlo)
        row["dot_lines"] = [ln.strip()[:300] for ln in hlo.splitlines()
                            if ("dot(" in ln or "cublas" in ln or "algorithm" in ln)
                            and "ROOT" not in ln][:3]
    except Exception as exc:
        row["run_error"] = f"{type(exc).__name__}: {exc}"[:800]
    row["seconds"] = time.perf_counter() - t0
    if "measured_ms" in row and "lower_ms" in row:
        row["ratio"] = row["measured_ms"] / row["lower_ms"]
    rows.append(row)
    print(json.dumps({k: row.get(k) for k in ("program", "lower_ms", "upper_ms", "measured_ms",
                                              "ratio", "bound", "seconds", "project_error",
                                              "run_error")}), flush=True)
    with open(os.path.join(OUT, "results.json"), "w") as fh:
        json.dump({"jax": jax.__version__, "device": str(jax.devices()[0].device_kind),
                   "chip": CHIP, "rows": rows}, fh, indent=1)
