"""Where each step of a storyboard comes from, and the steps grouped by it.

Every HLO instruction JAX lowers carries the name stack it was traced under
(``op_name``: ``jit(train_step)/transpose(jvp(attention))/dot_general``) and
the Python call stack (``stack_frame_id``, read by
:meth:`jaxviz.core.hlo_program.Module.call_stack`). From them each step gets

* its *part* of a train step: ``jvp(...)`` in the name stack is the forward
  pass, ``transpose(...)`` the backward pass; what runs after the backward
  pass outside both is the update;
* its named scopes (``jax.named_scope``), the names inside those wrappers;
* the user's call stack from the traced function inward (``loss_fn`` called
  at line 63, ``block`` at line 56 ...);

and the loops it runs inside come from the compiled program itself
(:attr:`jaxviz.model.storyboard.Step.within`). :func:`group_steps` nests the
steps into :class:`~jaxviz.model.storyboard.StepGroup` records by those keys
(part, loops, calls, scopes), consecutive steps with the same key forming one
group, and collapses a group whose steps are one stretch repeated (the same
kinds, shapes and sources, a layer after another) into a ``repeat`` group with
one child per repetition; or, when most of them are, those into a ``repeated``
group inside it, beside the steps before and after. The part of the key is the
stretch of the program a step runs in (:func:`part_regions`: XLA runs some
backward-pass steps among the forward ones), and runs of collectives at a group's
edges (every layer's parameter gathers, hoisted) are grouped beside it when that
leaves the layers one stretch repeated.

A compute step is a run of many instructions; it takes the sources its
instructions share most (the most common name stack and call stack among
them, the first on a tie).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from jaxviz.core.hlo_program import Instruction, Module
from jaxviz.core.hlo_steps import RawStep
from jaxviz.model.storyboard import CallSite, Step, StepGroup

#: Name-stack components that are structure, not names the user gave.
_STRUCTURE = frozenset({"while", "body", "cond", "closed_call", "core_call", "remat",
                        "checkpoint", "custom_jvp_call", "custom_vjp_call", "pjit", "jit",
                        "shard_map", "scan", "branch", "switch"})
_WRAPPER = re.compile(r"^([A-Za-z_]\w*)\((.*)\)$")
_NAME = re.compile(r"^[A-Za-z_][\w.\-]*$")


@dataclass(frozen=True)
class _Level:
    """One key of a step's path: steps in a row with equal keys share a group."""

    kind: str  # part | loop | call | scope | run
    key: str
    short: str
    title: str
    function: str = ""
    line: int | None = None
    trip_count: int | None = None


def split_name_stack(op_name: str) -> list[str]:
    """``jit(f)/jvp(a/b)/mul`` -> ``["jit(f)", "jvp(a/b)", "mul"]`` (bracketed slashes kept)."""
    return [p for p in _split_top(op_name, "/") if p]


def _split_top(text: str, sep: str) -> list[str]:
    """Split at ``sep`` outside brackets."""
    out, depth, current = [], 0, ""
    for ch in text:
        if ch == sep and depth == 0:
            out.append(current)
            current = ""
            continue
        depth += ch == "("
        depth -= ch == ")"
        current += ch
    return [*out, current]


def part_and_scopes(op_name: str) -> tuple[str, list[str]]:
    """The train-step part (``forward``, ``backward`` or ``""``) and the named scopes.

    ``jit(train_step)/transpose(jvp(mlp))/dot_general`` -> ``("backward", ["mlp"])``.
    The first component (the jitted function) and the last (the primitive) are no scope.
    """
    parts = split_name_stack(op_name)
    if len(parts) == 2 and parts[1].startswith("(") and ":" in parts[1]:
        # a collective XLA combined from several: (a/psum:b/psum); the part most of them
        # come from, and no scope
        pieces = [f"{parts[0]}/{p}" for p in _split_top(parts[1][1:-1], ":")]
        found = Counter(part_and_scopes(p)[0] for p in pieces)
        return found.most_common(1)[0][0], []
    components = parts[1:-1]
    part = ""
    scopes: list[str] = []
    for comp in components:
        inner = comp
        while (m := _WRAPPER.match(inner)) is not None:
            if m.group(1) == "transpose":
                part = "backward"
            elif m.group(1) in ("jvp", "linearize") and not part:
                part = "forward"
            elif m.group(1) not in ("jvp", "linearize", "vmap", "transpose"):
                break  # jit(inner_function), remat(...): a call, not a scope
            inner = m.group(2)
        for name in split_name_stack(inner):
            if _NAME.match(name) and name not in _STRUCTURE:
                scopes.append(name)
    return part, scopes


