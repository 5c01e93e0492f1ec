"""The tests' own reading of a call, to check every claim and sentence of a storyboard.

Nothing here uses jaxviz's claims code: how the call runs is read from
``jax.make_jaxpr`` of the callable (one ``jit`` equation: one compiled program),
how many devices run it from the compiled HLO text's header, where each argument
starts from the argument as passed (its type, and its ``devices_indices_map``
against the compiled program's input sharding), how the devices hold each
output from the real call's shards, and what the user wrote from the source line
(Python's ``ast`` and the jaxpr's own equations).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Any

import jax
import numpy as np

from jaxviz.core import arguments, meshes
from jaxviz.core.trace import load
from jaxviz.model import TraceRequest
from jaxviz.views.devices.build import build_scene
from jaxviz.views.devices.summary import variant_summary

#: Collective primitives of a jaxpr (the user's, not the partitioner's).
COLLECTIVE_PRIMS = {"psum", "psum_invariant", "pmax", "pmin", "all_gather",
                    "all_gather_invariant", "ppermute", "all_to_all", "reduce_scatter",
                    "psum_scatter", "pbroadcast"}
HLO_COLLECTIVE = re.compile(r"(?<![%\w.-])(?:all-reduce|all-gather|reduce-scatter"
                            r"|collective-permute|all-to-all|collective-broadcast)(?:-start)?\(")
HLO_DTYPE = re.compile(r"\b(?:s(?:8|16|32|64)|pred)\[")
BAD_ARTICLE = re.compile(r"\ban (?:collective|reduce|f32|f16|bf16|ragged)|\ba (?:all-|i32|i64)")


@dataclass
class JaxView:
    """What JAX says about one variant's call, read by the test alone."""

    one_program: bool
    num_partitions: int
    starts: list[str]
    holding: list[str]
    source: list[str]
    eqns: list[Any]
    filename: str
    calls: dict[int, set[str]] = field(default_factory=dict)
    hlo_collectives: int = 0
    #: for each argument passed as a jax.Array and moved at the call: the devices it is on
    moved_from: set[int] = field(default_factory=set)


def _walk(jaxpr: Any):
    for eqn in jaxpr.eqns:
        yield eqn
        for v in eqn.params.values():
            for item in v if isinstance(v, (tuple, list)) else (v,):
                inner = getattr(item, "jaxpr", None)
                if inner is not None and hasattr(inner, "eqns"):
                    yield from _walk(inner)
                elif hasattr(item, "eqns"):
                    yield from _walk(item)


def _calls(source: str) -> dict[int, set[str]]:
    out: dict[int, set[str]] = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
            for line in range(node.lineno, (node.end_lineno or node.lineno) + 1):
                out.setdefault(line, set()).add(name)
    return out


def _starts(arg: Any, sharding: Any) -> str:
    if isinstance(arg, jax.ShapeDtypeStruct):
        return "placed" if arg.sharding is not None else "host"
    if isinstance(arg, jax.Array):
        shape = tuple(arg.shape)

        def ranges(s):
            return {d.id: tuple(sl.indices(n)[:2] for sl, n in zip(idx, shape))
                    for d, idx in s.devices_indices_map(shape).items()}
        return "placed" if ranges(arg.sharding) == ranges(sharding) else "device"
    return "host"


def _holding(value: Any) -> str:
    if not isinstance(value, jax.Array):
        return "one_device"  # a NumPy value: no device holds it
    shape = tuple(value.shape)
    index = {d.id: tuple(sl.indices(n)[:2] for sl, n in zip(idx, shape))
             for d, idx in value.sharding.devices_indices_map(shape).items()}
    if len(index) == 1:
        return "one_device"
    if len(set(index.values())) == 1:
        return "copies"
    shards = [np.asarray(s.data) for s in value.addressable_shards]
    if all(s.shape == shards[0].shape and np.array_equal(s, shards[0], equal_nan=True)
           for s in shards[1:]):
        return "equal_pieces"
    return "pieces"


def jax_view(req: TraceRequest, variant: str) -> JaxView:
    """Ask JAX about the call jaxviz makes for ``variant`` of ``req``."""
    prepared = load(req).builder.prepare(variant)
    concrete, _ = arguments.random_concrete(prepared.args, 0)  # as the run makes them
    with meshes.mesh_context(prepared.context):
        closed = jax.make_jaxpr(prepared.fn)(*prepared.args)
        eqns = closed.jaxpr.eqns
        one = len(eqns) == 1 and eqns[0].primitive.name in ("jit", "pjit")
        fn = prepared.fn if hasattr(prepared.fn, "lower") else jax.jit(prepared.fn)
        compiled = fn.lower(*prepared.args).compile()
        hlo = compiled.as_text()
        header = hlo.split("\n", 1)[0]
        m = re.search(r"num_partitions=(\d+)", header)
        shardings = jax.tree.leaves(compiled.input_shardings[0], is_leaf=lambda s: s is None)
        leaves = jax.tree.leaves(prepared.args)
        assert len(leaves) == len(shardings)
        # an argument the program does not use (sharding None) is never sent
        starts = [_starts(a, s) for a, s in zip(leaves, shardings) if s is not None]
        moved_from = {d.id for a, s in zip(leaves, shardings) if s is not None
                      and _starts(a, s) == "device" for d in a.sharding.device_set}
        out = prepared.fn(*concrete)
        holding = [_holding(v) for v in jax.tree.leaves(out)]
    return JaxView(one_program=one, num_partitions=int(m.group(1)) if m else 1, starts=starts,
                   holding=holding, source=req.target.source.splitlines(),
                   eqns=list(_walk(closed.jaxpr)), filename=req.target.filename,
                   calls=_calls(req.target.source),
                   hlo_collectives=len(HLO_COLLECTIVE.findall(hlo)), moved_from=moved_from)


