"""The tests' own reader of compiled HLO text, written apart from jaxviz.core.hlo_program.

It reads ``jax.jit(...).lower(...).compile().as_text()`` with plain regular
expressions and numpy: the collectives in the order the text lists them (XLA
prints a scheduled module in program order), following while loops,
conditionals and calls that contain collectives. Partition numbers are mapped
to device ids through the executable's own device list
(``runtime_executable().local_devices()``, one process).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

KINDS = ("all-reduce", "all-gather", "reduce-scatter", "all-to-all", "collective-permute")

_HEAD = re.compile(r"^(?:ENTRY )?%(\S+) \(")
_LINE = re.compile(r"^\s+(?:ROOT )?%(\S+) = (\(.*?\)|\S+) ([a-z][a-z\-]*)\(([^)]*)\)(.*)$")
_NUM_PARTITIONS = re.compile(r"num_partitions=(\d+)")


@dataclass
class Found:
    """One collective as the oracle reads it."""

    kind: str
    groups: list[list[int]]
    pairs: list[tuple[int, int]]
    operands: list[str]
    results: list[str]
    name: str


def strip_layout(type_text: str) -> list[str]:
    """``(f32[4]{0}, f32[])`` -> ``['f32[4]', 'f32[]']``."""
    bare = re.sub(r"\{[^}]*\}", "", type_text)
    return re.findall(r"[a-z]+\d*\[[\d,]*\]", bare)


def groups_of(attrs: str, n: int) -> list[list[int]]:
    """Replica groups of an attribute string, in partition numbers."""
    m = re.search(r"replica_groups=(\{\{[\d,{}]*\}\}|\{\})", attrs)
    if m:
        found = [[int(v) for v in g.split(",")] for g in re.findall(r"\{([\d,]+)\}", m.group(1))]
        return found or [list(range(n))]
    m = re.search(r"replica_groups=\[(\d+),(\d+)\]<=\[([\d,]+)\](?:T\(([\d,]+)\))?", attrs)
    if m:
        dims = [int(v) for v in m.group(3).split(",")]
        ids = np.arange(int(np.prod(dims))).reshape(dims)
        if m.group(4):
            ids = np.transpose(ids, [int(v) for v in m.group(4).split(",")])
        return ids.reshape(int(m.group(1)), int(m.group(2))).tolist()
    m = re.search(r"replica_groups=mesh\[(.*?)\](?:, device_ids=\((.*?)\))? \{(.*?)\}", attrs)
    if m:
        axes = [(name, int(size)) for name, size in re.findall(r"'(\w+)'=(\d+)", m.group(1))]
        order = np.arange(n)
        if m.group(2):
            t = re.fullmatch(r"\[([\d,]+)\](?:T\(([\d,]+)\))?", m.group(2))
            assert t, m.group(2)
            order = np.arange(n).reshape([int(v) for v in t.group(1).split(",")])
            if t.group(2):
                order = np.transpose(order, [int(v) for v in t.group(2).split(",")])
            order = order.reshape(-1)
        # An axis named with a sub-axis 'a':(pre)size is viewed as three axes
        # [pre, size, rest] (major to minor); the group runs along the middle one.
        subs = {name: (int(pre), int(size)) for name, pre, size in
                re.findall(r"'(\w+)':\((\d+)\)(\d+)", m.group(3))}
        dims, names = [], []
        for name, size in axes:
            if name in subs:
                pre, sub = subs[name]
                dims += [pre, sub, size // (pre * sub)]
                names += [name + "<", name, name + ">"]
            else:
                dims.append(size)
                names.append(name)
        mesh = order.reshape(dims)
        chosen = set(re.findall(r"'(\w+)'", m.group(3)))
        keep = [k for k, a in enumerate(names) if a not in chosen]
        along = [k for k, a in enumerate(names) if a in chosen]
        size = int(np.prod([dims[k] for k in along]))
        return np.transpose(mesh, keep + along).reshape(-1, size).tolist()
    if "replica_groups" in attrs:
        raise AssertionError(f"unknown replica_groups in {attrs[:160]}")
    return [list(range(n))]


def read(text: str, devices: list[int]) -> list[Found]:
    """Every collective of a compiled module, in program order, groups as device ids."""
    n = int(_NUM_PARTITIONS.search(text).group(1)) if _NUM_PARTITIONS.search(text) else 1
    comps: dict[str, list[tuple[str, str, str, str, str]]] = {}
    entry = None
    current = None
    for line in text.splitlines():
        head = _HEAD.match(line)
        if head and line.rstrip().endswith("{"):
            current = head.group(1)
            comps[current] = []
            if line.startswith("ENTRY"):
                entry = current
            continue
        if line.startswith("}"):
            current = None
            continue
        m = _LINE.match(line)
        if current is not None and m:
            comps[current].append(m.groups())
    assert entry is not None, "no ENTRY computation"

    def has_collective(name: str) -> bool:
        lines = comps.get(name, [])
        return any(op.removesuffix("-start") in KINDS for _, _, op, _, _ in lines) or any(
            has_collective(c) for _, _, op, _, attrs in lines if op in ("while", "call",
                                                                         "conditional")
            for c in re.findall(r"%([\w.\-]+)", attrs))

    out: list[Found] = []

    def walk(name: str) -> None:
        types = {iname: strip_layout(t) for iname, t, _, _, _ in comps[name]}
        for iname, type_text, op, args, attrs in comps[name]:
            kind = op.removesuffix("-start")
            if kind in KINDS:
                pairs = [(devices[int(a)], devices[int(b)]) for a, b in re.findall(
                    r"\{(\d+),(\d+)\}", attrs.split("source_target_pairs=")[1])] \
                    if "source_target_pairs=" in attrs else []
                groups = [] if kind == "collective-permute" else [
                    [devices[p] for p in g] for g in groups_of(attrs, n)]
                operands = [t for a in re.findall(r"%([\w.\-]+)", args) for t in types[a]]
                out.append(Found(kind, groups, pairs, operands, strip_layout(type_text), iname))
            elif op == "while":
                cond = re.search(r"condition=%([\w.\-]+)", attrs).group(1)
                body = re.search(r"body=%([\w.\-]+)", attrs).group(1)
                if has_collective(cond) or has_collective(body):
                    walk(cond)
                    walk(body)
            elif op in ("conditional", "call"):
                for called in re.findall(r"%([\w.\-]+)", attrs):
                    if called in comps and has_collective(called):
                        walk(called)

    walk(entry)
    return out
