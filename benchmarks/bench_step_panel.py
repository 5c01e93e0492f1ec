"""How quickly does a step show once the engine has the values? (target: < 50 ms)

Prints (never asserts; machines are noisy), for convolve (vmap, host values and
heat maps) and data_parallel (pmap, 8 device panels), all measured in one run:

* **the window**: a real main window at 1920x1080 on a real engine, in step
  mode; from a Next (``StepController.step_forward``) to the event loop idle again
  (Qt has laid out and painted what changed):
  the values panel filled, the equation lit in the pane, the source line lit in
  the editor, the status bar -- every step of the program, twice over (the
  first pass builds the panel's widgets; later passes refill them);
* **the values panel alone**: the same steppings shown in a bare
  :class:`~jaxviz.ui.stepper.ValuesPanel` (1920x420, the Values tab's size).

Per example: the median, the 90th percentile and the slowest step, in ms of
wall-clock time, the longest event-loop stall (a 5 ms QTimer heartbeat; target
<= 17 ms, one frame at 60 Hz) while the window steps with the event loop running,
and the median in ms of this process's CPU time (on a shared
machine the CPU time says what the update costs when the cores are not busy
with other work; the load average is printed). The engine's own time
(stepping the program, once, before any of this) is printed for scale; it is
not part of the figure.

Run under Xvfb for a real window (``xvfb-run -a python benchmarks/bench_step_panel.py``);
without a display it uses Qt's offscreen platform.
"""

from __future__ import annotations

import os
import statistics
import sys
import time

from heartbeat import Heartbeat

from scripts.scripted import close_window, open_window, private_environment, settle

_HOME = private_environment("jaxviz-bench-step-")

#: (example, variant) pairs the issue names.
CASES = (("convolve", "vmap"), ("data_parallel", "pmap"))
PASSES = 3
TARGET_MS = 50.0
TARGET_STALL_MS = 17.0


def stepping_stall(app, controller, steps: int) -> float:
    """The longest gap (ms, beyond the 5 ms interval) of a heartbeat QTimer while the
    window takes one step every 30 ms with its event loop running."""
    beat = Heartbeat()
    controller.cursor.go(0)
    controller.stepChanged.emit(0)
    app.processEvents()
    beat.start()
    for _ in range(steps):
        controller.step_forward()
        until = time.perf_counter() + 0.03
        while time.perf_counter() < until:
            app.processEvents()
            time.sleep(0.001)
    return beat.stop() * 1000


class Clock:
    """Wall-clock and CPU time of one step."""

    def __init__(self) -> None:
        self.wall: list[float] = []
        self.cpu: list[float] = []
        self._start = (0.0, 0.0)

    def start(self) -> None:
        self._start = (time.perf_counter(), time.process_time())

    def stop(self) -> None:
        self.wall.append(time.perf_counter() - self._start[0])
        self.cpu.append(time.process_time() - self._start[1])

    def figures(self) -> str:
        ms = sorted(t * 1000 for t in self.wall)
        p90 = ms[int(0.9 * (len(ms) - 1))]
        cpu = statistics.median(self.cpu) * 1000
        verdict = "ok" if p90 < TARGET_MS else "OVER"
        return (f"median {statistics.median(ms):5.1f}  p90 {p90:5.1f}  max {ms[-1]:5.1f} ms "
                f"wall; median {cpu:5.1f} ms CPU ({len(ms)} steps; p90 vs {TARGET_MS:.0f} ms: "
                f"{verdict})")


def main() -> int:
    from jaxviz.ui.stepper.values_panel import ValuesPanel

    app, window, engine = open_window(_HOME)
    print(f"platform: {app.platformName()}; window {window.width()}x{window.height()}; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    steppings = []
    controller = window.step_mode.controller
    try:
        for example, variant in CASES:
            window.open_example(example)
            settle(app, lambda: window.presenter.details is not None and not window.session.pending
                 and window.presenter.result.function == window.state.function)
            start = time.perf_counter()
            window.step_mode.start(variant)
            settle(app, lambda: controller.result is not None and not controller.busy)
            engine_s = time.perf_counter() - start
            result = controller.result
            steppings.append((example, variant, result, window.state.source.split("\n")))
            first, later = Clock(), Clock()
            for n in range(PASSES):
                controller.cursor.go(0)
                controller.stepChanged.emit(0)
                app.processEvents()
                clock = first if n == 0 else later
                for _ in range(len(result.steps) - 1):
                    clock.start()
                    controller.step_forward()
                    app.processEvents()  # layout, then paint what changed
                    clock.stop()
            print(f"\n{example} ({variant}): {len(result.steps)} steps; the engine stepped it "
                  f"in {engine_s:.2f} s (not counted)")
            print(f"  window, first pass:   {first.figures()}")
            print(f"  window, later passes: {later.figures()}")
            stall = stepping_stall(app, controller, len(result.steps) - 1)
            print(f"  longest event-loop stall while stepping: {stall:.1f} ms (target <= "
                  f"{TARGET_STALL_MS:.0f} ms: {'ok' if stall <= TARGET_STALL_MS else 'OVER'}; "
                  f"load average {os.getloadavg()[0]:.1f})")
            controller.stop()
    finally:
        close_window(window, engine)
    for example, variant, result, source in steppings:
        panel = ValuesPanel()
        panel.resize(1920, 420)
        panel.show()
        clock = Clock()
        for n in range(PASSES):
            for index in range(len(result.steps)):
                if n:
                    clock.start()
                panel.show_step(result, index, source)
                panel.repaint()
                app.processEvents()
                if n:
                    clock.stop()
        print(f"\nvalues panel alone, {example} ({variant}), later passes: {clock.figures()}")
        panel.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
