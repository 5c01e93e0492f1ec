"""Derive a storyboard's claims (:mod:`jaxviz.model.claims`) from JAX.

Each claim comes from what JAX says about the call, never from the variant's
name or the example:

* how the call runs: one compiled program when the callable is staged by JAX
  (``jax.jit``/``jax.pmap`` give it ``.lower``) or its jaxpr is a single
  ``jit`` equation; op by op otherwise. On how many devices: the compiled HLO
  module's ``num_partitions``.
* where each input starts: the argument as passed -- a NumPy/Python value is on
  the host, a ``jax.Array`` whose sharding is equivalent to the compiled
  program's input sharding is already placed (nothing moves at the call), any
  other ``jax.Array`` is moved at the call.
* how the devices hold each array: its tiles (``devices_indices_map``); after the
  real run, distinct blocks whose values are identical on every device.
* which collective the user wrote: the jaxpr primitive and its source line, and
  the name called on that line of the user's source (``pmean`` is a ``psum``
  the jaxpr divides by n next).
* what asked XLA for an inserted collective: the equation whose sharding forces
  it; a ``sharding_constraint`` (``reshard``, ``device_put``) applied to the
  value the collective re-tiles is named, not the equation that made the value.
"""

from __future__ import annotations

import ast
from typing import Any

import jax
import numpy as np

from jaxviz.core import jax_internals, variant_notes
from jaxviz.core.story_origins import JAXPR_COLLECTIVES
from jaxviz.model import Equation, VariantResult
from jaxviz.model.claims import (
    ArrayClaim,
    CollectiveClaim,
    ProgramClaim,
    StoryClaims,
    jaxpr_type,
)
from jaxviz.model.notes import VariantNote
from jaxviz.model.records import walk_equations
from jaxviz.model.storyboard import ArrayTiles, Storyboard

#: The functions a user calls that become each jaxpr collective primitive.
WRITTEN_AS = {
    "psum": ("psum", "pmean"), "psum_invariant": ("psum", "pmean"),
    "pmax": ("pmax",), "pmin": ("pmin",),
    "all_gather": ("all_gather",), "all_gather_invariant": ("all_gather",),
    "ppermute": ("ppermute", "pshuffle", "pswapaxes"), "pshuffle": ("pshuffle",),
    "all_to_all": ("all_to_all", "pswapaxes"), "reduce_scatter": ("psum_scatter",),
    "psum_scatter": ("psum_scatter",), "pbroadcast": ("pbroadcast",),
}
#: What :attr:`CollectiveClaim.written` says for a collective autodiff's transpose made.
GRAD = "jax.grad"
#: jaxpr primitives that ask for a layout: the partitioner moves data to obey them.
LAYOUT_REQUESTS = frozenset({"sharding_constraint", "reshard", "device_put", "mesh_cast"})


# --------------------------------------------------------------------------- #
# how the call runs
# --------------------------------------------------------------------------- #


def program_claim(fn: Any, closed: Any, num_partitions: int, devices: list[int]) -> ProgramClaim:
    """How JAX runs ``fn`` (whose jaxpr is ``closed``) and on how many devices."""
    if callable(getattr(fn, "lower", None)):
        runs = "compiled"
    elif len(closed.jaxpr.eqns) == 1 and closed.jaxpr.eqns[0].primitive.name in ("jit", "pjit"):
        runs = "compiled_inside"
    else:
        runs = "op_by_op"
    return ProgramClaim(runs=runs, num_partitions=num_partitions, devices=list(devices))


# --------------------------------------------------------------------------- #
# where the arrays are
# --------------------------------------------------------------------------- #


def starts(arg: Any, sharding: Any) -> str:
    """Where one argument leaf is when the call starts (see :class:`ArrayClaim`)."""
    if isinstance(arg, jax.ShapeDtypeStruct):
        # made concrete for the run: device_put on its sharding, else NumPy
        return "placed" if arg.sharding is not None else "host"
    if isinstance(arg, jax.Array) and not isinstance(arg, jax.core.Tracer):
        try:
            same = bool(arg.sharding.is_equivalent_to(sharding, arg.ndim))
        except (TypeError, ValueError, AttributeError):
            same = False
        return "placed" if same else "device"
    return "host"


def devices_of(arg: Any) -> list[int]:
    """The devices a ``jax.Array`` argument is on, as passed (empty for anything else)."""
    if isinstance(arg, jax.Array) and not isinstance(arg, jax.core.Tracer):
        try:
            return sorted(int(d.id) for d in arg.sharding.device_set)  # type: ignore[attr-defined]
        except (AttributeError, RuntimeError):
            return []
    return []


