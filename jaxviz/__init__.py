"""jaxviz: see JAX parallelism.

The package is layered (see ``DESIGN.md`` in the project's shared notes):

* :mod:`jaxviz.model` -- plain records that cross process boundaries (no JAX, no Qt);
* :mod:`jaxviz.core` -- everything JAX: tracing, variants, layouts, timings (no Qt);
* :mod:`jaxviz.engine` -- runs the core in a restartable child process;
* :mod:`jaxviz.ui` -- the Qt views (never imports JAX).
"""

__version__ = "0.1.0"
