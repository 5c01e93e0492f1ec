"""Records of the jaxpr stepper: a request, and every equation's values on every device.

A :class:`StepRequest` asks the engine to run one variant of a function
equation by equation on concrete arguments. The answer, a :class:`StepResult`,
is the ordered list of :class:`EvalStep` records a UI steps through (Next/Back,
step over/into nested jaxprs) and ``jaxviz step`` prints:

* ``equation`` steps: one jaxpr equation with its inputs and outputs;
* ``enter``/``leave`` markers around a nested jaxpr (``jit``, ``shard_map``,
  ``scan``, ``while``, ``cond``, ``custom_jvp_call`` ...); ``partner`` links
  the two, so "step over" jumps from one to the other.

Each step holds one :class:`LaneValues` per device that ran it (inside a
``pmap``/``shard_map`` body: every device, on its own block), or a single
``host`` entry (``device`` is None) outside mapped bodies. Values are
:class:`Value` records: small ones exactly, larger ones as a
:class:`ValueSummary`; never a whole array above the request's limit.
"""

from __future__ import annotations

import typing
from dataclasses import dataclass, field
from typing import Any

from jaxviz.model.records import (
    ErrorInfo,
    MeshInfo,
    SourceSpan,
    Target,
    TraceRequest,
    VarInfo,
    register,
)

#: Kinds of :class:`EvalStep`.
STEP_KINDS = ("equation", "enter", "leave")

#: Elements a value may have and still be kept exactly (default of the request).
DEFAULT_VALUE_LIMIT = 64

#: Recorded bytes (estimated) a stepping may produce before it stops and says so.
DEFAULT_RECORD_LIMIT_MB = 32.0

#: Bins of a summarised value's histogram.
HISTOGRAM_BINS = 10


@register
@dataclass
class StepRequest:
    """Step one variant of a function on concrete arguments.

    Attributes:
        trace: the target and its trace settings, as for tracing (arguments,
            batch, in_axes, axis name, mesh, partition specs); its
            ``variants`` and ``want`` are not used.
        variant: the variant to step (``plain``, ``jit``, ``vmap``, ``pmap``,
            ``sharded``, ``shard_map``).
        until_line: stop after the first equation that comes from this line of
            the user's file (1-based); None runs to the end.
        value_limit: values with at most this many elements are kept exactly;
            larger ones are summarised.
        summary: summary mode: every value is kept as its shape, dtype,
            minimum, maximum and mean only (for programs too large to record).
        seed: seed of the random values given to arguments specified only by
            their shape and dtype (``f32[8,3]``).
        record_limit_mb: the most (estimated) megabytes of recorded values.
        record_from: the first step (0-based, in execution order) whose values are
            recorded.
        record_steps: how many steps from ``record_from`` on have their values
            recorded (None: all to the end). Every equation still runs and every step
            is listed; the others carry no values (``lanes`` empty). A jump to step
            4,000 of a big program is then one run that records a window around it,
            not 4,000 steps of values.
    """

    trace: TraceRequest
    variant: str = "plain"
    until_line: int | None = None
    value_limit: int = DEFAULT_VALUE_LIMIT
    summary: bool = False
    seed: int = 0
    record_limit_mb: float = DEFAULT_RECORD_LIMIT_MB
    record_from: int = 0
    record_steps: int | None = None

    @property
    def recorded(self) -> range | None:
        """The step indices whose values are recorded (None: every step)."""
        if self.record_from <= 0 and self.record_steps is None:
            return None
        start = max(self.record_from, 0)
        stop = start + self.record_steps if self.record_steps is not None else 1 << 62
        return range(start, stop)

    @property
    def target(self) -> Target:
        """The function to step (the engine reports errors against its file)."""
        return self.trace.target


@register
@dataclass
class ValueSummary:
    """What is kept of a value too large to keep whole.

    Attributes:
        min, max, mean: over the finite elements (None when there are none,
            or for values that are not numbers).
        nonfinite: how many elements are NaN or infinite.
        sample: the first elements in row-major order (empty in summary mode).
        histogram: element counts per bin, between ``edges`` (one more edge
            than bins; empty in summary mode).
    """

    min: float | None = None
    max: float | None = None
    mean: float | None = None
    nonfinite: int = 0
    sample: list[Any] = field(default_factory=list)
    histogram: list[int] = field(default_factory=list)
    edges: list[float] = field(default_factory=list)


@register
@dataclass
class Value:
    """One array value: exact (nested lists, a scalar for shape ``[]``) or summarised.

    Attributes:
        shape: the array's shape.
        dtype: the short dtype name the jaxpr prints (``f32``, ``i32``, ``bool``).
        exact: the elements as nested lists, when kept (``None`` otherwise).
        summary: the summary, when the value was not kept exactly.
    """

    shape: list[int]
    dtype: str
    exact: Any = None
    summary: ValueSummary | None = None

    @property
    def size(self) -> int:
        """The number of elements."""
        size = 1
        for d in self.shape:
            size *= d
        return size


@register
@dataclass
class LaneValues:
    """The values of one step on one device (or on the host, outside mapped bodies).

    Attributes:
        device: the device id, or None for the host (one entry, not per device).
        inputs: one value per input of the step.
        outputs: one value per output of the step.
    """

    device: int | None
    inputs: list[Value] = field(default_factory=list)
    outputs: list[Value] = field(default_factory=list)


