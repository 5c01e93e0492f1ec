"""The tests' own count of a compiled program's collectives, loops multiplied by their trip counts.

Written apart from jaxviz.core (hlo_program, hlo_steps, program_analysis): plain regular
expressions over ``compiled.as_text()``. Every computation reachable from ENTRY is
visited with the number of times it runs: a while loop's body and condition run
``known_trip_count`` times (read from the loop's backend config) for each time the loop
runs; calls, conditionals' branches, fusions and async wrappers run as often as their
caller. Each collective (``all-gather``, ``all-gather-start`` ...; never ``-done``)
counts that many times, with the bytes of its operands and results per device.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass

KINDS = ("all-reduce", "all-gather", "reduce-scatter", "all-to-all", "collective-permute")
_SIZES = {"pred": 1, "s8": 1, "u8": 1, "s16": 2, "u16": 2, "bf16": 2, "f16": 2, "s32": 4,
          "u32": 4, "f32": 4, "s64": 8, "u64": 8, "f64": 8}

_HEAD = re.compile(r"^(ENTRY )?%(\S+) \(.*\{$")
_DEF = re.compile(r"^\s+(?:ROOT )?%(\S+) = (.+)$")
_OP = re.compile(r"\s([a-z][a-z0-9\-]*)\(")


@dataclass
class Tally:
    """Per collective kind: executions, operand bytes and result bytes (all executions)."""

    count: int = 0
    operand_bytes: int = 0
    result_bytes: int = 0


def array_bytes(text: str) -> int:
    """Bytes of the arrays in a type text (``(f32[2,3]{1,0}, s32[])`` -> 28)."""
    total = 0
    for dtype, dims in re.findall(r"\b([a-z]+\d*)\[([\d,]*)\]", re.sub(r"\{[^{}]*\}", "", text)):
        n = 1
        for d in dims.split(","):
            if d:
                n *= int(d)
        total += _SIZES.get(dtype, 4) * n
    return total


def tally(hlo_text: str) -> dict[str, Tally]:
    """Executions and bytes of every collective kind in a compiled module."""
    computations: dict[str, list[str]] = {}
    entry = None
    current = None
    for line in hlo_text.splitlines():
        head = _HEAD.match(line)
        if head:
            current = head.group(2)
            computations[current] = []
            if head.group(1):
                entry = current
            continue
        if line.startswith("}"):
            current = None
        elif current is not None and _DEF.match(line):
            computations[current].append(line)
    assert entry is not None, "no ENTRY computation"
    types: dict[str, str] = {}
    for lines in computations.values():
        for line in lines:
            name, rest = _DEF.match(line).groups()
            op = _OP.search(" " + rest)
            types[name] = rest[:op.start()].strip() if op else rest
    runs: dict[str, int] = defaultdict(int)

    def visit(comp: str, times: int) -> None:
        runs[comp] += times
        for line in computations[comp]:
            trip = re.search(r'"known_trip_count":\{"n":"(\d+)"\}', line)
            inner = times * (int(trip.group(1)) if trip and " while(" in line else 1)
            for callee in re.findall(r"(?:body|condition|calls|to_apply|true_computation|"
                                     r"false_computation)=%([\w.\-]+)", line):
                if re.search(rf"to_apply=%{re.escape(callee)}\b", line):
                    continue  # a reduction's scalar computation: no collectives
                visit(callee, inner if " while(" in line else times)
            branches = re.search(r"branch_computations=\{([^}]*)\}", line)
            if branches:
                for callee in re.findall(r"%([\w.\-]+)", branches.group(1)):
                    visit(callee, times)

    visit(entry, 1)
    out: dict[str, Tally] = {}
    for comp, times in runs.items():
        for line in computations[comp]:
            name, rest = _DEF.match(line).groups()
            op = _OP.search(" " + rest)
            if op is None:
                continue
            kind = op.group(1).removesuffix("-start")
            if kind not in KINDS:
                continue
            operands = re.findall(r"%([\w.\-]+)", rest[op.end() - 1:].split(")", 1)[0])
            result = rest[:op.start()]
            if op.group(1).endswith("-start"):
                done = next((d for d in computations[comp]
                             if "-done(" in d and f"%{name})" in d), None)
                result = types[_DEF.match(done).group(1)] if done else result
            t = out.setdefault(kind, Tally())
            t.count += times
            t.operand_bytes += times * sum(array_bytes(types.get(o, "")) for o in operands)
            t.result_bytes += times * array_bytes(result)
    return out
