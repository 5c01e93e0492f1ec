"""Step a variant's jaxpr on concrete arguments: every equation's values, on every device.

:func:`step_request` answers a :class:`~jaxviz.model.stepping.StepRequest`: it
builds the variant exactly as tracing does, makes concrete arguments (the
request's expressions, or random values of the given shapes with a stated
seed), traces the variant's jaxpr and runs it equation by equation with
:class:`~jaxviz.core.stepper_eval.Evaluator`. :func:`step` does the same and
also returns the raw output arrays (for the oracle tests and the benchmark).

Example:
    >>> from jaxviz import core
    >>> from jaxviz.core.stepper import step_request
    >>> from jaxviz.model import TraceRequest
    >>> from jaxviz.model.stepping import StepRequest
    >>> target, d = core.resolve_target("example:normalize")        # doctest: +SKIP
    >>> req = StepRequest(TraceRequest(target, d["args"], batched_args=d["batched_args"],
    ...                                axis_name="p"), variant="pmap")  # doctest: +SKIP
    >>> [s.primitive for s in step_request(req).steps]                # doctest: +SKIP
    ['jit', 'shard_map', 'squeeze', 'psum', 'div', 'broadcast_in_dim', 'shard_map', 'jit']
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import jax

from jaxviz.core import arguments, devices, jax_internals, meshes
from jaxviz.core.stepper_eval import Evaluator, StopStepping
from jaxviz.core.stepper_size import static_size, too_large
from jaxviz.core.stepper_values import Recorder, TooMuchToRecord
from jaxviz.core.trace import Loaded, arg_leaf_names, explain, leaf_names, load
from jaxviz.model.errors import UserError
from jaxviz.model.stepping import ArgumentsMade, NamedValue, StepRequest, StepResult


@dataclass
class Stepped:
    """A stepping's result record, plus the raw values behind it.

    Attributes:
        result: the record the engine sends.
        outputs: the call's output leaves (assembled arrays), in order.
        blocks: per output leaf, each device's block (empty where the output
            did not come out of a mapped body).
        args: the concrete argument leaves the variant was called with.
    """

    result: StepResult
    outputs: list[Any] = field(default_factory=list)
    blocks: list[list[Any]] = field(default_factory=list)
    args: list[Any] = field(default_factory=list)


def step_request(req: StepRequest) -> StepResult:
    """Step the requested variant; errors become ``result.error``, never exceptions."""
    return step(req).result


def step(req: StepRequest) -> Stepped:
    """Step the requested variant and keep the raw outputs too (see :class:`Stepped`)."""
    target = req.trace.target
    result = StepResult(function=target.function, filename=target.filename,
                        variant=req.variant, simulated=devices.simulated(),
                        value_limit=req.value_limit, summary=req.summary)
    stepped = Stepped(result)
    try:
        loaded = load(req.trace)
    except UserError as exc:
        result.error = exc.info
        return stepped
    try:
        _step_variant(req, loaded, stepped)
    except UserError as exc:
        result.error = exc.info
        result.error.variant = req.variant
    except Exception as exc:  # noqa: BLE001 - JAX and user code may raise anything
        result.error = explain(exc, target.filename, req.variant, loaded)
    return stepped


def _step_variant(req: StepRequest, loaded: Loaded, stepped: Stepped) -> None:
    prepared = loaded.builder.prepare(req.variant)
    # the arguments are made outside the variant's mesh, as its code makes them; the
    # jaxpr is traced inside it; the equations run on the host, outside any mesh
    args, made = make_arguments(prepared.args, loaded.builder.names, req, loaded)
    _step_prepared(req, loaded, stepped, prepared, args, made)


def _step_prepared(req: StepRequest, loaded: Loaded, stepped: Stepped, prepared: Any,
                   args: list[Any], made: ArgumentsMade) -> None:
    result = stepped.result
    result.call = prepared.call
    result.arguments = made
    arg_names = arg_leaf_names(prepared.args, loaded.builder.names)
    with meshes.mesh_context(prepared.context):
        closed, out_shape = jax.make_jaxpr(prepared.fn, return_shape=True)(*prepared.args)
    result.jaxpr_text, lines, context = jax_internals.jaxpr_text_and_lines(closed)
    jaxpr, consts = jax_internals.closed_parts(closed)
    budget = int(req.record_limit_mb * 1e6)
    estimate = static_size(jaxpr, req.value_limit, req.summary)
    window = req.recorded
    if window is not None and estimate.steps:  # only a window of the steps keeps values
        estimate.bytes = estimate.bytes * min(len(window), estimate.steps) // estimate.steps
    if estimate.bytes > budget:
        raise too_large(result.function, req, estimate.bytes, estimate.steps, estimate.devices,
                        before=True)
    recorder = Recorder(req.value_limit, req.summary, budget)
    flat_args = [jax_internals.detached(a) for a in jax.tree.leaves(args)]
    stepped.args = flat_args
    made.values = [NamedValue(name, recorder.value(value))
                   for name, value in zip(arg_names, flat_args)]
    evaluator = Evaluator(recorder, lines, context, req.trace.target.filename, req.until_line,
                          mesh=prepared.context, record=window)
    if window is not None:
        result.recorded_from, result.recorded_to = window.start, window.stop
    try:
        outputs = evaluator.run(jaxpr, consts, flat_args)
    except StopStepping as stop:
        result.complete, result.stopped = False, str(stop)
        outputs = None
    except TooMuchToRecord as over:
        raise too_large(result.function, req, recorder.used, len(evaluator.steps),
                        max([len(m.devices) for m in evaluator.meshes] or [1]),
                        before=False) from over
    finally:
        result.steps = evaluator.steps
        if result.recorded_to is not None and result.recorded_to >= len(evaluator.steps):
            result.recorded_to = None  # the window reaches the end
        if evaluator.meshes:
            result.mesh = evaluator.meshes[0].info()
            result.devices = list(evaluator.meshes[0].devices)
        result.whole_over = sorted(evaluator.whole_over)
    if outputs is not None:
        _keep_outputs(stepped, evaluator, recorder, leaf_names(out_shape, "out"), outputs)


def _keep_outputs(stepped: Stepped, evaluator: Evaluator, recorder: Recorder,
                  names: list[str], outputs: list[Any]) -> None:
    """The call's outputs: assembled, and each device's block where a mapped body made them."""
    for name, value in zip(names, outputs):
        named = NamedValue(name=name, value=recorder.value(value))
        origin = evaluator.blocks.get(id(value))
        blocks: list[Any] = []
        if origin is not None and origin[0] is value:
            _, lanes, blocks = origin
            named.devices = list(lanes.devices)
            named.blocks = [recorder.value(b) for b in blocks]
        stepped.result.outputs.append(named)
        stepped.outputs.append(value)
        stepped.blocks.append(list(blocks))


def make_arguments(abstract: list[Any], names: list[str], req: StepRequest,
                   loaded: Loaded) -> tuple[list[Any], ArgumentsMade]:
    """Concrete arguments for the variant's call, and how they were made (values: later)."""
    args, how, random = arguments.described_concrete(
        abstract, arg_leaf_names(abstract, names), req.seed, req.variant, req.trace,
        loaded.settings.batched)
    made = ArgumentsMade(how=how, seed=req.seed if random else None, random=random)
    return args, made