@register
@dataclass
class EvalStep:
    """One equation (or the entry to / exit from a nested jaxpr) with its values.

    Attributes:
        kind: ``equation``, ``enter`` or ``leave`` (see :data:`STEP_KINDS`).
        path: where the equation is: the enclosing equations (``primitive[index]``,
            with the loop iteration or branch taken) then its own index, e.g.
            ``jit[0] > shard_map[0] > 3``.
        depth: how many jaxprs it is nested in (0: the variant's own jaxpr).
        primitive: the primitive's name (``psum``, ``dot_general``, ``jit`` ...).
        inputs, outputs: the equation's variables as the jaxpr text names them.
            For ``enter`` markers the outputs are empty; for ``leave`` markers
            the inputs are.
        lanes: the values, per device (or one host entry). ``shard_map``
            markers have both: the host entry with the global values, then
            one entry per device with its block of each of them. Devices
            that do not run a step (another ``cond`` branch, a finished
            ``while``) have no entry.
        source: the user's source range the equation came from.
        text_start, text_end: the equation's lines in the result's
            ``jaxpr_text`` (0-based), when known.
        params: the equation's parameters, shortened.
        groups: for collectives, the device ids of each group of devices the
            collective combined, in the order it combined them (axis-index
            order; for ``axis_index`` the groups it counts in; none for
            ``pvary``, which moves nothing).
        partner: for markers, the index of the matching ``enter``/``leave``.
        note: what else a reader should know (branch taken, iteration, ...).
    """

    kind: str
    path: str
    depth: int
    primitive: str
    inputs: list[VarInfo] = field(default_factory=list)
    outputs: list[VarInfo] = field(default_factory=list)
    lanes: list[LaneValues] = field(default_factory=list)
    source: SourceSpan | None = None
    text_start: int | None = None
    text_end: int | None = None
    params: dict[str, str] = field(default_factory=dict)
    groups: list[list[int]] = field(default_factory=list)
    partner: int | None = None
    note: str = ""


@register
@dataclass
class NamedValue:
    """An argument or output leaf of the stepped call.

    Attributes:
        name: the leaf's name (``params[0]``, ``x``, ``out[1]``).
        value: its (assembled, global) value.
        devices: the device ids whose blocks ``blocks`` holds, for outputs of
            a mapped body (``pmap``/``shard_map``); empty otherwise.
        blocks: each of those devices' block of the value, in ``devices`` order.
    """

    name: str
    value: Value
    devices: list[int] = field(default_factory=list)
    blocks: list[Value] = field(default_factory=list)


@register
@dataclass
class ArgumentsMade:
    """How the concrete arguments of the stepped call were made.

    Attributes:
        how: one or two sentences for the reader (which arguments were
            evaluated from expressions, which are random and how).
        seed: the seed of the random values (None when nothing is random).
        random: the names of the argument leaves filled with random values.
        values: every argument leaf of the variant's call, in order.
    """

    how: str
    seed: int | None = None
    random: list[str] = field(default_factory=list)
    values: list[NamedValue] = field(default_factory=list)


@register
@dataclass
class StepResult:
    """The answer to a :class:`StepRequest`.

    Attributes:
        function, filename, variant: what was stepped.
        call: the Python text of the variant's call (``jax.pmap(f, ...)(xs)``).
        jaxpr_text: the variant's jaxpr exactly as JAX prints it (steps point
            into it with ``text_start``/``text_end``).
        devices: the ids of the devices that ran mapped bodies (empty if none).
        mesh: the mesh of the (first) mapped body, if any.
        simulated: True when the devices are simulated CPU devices.
        arguments: how the arguments were made, and their values.
        steps: every step, in execution order.
        outputs: the call's outputs (assembled; per device for mapped bodies).
        complete: False when stepping stopped early (``until_line``).
        stopped: why stepping stopped early.
        value_limit, summary: the request's recording settings.
        error: what went wrong, if the variant could not be stepped.
        recorded_from, recorded_to: the steps that carry values,
            ``recorded_from <= index < recorded_to`` (``recorded_to`` None: to the
            end); the others are listed without values (the request's window).
        whole_over: the devices a ``jit``'s shardings split the program over, where
            equations of that ``jit`` were stepped on whole arrays (outside any mapped
            body): XLA's partitioner decides their per-device work when it compiles,
            which stepping does not show. Empty when no such equation ran.
    """

    function: str
    filename: str
    variant: str
    call: str = ""
    jaxpr_text: str = ""
    devices: list[int] = field(default_factory=list)
    mesh: MeshInfo | None = None
    simulated: bool = True
    arguments: ArgumentsMade | None = None
    steps: list[EvalStep] = field(default_factory=list)
    outputs: list[NamedValue] = field(default_factory=list)
    complete: bool = True
    stopped: str = ""
    value_limit: int = DEFAULT_VALUE_LIMIT
    summary: bool = False
    error: ErrorInfo | None = None
    recorded_from: int = 0
    recorded_to: int | None = None
    whole_over: list[int] = field(default_factory=list)

    def has_values(self, index: int) -> bool:
        """Whether step ``index`` was recorded with its values (it is in the window)."""
        return index >= self.recorded_from and (self.recorded_to is None
                                                or index < self.recorded_to)


for _cls in (StepRequest, ValueSummary, Value, LaneValues, EvalStep, NamedValue, ArgumentsMade,
             StepResult):
    typing.get_type_hints(_cls)