def holding(tiles: ArrayTiles) -> str:
    """How the devices hold an array, from its tiles."""
    if len(tiles.devices) <= 1:
        return "one_device"
    return "copies" if len(tiles.tiles) == 1 else "pieces"


def array_claims(story: Storyboard, args: list[Any], arg_names: list[str],
                 in_shardings: list[Any], process_of: dict[int, int]) -> list[ArrayClaim]:
    """One claim per input and output of the storyboard.

    ``args`` are the arguments as passed, ``arg_names`` the name of each of their leaves
    and ``in_shardings`` the compiled program's sharding of each leaf (``None``: unused).
    """
    leaves = jax.tree.leaves(args, is_leaf=lambda x: x is None)
    by_name = ({n: (a, s) for n, a, s in zip(arg_names, leaves, in_shardings)}
               if len(leaves) == len(arg_names) == len(in_shardings) else {})
    out = []
    for a in story.arrays:
        start = ""
        on: list[int] = []
        if a.role == "input" and a.name in by_name and by_name[a.name][1] is not None:
            start = starts(*by_name[a.name])
            on = devices_of(by_name[a.name][0])
        out.append(ArrayClaim(name=a.name, role=a.role, type_str=a.type_str, starts=start,
                              holding=holding(a),
                              processes=len({process_of.get(d, 0) for d in a.devices}) or 1,
                              on=on))
    return out


def equal_pieces(claims: StoryClaims, outputs: list[Any]) -> None:
    """After the real run: outputs in distinct blocks whose values are the same everywhere.

    ``outputs`` are the flat output leaves of the real call, in storyboard order.
    """
    mine = [a for a in claims.arrays if a.role == "output"]
    if len(mine) != len(outputs):
        return
    for claim, value in zip(mine, outputs):
        if claim.holding != "pieces" or not isinstance(value, jax.Array):
            continue
        try:
            shards = [np.asarray(s.data) for s in value.addressable_shards]
        except (RuntimeError, ValueError):
            continue
        if len(shards) > 1 and all(s.shape == shards[0].shape for s in shards) and all(
                np.array_equal(s, shards[0], equal_nan=True) for s in shards[1:]):
            claim.holding = "equal_pieces"


# --------------------------------------------------------------------------- #
# collectives
# --------------------------------------------------------------------------- #


def collective_claims(story: Storyboard, vr: VariantResult, source: str, filename: str,
                      closed: Any = None) -> list[CollectiveClaim]:
    """One claim per collective step: what the user wrote, or what asked XLA for it.

    ``closed`` (the variant's jaxpr) tells the collectives autodiff's transpose made.
    """
    equations = list(walk_equations(vr.equations))
    jax_eqns = list(variant_notes.walk(closed.jaxpr)) if closed is not None else []
    backward = ([jax_internals.from_backward_pass(e) for e in jax_eqns]
                if len(jax_eqns) == len(equations) else [])
    calls = _calls_by_line(source)
    out = []
    for k, step in enumerate(story.steps):
        c = step.collective
        if c is None:
            continue
        claim = CollectiveClaim(step=k, input_types=[jaxpr_type(t) for t in step.input_shapes],
                                output_types=[jaxpr_type(t) for t in step.output_shapes])
        eqs = [equations[i] for i in step.equations if i < len(equations)]
        if c.origin == "jaxpr":
            found = [i for i in step.equations
                     if i < len(equations) and equations[i].primitive in JAXPR_COLLECTIVES]
            if found:
                claim.primitive = equations[found[0]].primitive
                parts: list[tuple[str, int | None]] = []
                for i in found:
                    e = equations[i]
                    line = _line(e, filename)
                    if i < len(backward) and backward[i]:
                        name = GRAD  # the transpose of jax.grad made it, not a call
                    else:
                        divisor = _divisor(e, equations)
                        name = _written(e.primitive, calls.get(line or -1, []), divisor)
                        if name == "pmean":
                            claim.divisor = divisor
                    parts.append((name, line))
                parts = list(dict.fromkeys(parts))
                # every part must be read off the program, or none is said
                if all(name for name, _ in parts):
                    claim.written = " and ".join(n for n, _ in parts)
                    claim.lines = [ln or 0 for _, ln in parts]
                lines = {ln for _, ln in parts}
                claim.line = lines.pop() if len(lines) == 1 else None
        else:
            serving = eqs[0] if eqs else None
            asked = _layout_request(serving, equations) if serving is not None else None
            if asked is not None:
                claim.asked_by, claim.asked_line = asked.primitive, _line(asked, filename)
            elif serving is not None:
                claim.asked_by, claim.asked_line = serving.primitive, _line(serving, filename)
        out.append(claim)
    return out


