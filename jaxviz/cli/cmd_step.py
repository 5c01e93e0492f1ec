"""``jaxviz step``: run a variant equation by equation and print every value, per device."""

from __future__ import annotations

import json
import os
import sys

from jaxviz.cli.common import report
from jaxviz.cli.options import add_target_options, number, usage_error
from jaxviz.model.limits import LINE, RECORD_LIMIT, SEED, VALUE_LIMIT
from jaxviz.model.records import ErrorInfo, VarInfo
from jaxviz.model.stepping import (
    DEFAULT_RECORD_LIMIT_MB,
    DEFAULT_VALUE_LIMIT,
    EvalStep,
    LaneValues,
    StepResult,
    Value,
)
from jaxviz.views.stepper.value_text import format_value

#: Lanes whose values fit in this many characters take one line.
LINE_WIDTH = 100


def add_parser(sub) -> None:
    p = sub.add_parser(
        "step", help="run a variant equation by equation and print the values",
        description="Run one variant of a function equation by equation on concrete "
                    "arguments and print each equation's inputs and outputs -- on every "
                    "device inside pmap/shard_map bodies, where collectives are computed "
                    "across the devices. Arguments given only as shapes (f32[8,3]) get "
                    "random values with a fixed seed, and the output says how.")
    add_target_options(p)
    p.add_argument("--until", type=number(LINE), metavar="LINE",
                   help="stop after the first equation that comes from this line of the file")
    p.add_argument("--format", choices=("text", "json"), default="text",
                   help="text: per equation, its source line and values (default); json: "
                        "the stepping records")
    p.add_argument("--value-limit", type=number(VALUE_LIMIT), default=DEFAULT_VALUE_LIMIT,
                   metavar="N",
                   help=f"print values with at most N elements whole, summarise larger ones "
                        f"(default {DEFAULT_VALUE_LIMIT}, at most {VALUE_LIMIT.high:,.0f})")
    p.add_argument("--summary", action="store_true",
                   help="summary mode: keep every value as its shape, dtype, min, max and "
                        "mean only (for programs too large to record whole)")
    p.add_argument("--seed", type=number(SEED), default=0,
                   help=f"seed of the random values for arguments given as shapes (default 0, "
                        f"at most {SEED.high:.0f})")
    p.add_argument("--record-limit", type=number(RECORD_LIMIT), default=DEFAULT_RECORD_LIMIT_MB,
                   metavar="MB",
                   help=f"the most megabytes of recorded values (default "
                        f"{DEFAULT_RECORD_LIMIT_MB:g}, at most {RECORD_LIMIT.high:g})")


def run(ns) -> int:
    from jaxviz.cli.options import build_request
    from jaxviz.cli.runner import prestart, run_reply
    from jaxviz.model.errors import UserError
    from jaxviz.model.stepping import StepRequest

    prestart(ns.devices)
    try:
        trace, _ = build_request(ns, want=[])
    except UserError as exc:
        return report(exc.info, ns)
    lines = len(trace.target.source.splitlines())
    if ns.until is not None and ns.until > lines:
        return usage_error(f"--until {ns.until}: {os.path.basename(trace.target.filename)} "
                           f"has {lines} lines")
    req = StepRequest(trace=trace, variant=trace.variants[0], until_line=ns.until,
                      value_limit=ns.value_limit, summary=ns.summary, seed=ns.seed,
                      record_limit_mb=ns.record_limit)
    reply = run_reply(req, ns.devices, ns.timeout)
    sys.stderr.write(reply.stdout + reply.stderr)  # what the user's code printed
    result = reply.result if reply.ok else None
    if not isinstance(result, StepResult):
        return report(reply.error or ErrorInfo(kind="engine", message="the engine gave no "
                                                                      "stepping result"),
                      ns)
    if result.error is not None:
        return report(result.error, ns)
    if ns.until is not None and result.complete:
        sys.stderr.write(f"note: line {ns.until} made no equation of {trace.target.function}; "
                         f"stepped to the end\n")
    if ns.format == "json":
        from jaxviz.model import to_plain

        print(json.dumps(to_plain(result), indent=1))
    else:
        print("\n".join(text_lines(result, trace.target.source)))
    return 0


# --------------------------------------------------------------------------- #
# text
# --------------------------------------------------------------------------- #


