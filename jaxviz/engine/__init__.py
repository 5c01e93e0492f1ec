"""The JAX engine: a restartable child process that runs the core for the ui and cli.

:class:`EngineClient` (which never imports JAX) spawns
``python -m jaxviz.worker.server`` (:mod:`jaxviz.worker.server`), talks to it
over pipes (:mod:`jaxviz.engine.protocol`), sends it requests one at a time in
submission order, and turns everything that can go wrong in there into an
ended request and a fresh engine:

* a request running longer than its timeout: the engine is killed and
  restarted, the request ends with ``ErrorInfo(kind="timeout")``;
* the engine dying (a signal, an exit, out of memory, killed from outside):
  the request in flight ends with ``ErrorInfo(kind="crash")`` naming the
  signal or exit code and the function, an ``EngineEvent("crashed")`` is
  emitted, and queued requests run on a new engine (a request sent to an
  engine that died before starting on it is sent again, once);
* :meth:`EngineClient.cancel`: a queued request is dropped, a running one is
  ended by killing the engine, ``ErrorInfo(kind="cancelled")``;
* an engine speaking another record schema is refused (``kind="engine"``).

What the request printed (fds 1 and 2) comes back with its reply, also when
it failed. Restarts are instant when a standby engine is kept: a second,
already started process with the same device count, promoted when the engine
must be replaced.

Threads: callbacks (reply callbacks, ``on_progress`` and ``on_event``) run on
one background thread of the client, in order: progress records before their
reply, replies in request order. A GUI must marshal them to its own thread. A
slow callback delays later callbacks, never the engine.

The public surface: :class:`EngineClient`, :class:`RequestHandle`,
:class:`EngineError`; the records are in :mod:`jaxviz.model.engine`.

Every other child process lives here too and shares the protocol
(:mod:`~jaxviz.engine.protocol`), the private channel and the parent watch
(:mod:`~jaxviz.engine.child`) and :func:`~jaxviz.engine.process.exit_reason`:
the async-off timing child (:mod:`~jaxviz.worker.timing_child`) and the
multi-host workers (:mod:`~jaxviz.engine.multihost`,
:mod:`~jaxviz.worker.multihost_worker`).

May import: :mod:`jaxviz.model`; the JAX processes (server, timing child,
multi-host worker) also :mod:`jaxviz.core`. Never Qt or the ui.
"""

from jaxviz.engine.client import EngineClient
from jaxviz.engine.requests import EngineError, RequestHandle

__all__ = ["EngineClient", "EngineError", "RequestHandle"]
