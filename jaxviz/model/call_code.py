"""The Python of one variant's call, runnable as written ("Copy as code").

The core writes a :class:`CallCode` next to every variant it builds (from the
same settings it builds the variant with, in :mod:`jaxviz.core.call_code`):
the imports, the lines that must run before JAX starts (the simulated device
count), the lines that define the arguments and the mesh, and the call
itself -- the one line the panes show. Two renderings:

* :meth:`CallCode.snippet` -- what to paste under the function's definition
  (in a notebook that has it): imports, arguments, mesh, call.
* :meth:`CallCode.script` -- a whole program for a fresh interpreter: the
  device count, the function's source, the arguments, and
  ``print(repr(call))``, which prints what ``jaxviz run`` prints.

Example:
    >>> code = CallCode(imports=["import jax"], setup=["x = 1.0"], call="jax.numpy.sin(x)")
    >>> print(code.snippet())
    import jax
    <BLANKLINE>
    x = 1.0
    jax.numpy.sin(x)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from jaxviz.model.codec import check_annotations, register


@register
@dataclass
class CallCode:
    """Python that makes one call of a variant.

    Attributes:
        call: the call expression, e.g. ``jax.vmap(f, axis_name='i')(xs)``.
        imports: import lines the call and the setup need.
        config: lines that must run right after ``import jax``, before JAX
            starts its backend (``jax.config.update("jax_num_cpu_devices", 8)``).
        setup: lines defining the names the call uses (arguments, the mesh),
            run after the function's own source.
    """

    call: str = ""
    imports: list[str] = field(default_factory=list)
    config: list[str] = field(default_factory=list)
    setup: list[str] = field(default_factory=list)

    def snippet(self) -> str:
        """Imports, arguments and the call: to paste where the function is defined."""
        parts = ["\n".join(self.imports), "\n".join([*self.setup, self.call])]
        return "\n\n".join(p for p in parts if p) + "\n"

    def script(self, source: str) -> str:
        """A program for a fresh interpreter: prints ``repr`` of the call's result.

        Args:
            source: the Python source that defines the function (and whatever
                the argument expressions name).
        """
        head = [line for line in self.imports if line == "import jax"] or ["import jax"]
        rest = [line for line in self.imports if line not in head]
        parts = ["\n".join([*head, *self.config]), "\n".join(rest),
                 source.strip("\n"),
                 "\n".join([*self.setup, f"print(repr({self.call}))"])]
        return "\n\n".join(p for p in parts if p) + "\n"


check_annotations(CallCode)