def _line_of(eqn: Any, filename: str) -> int | None:
    for frame in eqn.source_info.traceback.frames if eqn.source_info.traceback else []:
        if frame.file_name == filename:
            return frame.line_num
    return None


def _check_written(jv: JaxView, name: str, line: int, divisor: int | None) -> None:
    """A collective said to be ``name`` on ``line``: the source calls it there, and the
    jaxpr has a collective there (jax.grad: one the transpose of autodiff made)."""
    here = [e for e in jv.eqns if e.primitive.name in COLLECTIVE_PRIMS
            and _line_of(e, jv.filename) == line]
    assert here, f"no collective in the jaxpr on line {line}"
    if name == "jax.grad":
        assert any("transpose(" in str(e.source_info.name_stack) for e in here), line
        return
    assert name in jv.calls.get(line, set()), (name, line)
    if name == "pmean" and divisor is not None:
        psums = [e for e in here if e.primitive.name in ("psum", "psum_invariant")]
        divs = [e for e in jv.eqns if e.primitive.name == "div"
                and any(e.invars[0] is p.outvars[0] for p in psums)]
        assert divs and float(divs[0].invars[1].val) == divisor


def check(result: Any, req: TraceRequest, variant: str) -> list[str]:
    """Every claim and sentence of the variant's storyboard against JAX; returns the captions."""
    vr = result.variant(variant)
    assert vr.error is None, vr.error.message
    story = vr.storyboard
    claims = story.claims
    assert claims is not None, "the storyboard carries its claims"
    jv = jax_view(req, variant)

    # how the call runs, and on how many devices
    assert claims.program.one_program == jv.one_program, (claims.program, jv.one_program)
    assert claims.program.num_partitions == jv.num_partitions
    # where the inputs start, how the outputs are held
    ins = [a for a in claims.arrays if a.role == "input"]
    outs = [a for a in claims.arrays if a.role == "output"]
    if len(ins) == len(jv.starts):
        assert [a.starts for a in ins] == jv.starts, [a.name for a in ins]
    assert [a.holding for a in outs] == jv.holding, [a.name for a in outs]
    # what the user wrote
    for c in claims.collectives:
        step = story.steps[c.step]
        assert step.collective is not None
        if step.collective.origin == "jaxpr" and c.written:
            for name, line in zip(c.written.split(" and "), c.lines):
                _check_written(jv, name, line, c.divisor)
        if c.asked_by == "sharding_constraint":
            assert any(e.primitive.name == "sharding_constraint"
                       and _line_of(e, jv.filename) == c.asked_line for e in jv.eqns)

    # the sentences
    scene = build_scene(result, variant)
    texts = [f"{p.title}\n{p.caption}" for p in scene.phases]
    everything = "\n".join(texts)
    assert not HLO_DTYPE.search(everything), HLO_DTYPE.search(everything)
    assert not BAD_ARTICLE.search(everything), BAD_ARTICLE.search(everything)
    assert not any("psum_invariant" in p.title for p in scene.phases)  # titles: as written
    if "examples on the host" in everything:
        assert set(jv.starts) == {"host"}, jv.starts
    if "host memory" in everything:
        assert "host" in jv.starts
    if re.search(r"already on (?:the devices|device \d+)", everything):
        assert "placed" in jv.starts
    for device in re.findall(r"jax\.Arrays? on device (\d+), not where", everything):
        assert jv.moved_from == {int(device)}, (device, jv.moved_from)
    if "one device does all the work" in everything or re.search(r"Device \d+ computes",
                                                                 everything):
        assert jv.num_partitions == 1
    if "op by op" in everything:
        assert not jv.one_program
    if "one compiled" in everything or "ONE compiled" in everything:
        assert jv.one_program
    if "identical copies" in everything:
        assert "equal_pieces" in jv.holding
    for p in scene.phases:
        if p.kind == "collective" and p.step is not None and p.step.collective is not None \
                and p.step.collective.origin == "jaxpr":
            for name, line in re.findall(r"([\w.]+) \(line (\d+)\)", p.title):
                _check_written(jv, name, int(line), None)
    check_summary(variant_summary(vr), jv, variant)
    return texts


def check_summary(text: str, jv: JaxView, variant: str) -> None:
    """A summary slide's sentence about one variant against JAX (its claims' words)."""
    assert text.startswith(f"{variant}: "), text
    assert ("op by op" in text) == (not jv.one_program), text
    assert ("one compiled program" in text) == jv.one_program, text
    m = re.search(r"(?:program|op by op) on (\d+) devices|on device (\d+)", text)
    assert m, text
    assert (int(m.group(1)) if m.group(1) else 1) == jv.num_partitions, text
    assert ("already placed" in text) == ("placed" in jv.starts), (text, jv.starts)
    assert ("from the host" in text) == ("host" in jv.starts), (text, jv.starts)
    assert ("moved between devices" in text) == ("device" in jv.starts), (text, jv.starts)
    assert ("identical copies" in text) == ("equal_pieces" in jv.holding), (text, jv.holding)
    assert ("distinct pieces" in text) == ("pieces" in jv.holding), (text, jv.holding)
    assert ("no collective runs" in text) == (jv.hlo_collectives == 0), (text, jv.hlo_collectives)
    for name, line in re.findall(r"([\w.]+) \(line (\d+)\) as ", text):
        _check_written(jv, name, int(line), None)
