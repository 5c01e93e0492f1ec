"""Run a jaxpr equation by equation, on every device, recording each step's values.

The evaluator keeps, for every variable, one value per *lane*: a single host
lane outside mapped bodies, one lane per device inside a ``shard_map`` body
(``pmap`` is ``jit(shard_map(...))`` in JAX 0.10). Ordinary equations run with
``primitive.bind`` on each lane's values, as ``jax.core.eval_jaxpr`` does;
collectives are computed across the lanes of each group
(:mod:`jaxviz.core.stepper_mapped`); nested jaxprs are stepped into: calls
(``jit``, ``custom_jvp_call`` ...) once, ``scan`` and ``while`` bodies with the
real iteration counts, ``cond`` the branch each lane's predicate picks.

Each lane's equations run as JAX's eager primitives on the default device
(the devices themselves do not run the stepped program): the values are what
each device computes, which the oracle tests check against the real compiled
run (``tests/core/test_stepper_oracle.py``). Every touch of the jaxpr IR goes
through :mod:`jaxviz.core.jax_internals`.
"""

from __future__ import annotations

import linecache
from dataclasses import dataclass, field
from typing import Any

import jax.numpy as jnp
import numpy as np

from jaxviz.core import jax_internals as ji
from jaxviz.core import stepper_mapped
from jaxviz.core.stepper_mapped import MeshLanes
from jaxviz.core.stepper_values import Recorder
from jaxviz.model import ErrorInfo, SourceSpan, VarInfo
from jaxviz.model.errors import UserError, from_exception
from jaxviz.model.stepping import EvalStep, LaneValues

#: Values per lane of one variable (None where a lane does not run).
PerLane = list[Any]


class StopStepping(Exception):
    """Stepping reached the request's ``until_line``."""


@dataclass
class Frame:
    """Where the evaluator is: the path prefix, the depth, the lanes and which of them run.

    Attributes:
        prefix: the path text of the enclosing equations (``jit[0] > ``).
        depth: how many jaxprs deep.
        mesh: the lanes of the mapped body, or None on the host.
        active: the lanes running here (a subset after a ``cond`` or ``while``
            where devices went different ways).
    """

    prefix: str = ""
    depth: int = 0
    mesh: MeshLanes | None = None
    active: list[int] = field(default_factory=lambda: [0])

    @property
    def width(self) -> int:
        return len(self.mesh.devices) if self.mesh is not None else 1

    def device(self, lane: int) -> int | None:
        return self.mesh.devices[lane] if self.mesh is not None else None

    def inner(self, text: str, active: list[int] | None = None,
              mesh: MeshLanes | None = None) -> Frame:
        return Frame(f"{self.prefix}{text} > ", self.depth + 1,
                     mesh if mesh is not None else self.mesh,
                     list(self.active if active is None else active))