def user_calls(module: Module, ins: Instruction, filename: str, function: str) -> list[CallSite]:
    """The user's frames of an instruction's call stack, from the traced function inward."""
    chain = [(fn, line) for file, fn, line in module.call_stack(ins) if file == filename]
    starts = [k for k, (fn, _) in enumerate(chain) if fn == function]
    if starts:  # a stack traced again inside another (custom rules) repeats the outer frames
        chain = chain[starts[-1]:]
    return [CallSite(fn, line) for fn, line in chain]


def attach_sources(module: Module, raw: list[RawStep], steps: list[Step], filename: str,
                   function: str) -> None:
    """Fill every step's :attr:`~Step.part`, :attr:`~Step.scopes` and :attr:`~Step.calls`.

    A step outside ``jvp``/``transpose`` is the update when it runs after the
    backward pass and not inside the differentiated function (whose primal
    values, such as the loss, XLA may compute late).
    """
    for r, step in zip(raw, steps):
        ins = _representative(module, r.instructions, filename, function)
        if ins is None:
            continue
        step.part, step.scopes = part_and_scopes(ins.op_name)
        step.calls = user_calls(module, ins, filename, function)
    differentiated = {s.calls[1].function for s in steps if s.part and len(s.calls) > 1}
    if not any(s.part == "backward" for s in steps):
        return
    seen_backward = False
    for step in steps:
        seen_backward = seen_backward or step.part == "backward"
        if step.part:
            continue
        if len(step.calls) > 1 and step.calls[1].function in differentiated:
            step.part = "forward"
        elif seen_backward:
            step.part = "update"


def _representative(module: Module, instructions: list[Instruction], filename: str,
                    function: str) -> Instruction | None:
    """The instruction whose name stack and call stack most of the run shares."""
    named = [i for i in instructions if i.op_name]
    if not named:
        return None
    def key(i: Instruction) -> tuple[str, tuple[tuple[str, int], ...]]:
        calls = user_calls(module, i, filename, function)
        return (i.op_name.rsplit("/", 1)[0], tuple((c.function, c.line) for c in calls))

    keys = [key(i) for i in named]
    best, _ = Counter(keys).most_common(1)[0]
    return named[keys.index(best)]


# --------------------------------------------------------------------------- #
# Grouping
# --------------------------------------------------------------------------- #


#: A train step's parts, in the order they run, and their groups' titles.
PARTS = ("forward", "backward", "update")
_PART_TITLES = {"forward": "forward pass (jvp)", "backward": "backward pass (transpose)",
                "update": "update (after the gradient)"}
_PART_WORDS = {"forward": "the forward pass", "backward": "the backward pass",
               "update": "the update"}


