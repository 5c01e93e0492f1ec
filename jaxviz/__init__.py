"""jaxviz: see JAX parallelism.

The package is layered; each layer imports only the ones below it
(import-linter contracts in ``pyproject.toml``, and ``tests/test_architecture.py``
finds any import cycle):

* :mod:`jaxviz.cli` -- the ``jaxviz`` command, one module per subcommand;
* :mod:`jaxviz.ui` -- the Qt views: the GUI process, which never imports JAX;
* :mod:`jaxviz.engine` -- every child process: the JAX engine and its client,
  the async-off timing child, the multi-host workers;
* :mod:`jaxviz.core` -- everything JAX: tracing, variants, layouts, timings (no Qt);
* :mod:`jaxviz.views.devices` -- what the device view draws, as plain Python (no Qt, no JAX);
* :mod:`jaxviz.model` -- plain records and pure logic shared by all (no JAX, no Qt).

The README's "How it is built" has the map.
"""

__version__ = "0.1.0"