class Evaluator:
    """Steps one closed jaxpr and collects its :class:`EvalStep` records.

    Args:
        recorder: makes value records (and keeps their size in check).
        lines: ``id(eqn)`` -> lines in the jaxpr text (from ``jaxpr_text_and_lines``).
        context: the printing context that names variables as the text does.
        filename: the user's file (equations' source lines are looked up there).
        until_line: stop after the first equation from this line, if given.
        mesh: the concrete mesh the program was traced in (``jax.set_mesh``): what a
            ``shard_map`` that names no mesh of its own (an abstract one) runs on.
        record: the indices of the steps whose values are recorded (None: every step).
            Every equation still runs (the values after it depend on it), and every
            step is listed with its variables; only the steps in ``record`` carry
            values, so a jump deep into a big program records a window, not all
            that comes before it.
    """

    def __init__(self, recorder: Recorder, lines: dict[int, tuple[int, int]], context: Any,
                 filename: str, until_line: int | None = None, mesh: Any = None,
                 record: range | None = None):
        self.recorder = recorder
        self.record = record
        self.mesh = mesh
        self.lines = lines
        self.context = context
        self.filename = filename
        self.until_line = until_line
        self.steps: list[EvalStep] = []
        self.meshes: list[MeshLanes] = []
        #: Global outputs of mapped bodies -> (mesh, per-lane blocks), for the result.
        self.blocks: dict[int, tuple[Any, MeshLanes, PerLane]] = {}
        #: The devices of the innermost enclosing ``jit`` whose shardings span several.
        self._partitioned: list[frozenset[int]] = []
        #: Devices a partitioned ``jit`` splits equations that ran here on whole arrays.
        self.whole_over: set[int] = set()

    # -- jaxprs ------------------------------------------------------------- #

    def run(self, jaxpr: Any, consts: list[Any], args: list[Any]) -> list[Any]:
        """Step a jaxpr on the host; returns its outputs."""
        outs = self.run_jaxpr(jaxpr, [[ji.detached(c)] for c in consts], [[a] for a in args],
                              Frame())
        return [o[0] for o in outs]

    def run_jaxpr(self, jaxpr: Any, consts: list[PerLane], args: list[PerLane],
                  frame: Frame) -> list[PerLane]:
        constvars, invars, outvars, eqns = ji.signature(jaxpr)
        env: dict[Any, PerLane] = {}
        env.update(zip(constvars, consts))
        env.update(zip(invars, args))
        for index, eqn in enumerate(eqns):
            invals = [self._read(atom, env, frame) for atom in eqn.invars]
            outs = self.run_equation(eqn, index, invals, frame)
            for var, vals in zip(eqn.outvars, outs):
                if not ji.is_drop(var):
                    env[var] = vals
        return [self._read(atom, env, frame) for atom in outvars]

    def _read(self, atom: Any, env: dict[Any, PerLane], frame: Frame) -> PerLane:
        if ji.is_literal(atom):
            value = ji.read_atom(atom, env)
            return [value] * frame.width
        return env[atom]

    # -- equations ---------------------------------------------------------- #

    def run_equation(self, eqn: ji.EqnView, index: int, invals: list[PerLane],
                     frame: Frame) -> list[PerLane]:
        nested = ji.nested(eqn)
        if nested is not None:
            return self._run_nested(eqn, index, nested, invals, frame)
        coll = ji.collective(eqn)
        groups: list[list[int]] = []
        if coll is not None and frame.mesh is not None and (coll.axes or coll.kind == "pvary"):
            outs, lane_groups = stepper_mapped.evaluate(coll, invals, frame.mesh, frame.active)
            groups = [[frame.mesh.devices[lane] for lane in g] for g in lane_groups]
        else:
            if frame.mesh is None and self._partitioned:  # a whole array, not a block
                self.whole_over |= self._partitioned[-1]
            outs = [[None] * frame.width for _ in eqn.outvars]
            for lane in frame.active:
                try:
                    results = ji.bind(eqn, [vals[lane] for vals in invals])
                except Exception as exc:  # noqa: BLE001 - any primitive may fail
                    raise self._failure(eqn, index, frame, lane, exc) from exc
                for k, result in enumerate(results):
                    outs[k][lane] = result
        step = self._step("equation", eqn, index, frame, invals, outs)
        step.groups = groups
        self._finish(step, frame)
        return outs

    def _failure(self, eqn: ji.EqnView, index: int, frame: Frame, lane: int,
                 exc: Exception) -> UserError:
        """An equation that raised: say which one, where, on which device, and why."""
        where = "" if frame.mesh is None else f" on device {frame.device(lane)}"
        info = from_exception(exc, self.filename)
        info.message = (f"stepping failed at {frame.prefix}{index} ({eqn.primitive}){where}: "
                        f"{info.message}")
        span = ji.user_span(eqn.eqn, self.filename)
        if span is not None and info.line is None:
            info.file, info.line, info.column = span[0], span[1], span[2]
            info.source_line = linecache.getline(span[0], span[1]).rstrip("\n") or None
        return UserError(info)

    def _step(self, kind: str, eqn: ji.EqnView, index: int, frame: Frame,
              invals: list[PerLane] | None, outs: list[PerLane] | None) -> EvalStep:
        first, last = self.lines.get(id(eqn.eqn), (None, None))
        span = ji.user_span(eqn.eqn, self.filename)
        step = EvalStep(kind=kind, path=f"{frame.prefix}{index}", depth=frame.depth,
                    primitive=eqn.primitive,
                    inputs=[self._var(v) for v in eqn.invars] if invals is not None else [],
                    outputs=[self._var(v) for v in eqn.outvars] if outs is not None else [],
                    source=SourceSpan(*span) if span else None, text_start=first,
                    text_end=last,
                    params={k: ji.param_text(v) for k, v in sorted(eqn.params.items())})
        if not self._records(len(self.steps)):
            return step  # listed, its values not recorded (outside the request's window)
        for lane in frame.active:
            step.lanes.append(LaneValues(
                device=frame.device(lane),
                inputs=[self.recorder.value(v[lane]) for v in invals or []],
                outputs=[self.recorder.value(v[lane]) for v in outs or []]))
        return step

    def _records(self, index: int) -> bool:
        """Whether step ``index`` carries values."""
        return self.record is None or index in self.record

    def _var(self, var: Any) -> VarInfo:
        shape, dtype = ji.aval_of(var)
        return VarInfo(name=ji.var_name(var, self.context), shape=shape, dtype=dtype,
                       literal=ji.is_literal(var))

    def _finish(self, step: EvalStep, frame: Frame) -> int:
        """Append a step; stop if it is the first equation of the ``until`` line."""
        self.steps.append(step)
        self.recorder.end_step()
        if (self.until_line is not None and step.kind == "equation" and step.source is not None
                and step.source.file == self.filename and step.source.line == self.until_line):
            raise StopStepping(f"stopped after the first equation of line {self.until_line}")
        return len(self.steps) - 1

    # -- nested jaxprs ------------------------------------------------------ #

    def _run_nested(self, eqn: ji.EqnView, index: int, nested: ji.Nested,
                    invals: list[PerLane], frame: Frame) -> list[PerLane]:
        enter = self._step("enter", eqn, index, frame, invals, None)
        enter_at = self._finish(enter, frame)
        label = f"{eqn.primitive}[{index}]"
        blocks: list[PerLane] | None = None
        if nested.kind == "call":
            body = nested.bodies[0]
            over = ji.sharded_over(eqn) if frame.mesh is None else frozenset()
            if len(over) > 1:
                self._partitioned.append(over)
            try:
                outs = self.run_jaxpr(body.jaxpr, self._const(body, frame), invals,
                                      frame.inner(label))
            finally:
                if len(over) > 1:
                    self._partitioned.pop()
        elif nested.kind == "scan":
            outs = self._scan(nested, invals, frame, label, enter)
        elif nested.kind == "while":
            outs = self._while(nested, invals, frame, label, enter)
        elif nested.kind == "cond":
            outs = self._cond(nested, invals, frame, label, enter)
        else:
            outs, blocks = self._shard_map(nested, invals, frame, label, enter)
        leave = self._step("leave", eqn, index, frame, None, outs)
        leave.note = enter.note
        if blocks is not None:
            self._add_device_lanes(leave, len(self.steps), blocks, self.meshes[-1],
                                   inputs=False)
        leave.partner = enter_at
        enter.partner = self._finish(leave, frame)
        return outs

    def _const(self, body: ji.Body, frame: Frame) -> list[PerLane]:
        return [[ji.detached(c)] * frame.width for c in body.consts]

    def _scan(self, nested: ji.Nested, invals: list[PerLane], frame: Frame, label: str,
              enter: EvalStep) -> list[PerLane]:
        p = nested.params
        body = nested.bodies[0]
        nc, ncarry, length = p["num_consts"], p["num_carry"], p["length"]
        consts, carry, xs = invals[:nc], invals[nc:nc + ncarry], invals[nc + ncarry:]
        ys: list[list[PerLane]] = []
        order = range(length - 1, -1, -1) if p["reverse"] else range(length)
        for i in order:
            x_i = [self._lanes(frame, lambda lane, v=v, i=i: v[lane][i]) for v in xs]
            outs = self.run_jaxpr(body.jaxpr, self._const(body, frame), consts + carry + x_i,
                                  frame.inner(f"{label} #{i}"))
            carry, y = outs[:ncarry], outs[ncarry:]
            ys.append(y)
        if p["reverse"]:
            ys.reverse()
        enter.note = f"{length} iteration{'s' * (length != 1)}" + (" (reverse)" if p["reverse"]
                                                                   else "")
        n_ys = len(_outvars(body)) - ncarry
        stacked = [self._lanes(frame, lambda lane, k=k: jnp.stack([y[k][lane] for y in ys]))
                   if ys else self._empty_ys(body, ncarry + k, frame) for k in range(n_ys)]
        return carry + stacked

    def _empty_ys(self, body: ji.Body, k: int, frame: Frame) -> PerLane:
        shape, dtype = ji.aval_shape_dtype(_outvars(body)[k])
        return [jnp.zeros((0, *shape), dtype)] * frame.width

    def _while(self, nested: ji.Nested, invals: list[PerLane], frame: Frame, label: str,
               enter: EvalStep) -> list[PerLane]:
        cond, body = nested.bodies
        cn, bn = nested.params["cond_nconsts"], nested.params["body_nconsts"]
        cond_consts, body_consts, carry = invals[:cn], invals[cn:cn + bn], invals[cn + bn:]
        carry = [list(c) for c in carry]
        active = list(frame.active)
        counts = dict.fromkeys(active, 0)
        iteration = 0
        while active:
            keep = self.run_jaxpr(cond.jaxpr, self._const(cond, frame), cond_consts + carry,
                                  frame.inner(f"{label} cond #{iteration}", active))[0]
            active = [lane for lane in active if bool(np.asarray(keep[lane]))]
            if not active:
                break
            new = self.run_jaxpr(body.jaxpr, self._const(body, frame), body_consts + carry,
                                 frame.inner(f"{label} body #{iteration}", active))
            for k, values in enumerate(new):
                for lane in active:
                    carry[k][lane] = values[lane]
                    counts[lane] = iteration + 1
            iteration += 1
        enter.note = _counts_note(counts, frame, "iteration")
        return carry

    def _cond(self, nested: ji.Nested, invals: list[PerLane], frame: Frame, label: str,
              enter: EvalStep) -> list[PerLane]:
        index, operands = invals[0], invals[1:]
        n = len(nested.bodies)
        chosen = {lane: min(max(int(np.asarray(index[lane])), 0), n - 1)
                  for lane in frame.active}
        outs: list[PerLane] | None = None
        for branch in sorted(set(chosen.values())):
            lanes = [lane for lane in frame.active if chosen[lane] == branch]
            body = nested.bodies[branch]
            got = self.run_jaxpr(body.jaxpr, self._const(body, frame), operands,
                                 frame.inner(f"{label} branch {branch}", lanes))
            if outs is None:
                outs = [[None] * frame.width for _ in got]
            for k, values in enumerate(got):
                for lane in lanes:
                    outs[k][lane] = values[lane]
        enter.note = _counts_note(chosen, frame, "branch")
        return outs or []

    def _shard_map(self, nested: ji.Nested, invals: list[PerLane], frame: Frame, label: str,
                   enter: EvalStep) -> tuple[list[PerLane], list[PerLane]]:
        """Run a shard_map body once per device; the assembled outputs and the blocks."""
        p = nested.params
        if frame.mesh is not None:
            raise UserError(ErrorInfo(kind="trace", message="a shard_map inside a mapped body "
                                                            "cannot be stepped yet"))
        lanes = MeshLanes.of(ji.concrete_mesh(p["mesh"], self.mesh))
        if set(p["manual_axes"]) != set(lanes.names):
            raise UserError(ErrorInfo(
                kind="trace", message=f"a shard_map over some mesh axes only "
                                      f"({', '.join(sorted(p['manual_axes']))} of "
                                      f"{', '.join(lanes.names)}) cannot be stepped yet"))
        self.meshes.append(lanes)
        blocks = [lanes.split(vals[0], spec) for vals, spec in zip(invals, p["in_specs"])]
        self._add_device_lanes(enter, len(self.steps) - 1, blocks, lanes, inputs=True)
        body = nested.bodies[0]
        width = len(lanes.devices)
        inner = frame.inner(label, list(range(width)), lanes)
        outs = self.run_jaxpr(body.jaxpr, self._const(body, inner), blocks, inner)
        result, notes = [], []
        for values, spec in zip(outs, p["out_specs"]):
            value, note = lanes.assemble(values, spec)
            self.blocks[id(value)] = (value, lanes, values)
            result.append([value])
            if note:
                notes.append(note)
        enter.note = "; ".join(notes)
        return result, outs

    def _add_device_lanes(self, step: EvalStep, at: int, values: list[PerLane],
                          lanes: MeshLanes, inputs: bool) -> None:
        """Add one lane per device (its blocks) to a shard_map marker (step ``at``), after
        the host lane."""
        if not self._records(at):
            return
        for lane, device in enumerate(lanes.devices):
            record = [self.recorder.value(v[lane]) for v in values]
            step.lanes.append(LaneValues(device=device, inputs=record if inputs else [],
                                         outputs=[] if inputs else record))

    def _lanes(self, frame: Frame, make: Any) -> PerLane:
        out: PerLane = [None] * frame.width
        for lane in frame.active:
            out[lane] = make(lane)
        return out


def _outvars(body: ji.Body) -> list[Any]:
    """The output variables of a nested jaxpr."""
    return ji.signature(body.jaxpr)[2]


def _counts_note(counts: dict[int, int], frame: Frame, what: str) -> str:
    """``3 iterations`` or ``branch 1``, per group of devices when they differ."""
    by_value: dict[int, list[int]] = {}
    for lane, value in counts.items():
        by_value.setdefault(value, []).append(lane)

    def text(value: int) -> str:
        if what == "branch":
            return f"branch {value}"
        return f"{value} {what}{'s' * (value != 1)}"

    if len(by_value) == 1:
        return text(next(iter(by_value)))
    parts = []
    for value, lanes in sorted(by_value.items()):
        devices = ", ".join(str(frame.device(lane)) for lane in lanes)
        parts.append(f"{text(value)} on device{'s' * (len(lanes) > 1)} {devices}")
    return "; ".join(parts)