def part_regions(parts: list[str]) -> list[str]:
    """The stretch of the program each step falls in: the forward pass, then the backward
    pass, then the update, split where the fewest steps of one part fall in another's
    stretch (steps of no part count for none).

    XLA runs a step as soon as what it reads is ready, so a backward-pass step that needs
    only the parameters (a layer norm's constant factor, say) runs among the forward steps;
    grouped by their own part alone, a 12-layer train step alternated forward and backward
    29 times. The steps keep their part; their group is the stretch they run in.
    """
    if "backward" not in parts:
        return list(parts)
    n = len(parts)
    # cost[s]: fewest steps out of place for the steps so far, the last in stretch s
    cost = [0, 0, 0]
    back: list[tuple[int, int, int]] = []
    for part in parts:
        miss = [0 if not part or part == name else 1 for name in PARTS]
        came = (0, min((0, 1), key=lambda s: cost[s]), min((0, 1, 2), key=lambda s: cost[s]))
        cost = [cost[came[s]] + miss[s] for s in range(3)]
        back.append(came)
    state = min(range(3), key=lambda s: (cost[s], -s))
    regions = [""] * n
    for k in range(n - 1, -1, -1):
        regions[k] = PARTS[state] if parts[k] else ""
        state = back[k][state]
    return regions


def _path(step: Step, module: Module, named: dict[str, Instruction], filename: str,
          function: str, region: str = "") -> list[_Level]:
    levels: list[_Level] = []
    if step.part:
        part = region or step.part
        levels.append(_Level("part", part, part, _PART_TITLES[part]))
    calls = step.calls
    loops: list[tuple[int, _Level]] = []
    for enc in step.within:
        if enc.kind != "while":
            continue
        while_ins = named.get(enc.hlo)
        loop_calls = user_calls(module, while_ins, filename, function) if while_ins else []
        line = loop_calls[-1].line if loop_calls else None
        where = f" (line {line})" if line is not None else ""
        times = f", {enc.trip_count} iterations" if enc.trip_count is not None else ""
        loops.append((max(len(loop_calls) - 1, 0), _Level(
            "loop", enc.hlo, f"loop@{line}" if line is not None else enc.hlo,
            f"loop{where}{times}", loop_calls[-2].function if len(loop_calls) > 1 else function,
            line, enc.trip_count)))
    names = {c.function for c in calls}
    for depth in range(len(calls) + 1):
        if 1 <= depth < len(calls):
            caller, callee = calls[depth - 1], calls[depth]
            levels.append(_Level("call", f"{callee.function}@{caller.line}", callee.function,
                                 f"{callee.function} (line {caller.line})", callee.function,
                                 caller.line))
        levels += [lv for d, lv in loops if d == depth]
    levels += [_Level("scope", f"scope:{s}", s, f"scope {s}") for s in step.scopes
               if s not in names]
    return levels


def group_steps(module: Module, steps: list[Step], filename: str,
                function: str) -> list[StepGroup]:
    """The groups of a storyboard's steps; sets every step's :attr:`~Step.group`.

    Returns:
        the groups, parents before children, ``[0]`` the whole program
        (empty without steps).
    """
    if not steps:
        return []
    named = {i.name: i for c in module.computations.values() for i in c.instructions}
    regions = part_regions([s.part for s in steps])
    paths = _smooth([_path(s, module, named, filename, function, region)
                     for s, region in zip(steps, regions)])
    groups = [StepGroup(name="program", title=f"{function}: the whole program", kind="program",
                        first=0, last=len(steps) - 1, function=function)]
    _Builder(steps, paths, groups, regions).fill(0, 0, len(steps), 0)
    return groups


def _smooth(paths: list[list[_Level]]) -> list[list[_Level]]:
    """A step whose path stops short inside a group that goes on after it joins that group.

    (A loop body's bookkeeping -- slicing this iteration's parameters -- carries
    the loop's call stack but not the function called in it.)
    """
    for k in range(1, len(paths) - 1):
        before, here, after = paths[k - 1], paths[k], paths[k + 1]
        common = 0
        while (common < min(len(before), len(after))
               and before[common] == after[common]):
            common += 1
        if len(here) < common and before[:len(here)] == here:
            paths[k] = before[:common]
    return paths


