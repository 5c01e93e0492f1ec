"""Notes on a variant: what its jaxpr and its value do not say by themselves.

A lecture compares variants of one function and students assume they compute
the same thing. Where a variant computes something else (``pmap(vmap(f))``
with several examples per device, where a ``psum`` reduces over the devices
only), or where the program holds a surprise worth saying (``jax.grad`` under
``shard_map`` already summed a gradient), the variant carries a
:class:`VariantNote`: a kind and one sentence computed from the request and
the traced program (never written by hand). The pane header, the device
view, ``jaxviz run`` and the timing records show them.

A note's kind says whether it explains a *difference* from the reference
(a Python loop of calls of the plain function, or ``vmap`` where a loop
cannot bind the collective's axis): :data:`NOTE_KINDS` lists every kind with
that flag and what the kind means. New kinds are added there.

Example:
    >>> note = VariantNote("examples_per_device", "the batch of 16 is reshaped to 8 devices x 2")
    >>> note.differs, note.label
    (False, 'note')
"""

from __future__ import annotations

from dataclasses import dataclass

from jaxviz.model.codec import check_annotations, register


@dataclass(frozen=True)
class NoteKind:
    """One kind of note: whether it explains a difference, and what it means."""

    differs: bool
    meaning: str


#: Every kind of :class:`VariantNote`, by name.
NOTE_KINDS: dict[str, NoteKind] = {
    "per_device_collective": NoteKind(
        True, "a collective inside pmap(vmap(f)) or shard_map(vmap(f)) reduces over the "
              "devices only, separately for each example a device holds, not over the "
              "whole batch"),
    "reduced_twice": NoteKind(
        True, "under shard_map with check_vma=True a collective reduces a value that is "
              "already the same on every device (jax.grad summed it), so it counts it once "
              "per device"),
    "examples_per_device": NoteKind(
        False, "the batch is laid out as devices x examples: each device holds several "
               "examples and runs vmap over them"),
    "check_vma_off": NoteKind(
        False, "shard_map was traced with check_vma=False: no varying-axes types, "
               "psum instead of psum_invariant, as pmap does"),
    "gradient_summed": NoteKind(
        False, "under shard_map with check_vma=True, jax.grad with respect to an argument "
               "replicated by P() sums its gradient over the mesh axis (psum_invariant)"),
    "as_written": NoteKind(
        False, "the function is called exactly as its module defines it: its own jit, "
               "shardings, shard_map and the mesh the module set"),
    "stacked_copies": NoteKind(
        False, "no batched arguments were given: the batch the variant runs on is the "
               "arguments repeated (or, for arguments given as types, random values of the "
               "batched shape) along a new axis"),
    "fewer_examples": NoteKind(
        False, "the batch is smaller than the device count: jax.pmap runs one example on "
               "each of the first devices and leaves the others idle"),
    "mesh_axis_types": NoteKind(
        False, "the mesh jaxviz built has other axis types than jax.make_mesh's default "
               "(read from JAX), so jax.typeof prints differently than in the user's own run"),
    "outside_mesh": NoteKind(
        False, "pmap builds its own mesh over the devices and runs outside the mesh the "
               "other variants run in (JAX refuses pmap inside jax.set_mesh of another mesh)"),
    "eager": NoteKind(
        False, "the value was computed by running shard_map without jax.jit (eagerly, once "
               "per device), so prints in its body show each device's values"),
    "collectives": NoteKind(
        False, "how many collectives the jaxpr has and how many the compiled program runs"),
    "timing": NoteKind(False, "how a timing variant is measured"),
}


@register
@dataclass
class VariantNote:
    """A computed fact about a variant, shown wherever the variant is.

    Attributes:
        kind: a key of :data:`NOTE_KINDS`.
        text: one sentence, computed from the request and the program.
    """

    kind: str
    text: str

    @property
    def differs(self) -> bool:
        """True when the note explains why the variant's values differ from the reference."""
        known = NOTE_KINDS.get(self.kind)
        return known.differs if known is not None else False

    @property
    def label(self) -> str:
        """``differs`` or ``note``: the word a display puts before the text."""
        return "differs" if self.differs else "note"

    def line(self) -> str:
        """``differs: <text>`` -- the note as one line of plain text."""
        return f"{self.label}: {self.text}"


def differing(notes: list[VariantNote]) -> list[VariantNote]:
    """The notes that explain a difference from the reference."""
    return [n for n in notes if n.differs]


check_annotations(VariantNote)
