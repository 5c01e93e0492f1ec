"""jaxviz: see JAX parallelism.

The public API, for notebooks and scripts (imported on first use: ``import
jaxviz`` itself loads neither JAX nor Qt):

* :func:`jaxviz.show` -- open the desktop window on a function and its arguments;
* :func:`jaxviz.view` -- one variant (jaxpr with source colours, the device
  animation, the notes) shown inline in Jupyter, with ``.diff``, ``.phases``,
  ``.save``;
* :func:`jaxviz.timing` -- dispatch versus completion, measured and plotted inline;
* :func:`jaxviz.sharding` -- how a live ``jax.Array`` lies on its devices, any rank.

``show``, ``view`` and ``timing`` run the function in jaxviz's engine process,
with the device count asked for (8 simulated CPU devices by default), whatever
the kernel's own JAX has: the function travels as its source text
(:mod:`jaxviz.notebook.shipping` says what can travel). ``sharding`` runs in
the kernel, on the array. The README's "jaxviz in a notebook" has examples.

The package is layered; each layer imports only the ones below it
(import-linter contracts in ``pyproject.toml``, and ``tests/test_architecture.py``
finds any import cycle):

* :mod:`jaxviz.notebook` -- the public API above (above the command line);
* :mod:`jaxviz.cli` -- the ``jaxviz`` command, one module per subcommand;
* :mod:`jaxviz.ui` -- the Qt views: the GUI process, which never imports JAX;
* :mod:`jaxviz.engine` -- every child process: the JAX engine and its client,
  the async-off timing child, the multi-host workers;
* :mod:`jaxviz.core` -- everything JAX: tracing, variants, layouts, timings (no Qt);
* :mod:`jaxviz.views.devices` -- what the device view draws, as plain Python (no Qt, no JAX);
* :mod:`jaxviz.model` -- plain records and pure logic shared by all (no JAX, no Qt).

The README's "How it is built" has the map.
"""

import importlib as _importlib
from typing import Any as _Any

__version__ = "0.1.0"

__all__ = ["JaxvizError", "ShippingError", "__version__", "sharding", "show", "timing", "view"]

# Loaded on first use (module __getattr__, PEP 562); their types are in __init__.pyi for
# type checkers and editors. importlib keeps this package's import graph free of the
# public API's layer (a static import here would put the notebook package above every
# module that imports jaxviz, e.g. for its resources).
_PUBLIC = {"JaxvizError", "ShippingError", "sharding", "show", "timing", "view"}


def __getattr__(name: str) -> _Any:
    if name in _PUBLIC:
        value = getattr(_importlib.import_module("jaxviz.notebook"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'jaxviz' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(__all__) | {n for n in globals() if n.startswith("__")})
