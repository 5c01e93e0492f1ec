"""jaxviz from a notebook or a script: the public API's implementation.

:func:`view`, :func:`timing` and :func:`show` send the function's source and its
arguments to jaxviz's engine process (:mod:`jaxviz.notebook.shipping`): JAX there
starts with the device count asked for, whatever the kernel's JAX already did.
:func:`sharding` runs in the kernel, on the live array. :func:`show` talks to the
desktop window over a private Unix socket (:mod:`jaxviz.notebook.channel`).

Sits above :mod:`jaxviz.cli` (it uses the CLI's engine runner and the ui's
headless renderers); imports JAX only inside :func:`sharding`, for a live array.
"""

from jaxviz.notebook.api import JaxvizError, ShippingError, sharding, show, timing, view

__all__ = ["JaxvizError", "ShippingError", "sharding", "show", "timing", "view"]