class _Builder:
    def __init__(self, steps: list[Step], paths: list[list[_Level]], groups: list[StepGroup],
                 regions: list[str]):
        self.steps, self.paths, self.groups, self.regions = steps, paths, groups, regions

    def fill(self, parent: int, start: int, stop: int, depth: int,
             used: Counter[str] | None = None) -> None:
        """Groups for steps ``[start, stop)`` inside ``parent``, from path level ``depth``
        (``used``: the short names its groups have taken already)."""
        k = start
        used = Counter() if used is None else used
        runs = self._runs(start, stop, depth)
        while k < stop:
            if k in runs:
                k = self._run_group(parent, k, runs[k], depth, used)
                continue
            level = self._level(k, depth)
            if level is None:
                self.steps[k].group = parent
                k += 1
                continue
            end = k + 1
            while end < stop and end not in runs and self._level(end, depth) == level:
                end += 1
            first, last, rep = self._trimmed(k, end, depth + 1)
            self._edge_runs(parent, k, first, depth, used)
            used[level.short] += 1
            short = level.short if used[level.short] == 1 else f"{level.short}#{used[level.short]}"
            node = self._add(parent, short, self._title(level, first, last), level, first,
                             last - 1)
            if rep is None:
                self.fill(node, first, last, depth + 1)
            elif (rep.starts[0], rep.stop) == (first, last):
                self._repeat(node, level, rep, depth + 1)
            else:  # the steps before and after the repetitions stay in the group itself
                inner: Counter[str] = Counter()
                self.fill(node, first, rep.starts[0], depth + 1, inner)
                self._repeat(self._add(node, "repeated", "", level, rep.starts[0], rep.stop - 1),
                             level, rep, depth + 1)
                self.fill(node, rep.stop, last, depth + 1, inner)
            self._edge_runs(parent, last, end, depth, used)
            k = end

    def _trimmed(self, start: int, stop: int, depth: int
                 ) -> tuple[int, int, _Repeats | None]:
        """``[start, stop)`` without the runs of collectives at its edges when what is left
        is one stretch repeated (XLA hoists every layer's parameter gathers ahead of the
        layers: ``block`` x12 after 84 all-gathers, not one ``block`` group that repeats
        nothing); with the repetitions found in what is kept (None: none). Failing that,
        the repetitions in most of it, the steps before and after them kept beside."""
        rep = self._repeats(start, stop, depth, whole=True)
        if rep is not None:
            return start, stop, rep
        first = self._past_runs(start, stop, 1)
        last = self._past_runs(stop - 1, first - 1, -1) + 1
        if (first, last) != (start, stop) and last - first >= 2:
            rep = self._repeats(first, last, depth, whole=True)
            if rep is not None:
                return first, last, rep
        return start, stop, self._repeats(start, stop, depth, whole=False)

    def _past_runs(self, k: int, stop: int, way: int) -> int:
        """From ``k`` towards ``stop`` (``way`` 1 or -1): the first step past the runs of at
        least 4 collectives of one kind there (with the steps between them that read
        nothing or belong to another part's stretch)."""
        while k != stop:
            c = self.steps[k].collective
            if c is None:
                if not (self._transparent(k) or self._elsewhere(k)):
                    return k
                k += way
                continue
            end, count = k, 0
            while end != stop:
                here = self.steps[end].collective
                if here is not None and here.kind == c.kind:
                    count += 1
                elif here is not None or not (self._transparent(end) or self._elsewhere(end)):
                    break
                end += way
            if count < 4:
                return k
            k = end
        return k

    def _edge_runs(self, parent: int, start: int, stop: int, depth: int,
                   used: Counter[str]) -> None:
        """The collectives cut from a group's edges (:meth:`_trimmed`): their runs of one
        kind grouped under ``parent``, the steps between them in ``parent`` itself."""
        k = start
        while k < stop:
            if self.steps[k].collective is None:
                self.steps[k].group = parent
                k += 1
                continue
            k = self._run_group(parent, k, self._run_end(k, stop), depth, used)

    def _title(self, level: _Level, start: int, stop: int) -> str:
        """A group's title; a part's says how many steps of the other parts XLA runs in
        its stretch (:func:`part_regions`)."""
        if level.kind != "part":
            return level.title
        others = Counter(s.part for s in self.steps[start:stop]
                         if s.part and s.part != level.key)
        if not others:
            return level.title
        told = [f"{n} step{'s' if n != 1 else ''} of {_PART_WORDS[part]}"
                for part, n in sorted(others.items(), key=lambda kv: PARTS.index(kv[0]))]
        return f"{level.title}, with {' and '.join(told)} that XLA runs among them"

    def _run_group(self, parent: int, k: int, end: int, depth: int, used: Counter[str]) -> int:
        """A group of the collectives ``[k, end)`` of one kind in a row; returns ``end``."""
        kind = self.steps[k].collective.kind  # type: ignore[union-attr]  # a run's steps are
        used[kind] += 1
        short = f"{kind}s" if used[kind] == 1 else f"{kind}s#{used[kind]}"
        collectives = sum(self.steps[j].collective is not None for j in range(k, end))
        level = _Level("run", f"run:{k}", short, f"{collectives} {kind}s in a row")
        node = self._add(parent, short, level.title, level, k, end - 1)
        rep = self._repeats(k, end, depth, whole=True)
        if rep is None:
            for j in range(k, end):
                self.steps[j].group = node
            return end
        count = len(rep.starts)
        self._repeat(node, level, rep, depth, leaves=True)
        children = [c for c in range(node + 1, len(self.groups))
                    if self.groups[c].parent == node]
        each = [sum(self.steps[j].collective is not None
                    for j in range(self.groups[c].first, self.groups[c].last + 1))
                for c in children]
        if len(set(each[:-1])) > 1:  # (another part's among some of them): no one count
            title = f"{collectives} {kind}s in a row: x{count}"
        else:
            last = f" (the last one {each[-1]})" if each[-1] != each[0] else ""
            title = f"{collectives} {kind}s in a row: {each[0]} x{count}{last}"
        self.groups[node].title = title
        for n, child in enumerate(children):
            self.groups[child].title = f"{each[n]} {kind}s, {n + 1} of {count}"
        return end

    def _runs(self, start: int, stop: int, depth: int) -> dict[int, int]:
        """Runs of at least 4 collectives of one kind in a row from several places
        (XLA hoists, e.g., every parameter's all-gather to the start): start -> end."""
        runs: dict[int, int] = {}
        k = start
        while k < stop:
            end = self._run_end(k, stop) if self.steps[k].collective is not None else k
            if end - k >= 4 and len({self._level(j, depth) for j in range(k, end)}) > 1:
                runs[k] = end
            k = max(end, k + 1)
        return runs

    def _run_end(self, k: int, stop: int) -> int:
        """Where the run of collectives of step ``k``'s kind that begins at ``k`` ends."""
        first = self.steps[k].collective
        assert first is not None
        end = k
        while end < stop:
            c = self.steps[end].collective
            if c is not None and c.kind == first.kind:
                end += 1
            elif (self._transparent(end) and end + 1 < stop
                  and (after := self.steps[end + 1].collective) is not None
                  and after.kind == first.kind):
                end += 1  # a step that reads nothing, between two of the run
            else:
                break
        return end

    def _repeat(self, node: int, level: _Level, rep: _Repeats, depth: int,
                leaves: bool = False) -> None:
        """Make ``node`` a repeat group: one child from each of the repetitions' starts."""
        count = len(rep.starts)
        group = self.groups[node]
        group.kind, group.repeat = "repeat", count
        group.title = f"{level.title} x{count}"
        if rep.shorter:
            group.title += " (the last one shorter)"
        ends = [*rep.starts[1:], rep.stop]
        for n, (a, b) in enumerate(zip(rep.starts, ends)):
            child = self._add(node, str(n + 1), f"{level.short}, {n + 1} of {count}", level, a,
                              b - 1)
            self.groups[child].iteration = n + 1
            if leaves:
                for j in range(a, b):
                    self.steps[j].group = child
            else:
                self.fill(child, a, b, depth)

    def _add(self, parent: int, short: str, title: str, level: _Level, first: int,
             last: int) -> int:
        self.groups.append(StepGroup(
            name=short if parent == 0 else f"{self.groups[parent].name}/{short}", title=title,
            kind=level.kind, first=first, last=last, parent=parent,
            trip_count=level.trip_count, function=level.function, line=level.line))
        return len(self.groups) - 1

    def _level(self, k: int, depth: int) -> _Level | None:
        path = self.paths[k]
        return path[depth] if depth < len(path) else None

    def _signature(self, k: int, depth: int) -> tuple[object, ...]:
        s = self.steps[k]
        c = s.collective
        where = (tuple(lv.key for lv in self.paths[k][depth:]),
                 tuple((e.kind, e.trip_count) for e in s.within),
                 s.calls[-1].line if s.calls else None)
        if c is None:  # XLA fuses the edges of a repeated stretch differently: kind and place
            return (s.kind, *where)
        return (c.kind, c.reduction, tuple(s.input_shapes), tuple(s.output_shapes), *where)

    def _transparent(self, k: int) -> bool:
        """A compute step that reads nothing (index arithmetic XLA schedules anywhere)."""
        s = self.steps[k]
        return s.collective is None and not s.input_shapes

    def _elsewhere(self, k: int) -> bool:
        """A step of one part that XLA runs in another's stretch (:func:`part_regions`)."""
        part = self.steps[k].part
        return bool(part) and part != self.regions[k]

    def _repeats(self, start: int, stop: int, depth: int, whole: bool) -> _Repeats | None:
        """The longest stretch of ``[start, stop)`` that is one shorter stretch repeated,
        the shortest such (steps that read nothing, and steps of another part that XLA runs
        among its own, do not count).

        ``whole``: only a stretch that is all of ``[start, stop)``; else one that covers at
        least two thirds of it, repeated at least three times. The last repetition may lack
        its last steps (XLA fused them with other work) if it has at least half of them:
        12 layers of 4 steps that end with 3 are 12 repetitions, the last one of 3 steps.
        """
        keep = [k for k in range(start, stop)
                if not self._transparent(k) and not self._elsewhere(k)]
        n = len(keep)
        ids: dict[tuple[object, ...], int] = {}
        sigs = [ids.setdefault(self._signature(k, depth), len(ids)) for k in keep]
        best: tuple[int, int, int] | None = None  # (steps covered, period, first)
        for p in range(1, n // 2 + 1):
            if whole:
                if all(sigs[i] == sigs[i + p] for i in range(n - p)):
                    best = (n, p, 0)
                    break
                continue
            run = longest = at = 0
            for i in range(n - p):
                run = run + 1 if sigs[i] == sigs[i + p] else 0
                if run > longest:
                    longest, at = run, i - run + 1
            covered = longest + p
            if longest >= 2 * p and 3 * covered >= 2 * n and (best is None or covered > best[0]):
                best = (covered, p, at)
        if best is None:
            return None
        covered, p, first = best
        rest = covered % p
        if rest and 2 * rest < p:
            if whole:
                return None
            covered -= rest
        starts = [keep[first + i] for i in range(0, covered, p)]
        if whole:
            starts[0] = start
            end = stop
        else:
            end = keep[first + covered - 1] + 1
        if not whole:  # what repeats inside one group of the next level is found there
            inside = {self._level(keep[i], depth) for i in range(first, first + covered)}
            if len(inside) == 1 and None not in inside:
                return None
        return _Repeats(starts, end, shorter=covered % p != 0)


@dataclass(frozen=True)
class _Repeats:
    """Repetitions found in a stretch of steps: where each starts, where the last ends, and
    whether the last one lacks some of its last steps."""

    starts: list[int]
    stop: int
    shorter: bool = False