def text_lines(result: StepResult, source: str) -> list[str]:
    """The stepping as lines for a terminal: a header, then each step with its values."""
    out = [f">>> {result.call}"]
    if result.arguments is not None:
        out.append(f"arguments: {result.arguments.how}")
        out.extend(_values("  ", [(a.name, a.value) for a in result.arguments.values]))
    if result.mesh is not None:
        mesh = ", ".join(f"{n}={s}" for n, s in zip(result.mesh.axis_names,
                                                    result.mesh.axis_sizes))
        kind = "simulated CPU devices" if result.simulated else "devices"
        out.append(f"mapped bodies run on {len(result.devices)} {kind} (mesh {mesh}); the "
                   f"stepper computes every device's values, collectives across devices")
    source_lines = source.splitlines()
    text = result.jaxpr_text.splitlines()
    for index, step in enumerate(result.steps):
        out.append("")
        out.extend(_step_lines(index, step, source_lines, text, result.filename))
    out.append("")
    if not result.complete:
        out.append(result.stopped)
    else:
        out.append("result:")
        for named in result.outputs:
            out.extend(_values("  ", [(named.name, named.value)]))
            for device, block in zip(named.devices, named.blocks):
                out.extend(_values("    ", [(f"device {device}", block)]))
    return out


def _step_lines(index: int, step: EvalStep, source: list[str], text: list[str],
                filename: str) -> list[str]:
    indent = "  " * step.depth
    word = {"enter": "enter ", "leave": "leave "}.get(step.kind, "")
    head = f"#{index} {indent}{word}{step.primitive}  [{step.path}]"
    if step.source is not None:
        where = f"{os.path.basename(step.source.file)}:{step.source.line}"
        line = (source[step.source.line - 1].strip()
                if step.source.file == filename and 0 < step.source.line <= len(source) else "")
        head += f"  {where}  {line}"
    lines = [head]
    pad = indent + "    "
    if step.kind == "equation" and step.text_start is not None:
        end = step.text_end if step.text_end is not None else step.text_start
        block = text[step.text_start:end + 1]
        strip = len(block[0]) - len(block[0].lstrip()) if block else 0
        lines.extend(pad + t[strip:] for t in block)
    if step.note:
        lines.append(f"{pad}note: {step.note}")
    if step.groups:
        lines.append(pad + "over devices " + " | ".join(" ".join(map(str, g))
                                                        for g in step.groups))
    for lane in step.lanes:
        lines.extend(_lane_lines(pad, lane, step))
    return lines


def _lane_lines(pad: str, lane: LaneValues, step: EvalStep) -> list[str]:
    """One line per lane when it fits (``device 3: d = 3  ->  e = 28``), else one per value."""
    label = "host" if lane.device is None else f"device {lane.device}"
    ins = [(v.name, value) for v, value in zip(_names(step.inputs, lane.inputs), lane.inputs)
           if not v.literal]
    outs = list(zip([v.name for v in _names(step.outputs, lane.outputs)], lane.outputs))
    texts = [format_value(v) for _, v in ins + outs]
    if all("\n" not in t for t in texts):
        left = ", ".join(f"{n} = {t}" for (n, _), t in zip(ins, texts))
        right = ", ".join(f"{n} = {t}" for (n, _), t in zip(outs, texts[len(ins):]))
        line = f"{pad}{label}: " + ("  ->  ".join(p for p in (left, right) if p)
                                    if left else f"->  {right}")
        if len(line) <= LINE_WIDTH:
            return [line]
    lines = [f"{pad}{label}:"]
    lines.extend(_values(pad + "  ", ins))
    if outs:
        lines.extend(_values(pad + "  -> ", outs))
    return lines


def _names(variables: list[VarInfo], values: list[Value]) -> list[VarInfo]:
    """The variables of a lane's values (the device blocks of a shard_map marker included)."""
    if len(variables) == len(values):
        return variables
    return [VarInfo(f"v{i}", v.shape, v.dtype) for i, v in enumerate(values)]


def _values(pad: str, pairs: list[tuple[str, Value]]) -> list[str]:
    lines = []
    for name, value in pairs:
        text = format_value(value).splitlines()
        lines.append(f"{pad}{name} = {text[0]}")
        cont = " " * (len(pad) + len(name) + 3)
        lines.extend(cont + t for t in text[1:])
    return lines
