"""The device view of an example meant for several JAX processes: a real multi-process run.

An example that declares ``processes`` (the multi_host example) is not shown as the
single engine process traced it (one process holding all its devices would be a false
picture): its shard_map variant is played from a real run of that many JAX processes
(:func:`jaxviz.engine.multihost.multihost_trace`, as ``jaxviz animate --processes``),
started in a background thread; the device view shows the result when it comes.
"""

from __future__ import annotations

import threading

from PySide6.QtCore import QObject, Signal

from jaxviz.model import TraceResult
from jaxviz.model.errors import UserError
from jaxviz.model.gallery import Example, list_examples

#: The variant a multi-process run plays.
VARIANT = "shard_map"


def multiprocess_example(result: TraceResult, variant: str) -> Example | None:
    """The gallery example ``result`` traced, when it is meant for several processes."""
    if variant != VARIANT:
        return None
    for ex in list_examples():
        if ex.processes > 1 and str(ex.path) == result.filename \
                and ex.function == result.function:
            return ex
    return None


class MultiprocessRuns(QObject):
    """Runs an example in several processes off the GUI thread; ``done`` on the GUI thread.

    Signals:
        done(key, result, message): ``result`` the run's TraceResult (or None and why).
    """

    done = Signal(object, object, str)

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self.cache: dict[tuple[str, int], TraceResult] = {}
        self.running: set[tuple[str, int]] = set()

    def start(self, ex: Example, devices: int) -> tuple[str, int]:
        """Start the run of ``ex`` over ``devices`` devices (once per key); its key."""
        key = (ex.name, devices)
        if key in self.cache or key in self.running:
            return key
        self.running.add(key)
        threading.Thread(target=self._run, args=(ex, devices, key), daemon=True).start()
        return key

    def _run(self, ex: Example, devices: int, key: tuple[str, int]) -> None:
        from jaxviz.engine.multihost import multihost_trace

        processes = ex.processes
        try:
            result = multihost_trace(f"example:{ex.name}", processes,
                                     local_devices=max(devices // processes, 1),
                                     axis_name=ex.axis_name or "hosts")
        except UserError as exc:
            self.done.emit(key, None, exc.info.message)
            return
        except Exception as exc:  # noqa: BLE001 - a worker may fail any way: say so
            self.done.emit(key, None, f"the {processes}-process run failed: {exc}")
            return
        self.done.emit(key, result, "")
