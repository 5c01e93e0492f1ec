"""A variant ready to trace: the callable, its arguments, its code and the mesh it runs in.

:class:`Prepared` is what :meth:`jaxviz.core.variants.VariantBuilder.prepare` (and the
as-written variant, :mod:`jaxviz.core.as_written`) hand to tracing, stepping and timing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from jax.sharding import Mesh

from jaxviz.model.call_code import CallCode
from jaxviz.model.notes import VariantNote


@dataclass
class Prepared:
    """A variant ready to trace: ``fn(*args)`` is the call, ``code`` its Python.

    ``context`` is the mesh the call runs inside (``with jax.set_mesh(context)``):
    an explicit mesh, or the mesh the module itself set; None for none.
    """

    variant: str
    fn: Callable
    args: list[Any]
    code: CallCode
    mesh: Mesh | None = None
    notes: list[VariantNote] = field(default_factory=list)
    #: Examples each device holds when a batch is spread over devices (pmap, shard_map).
    per_device: int = 1
    context: Mesh | None = None
    #: The same call without ``jax.jit`` (shard_map run eagerly: prints per device), if any,
    #: and its code.
    eager: Callable | None = None
    eager_code: CallCode | None = None

    @property
    def call(self) -> str:
        """The call as one line of Python."""
        return self.code.call
