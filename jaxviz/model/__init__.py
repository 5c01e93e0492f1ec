"""Plain records shared by every layer: no JAX, no Qt.

The public surface is re-exported here. The modules behind it:

* records, engine, timing: requests and results (with a versioned plain-data
  codec), the engine's records, the timing records; :class:`TraceSettings`,
  declared once for examples, requests and the window;
* specs, sizes, limits, sources, errors: parsers for what users type (and the
  range of every number), target resolution (reading files, never running
  them), errors that say what and where;
* gallery: the example gallery, read without executing it;
* timing_stats, timing_export, timing_options, exports: captions and figures from
  a timing run, its data files, the timing view's settings, the export registry;
* changes, link_index, lexers: what changed between variants, which jaxpr lines
  came from which source line, Pygments lexers for jaxprs and HLO;
* palette: every colour, as plain data; window_state: what the window shows;
  screen_fit: where the first window goes on a screen and its layout;
  entry_points: which function a file opens on, and argument specs from annotations;
* storyboard: what every device holds and runs, read from the compiled program;
* stepping, value_text: the jaxpr stepper's request, steps and values, and those
  values as text;
* notes, call_code: what a variant computes differently and why (computed notes),
  and its call as Python that runs as written ("Copy as code").

May import: nothing of jaxviz but itself (mypy strict; import-linter keeps JAX and
Qt out).

Every name above loads on first use (``lazy_loader.attach_stub``, SPEC 1): importing
one module of this package, e.g. ``jaxviz.model.limits`` for the command line's
flags, no longer imports all of them (the window's first paint waits for none of
them). ``__init__.pyi`` lists what is exported, for type checkers and the loader
alike. A record decoded before its module was imported is found all the same
(:func:`jaxviz.model.codec.from_plain` loads the package's modules on a miss).
"""

import lazy_loader as _lazy

__getattr__, __dir__, __all__ = _lazy.attach_stub(__name__, __file__)
