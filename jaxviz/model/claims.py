"""Claims: the facts every sentence of the device view is rendered from.

A caption is a claim about JAX. Each record here holds one kind of fact, derived
by the core (:mod:`jaxviz.core.claims`) from JAX itself -- the callable as it is
called, the compiled program (``num_partitions``, its input and output
shardings), ``devices_indices_map``, the jaxpr and the user's source line, the
real run -- never from the variant's name or the example. The words are
rendered from them in :mod:`jaxviz.views.devices.words`; a sentence whose claim
could not be derived is left out.

Records cross the engine boundary (plain data, :mod:`jaxviz.model.codec`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from jaxviz.model.codec import check_annotations, register

#: How a call runs (:attr:`ProgramClaim.runs`).
RUNS = ("compiled", "compiled_inside", "op_by_op")
#: Where an input is when the call starts (:attr:`ArrayClaim.starts`).
STARTS = ("host", "device", "placed", "")
#: How the devices hold an array (:attr:`ArrayClaim.holding`).
HOLDING = ("one_device", "pieces", "copies", "equal_pieces")

#: HLO element type names that jaxprs write otherwise (jaxpr: ``i32``, HLO: ``s32``).
HLO_TO_JAXPR_DTYPE = {"pred": "bool", "s2": "i2", "s4": "i4", "s8": "i8", "s16": "i16",
                      "s32": "i32", "s64": "i64"}


def jaxpr_type(hlo_type: str) -> str:
    """``s32[1,5]`` -> ``i32[1,5]``: an HLO type written with the jaxpr's dtype name."""
    head, bracket, rest = hlo_type.partition("[")
    return HLO_TO_JAXPR_DTYPE.get(head, head) + bracket + rest


@register
@dataclass
class ProgramClaim:
    """How JAX runs the call, and on how many devices.

    Attributes:
        runs: ``compiled`` (the callable is staged by JAX, ``jax.jit`` or
            ``jax.pmap``: one compiled program), ``compiled_inside``
            (the function itself consists of one ``jit``/``pmap`` call: one
            program, dispatched from Python), ``op_by_op`` (JAX dispatches each
            primitive on its own).
        num_partitions: the SPMD partitions of the compiled program (its HLO
            module's ``num_partitions``): how many devices run it.
        devices: the program's device assignment (device ids).
    """

    runs: str
    num_partitions: int
    devices: list[int] = field(default_factory=list)

    @property
    def one_program(self) -> bool:
        return self.runs != "op_by_op"


@register
@dataclass
class ArrayClaim:
    """Where one input or output array is, and how the devices hold it.

    Attributes:
        name: the array's name in the storyboard (``x``, ``params[0]``, ``out``).
        role: ``input`` or ``output``.
        type_str: its global type, with the jaxpr's dtype name (``i32[8,5]``).
        starts: for inputs, where the argument is when the call starts:
            ``host`` (a NumPy or Python value: JAX transfers it at the call),
            ``device`` (a ``jax.Array`` laid out otherwise than the program
            wants: JAX moves it at the call), ``placed`` (a ``jax.Array``
            already laid out exactly as the program's input sharding: nothing
            moves at the call); ``""`` for outputs or when unknown.
        holding: ``one_device``, ``pieces`` (distinct blocks), ``copies``
            (every device holds the whole array: one block), or
            ``equal_pieces`` (distinct blocks whose values the real run found
            identical on every device, e.g. parameters after a pmean).
        processes: how many JAX processes hold some block of it.
        on: for an input passed as a ``jax.Array``, the ids of the devices its
            sharding as passed puts it on (``sharding.device_set``); empty otherwise.
    """

    name: str
    role: str
    type_str: str
    starts: str = ""
    holding: str = "pieces"
    processes: int = 1
    on: list[int] = field(default_factory=list)


@register
@dataclass
class CollectiveClaim:
    """Which collective the user wrote (or what asked XLA for one), for one collective step.

    Attributes:
        step: the index of the step in :attr:`jaxviz.model.storyboard.Storyboard.steps`.
        primitive: the jaxpr primitive behind it (``psum_invariant``), or ``""``
            for a collective the SPMD partitioner inserted.
        written: the function the user called on that line (``pmean``), read
            from the source line, or ``jax.grad`` for one the transpose of
            ``jax.grad`` made; several joined by `` and `` when XLA combined
            them into one op; ``""`` when the program does not say for each.
        line: the user's source line, or ``None`` (none, or several).
        lines: the source line of each part of :attr:`written`, in order (0: none).
        divisor: for a ``pmean``, the ``n`` the psum is divided by next in the
            jaxpr (``pmean`` = ``psum`` then divide by n); ``None`` otherwise.
        asked_by: for an inserted collective, the jaxpr primitive whose sharding
            asked for it (``sharding_constraint``), else ``""``.
        asked_line: the line of that equation, or ``None``.
        input_types, output_types: the per-device types going in and out, with
            the jaxpr's dtype names.
    """

    step: int
    primitive: str = ""
    written: str = ""
    line: int | None = None
    lines: list[int] = field(default_factory=list)
    divisor: int | None = None
    asked_by: str = ""
    asked_line: int | None = None
    input_types: list[str] = field(default_factory=list)
    output_types: list[str] = field(default_factory=list)


@register
@dataclass
class StoryClaims:
    """Every claim of one storyboard."""

    program: ProgramClaim
    arrays: list[ArrayClaim] = field(default_factory=list)
    collectives: list[CollectiveClaim] = field(default_factory=list)

    def array(self, name: str) -> ArrayClaim | None:
        return next((a for a in self.arrays if a.name == name), None)

    def collective(self, step: int) -> CollectiveClaim | None:
        return next((c for c in self.collectives if c.step == step), None)


check_annotations(ProgramClaim, ArrayClaim, CollectiveClaim, StoryClaims)