def _line(eq: Equation, filename: str) -> int | None:
    src = eq.source
    return src.line if src is not None and src.file == filename else None


def _calls_by_line(source: str) -> dict[int, list[str]]:
    """Line -> the names of the functions called on it (``lax.pmean`` -> ``pmean``)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return {}
    out: dict[int, list[str]] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else (
            func.id if isinstance(func, ast.Name) else "")
        if name:
            for line in range(func.lineno, (func.end_lineno or func.lineno) + 1):
                out.setdefault(line, []).append(name)
            out.setdefault(node.lineno, []).append(name)
    return out


def _written(primitive: str, called: list[str], divisor: int | None) -> str:
    """The function the user called on the line for ``primitive`` ("" if unclear)."""
    options = [n for n in dict.fromkeys(called) if n in WRITTEN_AS.get(primitive, ())]
    if "pmean" in options and "psum" in options:
        return "pmean" if divisor is not None else "psum"
    if options == ["pmean"] and divisor is None:
        return ""  # the line calls pmean, but this psum is not divided: not that call
    return options[0] if len(options) == 1 else ""


def _divisor(eq: Equation, equations: list[Equation]) -> int | None:
    """The n a psum's result is divided by next in the jaxpr (a pmean), or None."""
    if eq.primitive not in ("psum", "psum_invariant") or not eq.outputs:
        return None
    out = {v.name for v in eq.outputs}
    start = next((k for k, e in enumerate(equations) if e is eq), None)
    if start is None:
        return None
    for e in equations[start + 1:]:
        if e.primitive == "div" and len(e.inputs) == 2 and e.inputs[0].name in out:
            d = e.inputs[1]
            if d.literal:
                try:
                    value = float(d.name.split(":", 1)[0])
                except ValueError:
                    return None
                return int(value) if value == int(value) and value > 0 else None
            return None
    return None


def _layout_request(serving: Equation, equations: list[Equation]) -> Equation | None:
    """The layout request (sharding_constraint ...) applied to the value ``serving`` makes."""
    if serving.primitive in LAYOUT_REQUESTS:
        return serving
    made = {v.name for v in serving.outputs}
    start = next((k for k, e in enumerate(equations) if e is serving), None)
    if start is None:
        return None
    for e in equations[start + 1:]:
        if e.primitive in LAYOUT_REQUESTS and any(v.name in made for v in e.inputs):
            return e
    return None


# --------------------------------------------------------------------------- #
# all of them
# --------------------------------------------------------------------------- #


def story_claims(story: Storyboard, vr: VariantResult, fn: Any, closed: Any, args: list[Any],
                 arg_names: list[str], in_shardings: list[Any], num_partitions: int,
                 source: str, filename: str) -> StoryClaims:
    """Every claim of a storyboard (see the module's docstring for where each comes from)."""
    process_of = dict(zip(story.devices, story.processes))
    return StoryClaims(
        program=program_claim(fn, closed, num_partitions, story.devices),
        arrays=array_claims(story, args, arg_names, in_shardings, process_of),
        collectives=collective_claims(story, vr, source, filename, closed))


def apply(story: Storyboard, claims: StoryClaims) -> None:
    """Give a storyboard its claims, and what follows from them: one program or op by op."""
    story.claims = claims
    story.one_program = claims.program.one_program
    if not story.one_program:
        story.notes.insert(0, "JAX runs this call op by op, dispatching each primitive on "
                              "its own; these steps are those of the one program jax.jit "
                              "would compile for it")


def mesh_types_note(mesh: Any) -> VariantNote | None:
    """Say which axis types the mesh jaxviz built has, when they are not JAX's default.

    JAX's default is read from ``jax.make_mesh`` itself (Explicit since JAX 0.9).
    """
    probe = jax.make_mesh((1,), ("probe",), devices=jax.devices()[:1])
    default = probe.axis_types[0]
    types = list(mesh.axis_types)
    if all(t == default for t in types):
        return None
    used = ", ".join(f"{name}: {t.name}" for name, t in zip(mesh.axis_names, types))
    return VariantNote("mesh_axis_types", (
        f"the mesh's axes are {used} (jaxviz's default axis types); jax.make_mesh in this "
        f"JAX makes {default.name} axes unless given axis_types=, and then jax.typeof shows "
        f"each value's sharding: set the axis types to explicit to see that"))
