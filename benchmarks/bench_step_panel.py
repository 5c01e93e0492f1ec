"""Does a step show without dropping a frame once the engine has the values? (issue 31)

Prints (never asserts; machines are noisy), for convolve (vmap, host values and
heat maps) and data_parallel (pmap, 8 device panels), all measured in one run:

* **the window**: a real main window at 1920x1080 on a real engine, in step
  mode; per Next (``StepController.step_forward``), with the event loop running
  until the step has settled (the values panel filled -- a few columns per turn --,
  laid out and painted, the equation lit in the pane, the source line lit in the
  editor, the status bar): the **longest event-loop turn** of that step, from a
  5 ms QTimer heartbeat (target <= 17 ms, one frame at 60 Hz), in wall-clock ms
  and in ms of the GUI thread's own CPU time between two ticks; and the time until
  the step has settled. Every step of the program, three times over: the first
  pass (the widgets made ahead of it in idle turns, or made by it), then later ones;
* **the longest stall while stepping**, one step every 30 ms (a held key), as
  ``bench_gui.py`` measures it;
* **the values panel alone**: the same steppings shown in a bare
  :class:`~jaxviz.ui.stepper.ValuesPanel` (1920x420, the Values tab's size), filled
  at once (:meth:`~jaxviz.ui.stepper.ValuesPanel.finish`) and repainted.

Per figure: the median, the 90th percentile and the largest. On a shared machine
the CPU time says what a turn costs when the cores are not busy with other work
(the wall clock stretches with the load; the load average is printed). The
engine's own time (stepping the program, once, before any of this) is printed for
scale; it is not part of the figures.

Run under Xvfb for a real window (``xvfb-run -a python benchmarks/bench_step_panel.py``);
without a display it uses Qt's offscreen platform.
"""

from __future__ import annotations

import os
import statistics
import sys
import time

from heartbeat import Heartbeat, bytecode_as_installed, machine_speed

from scripts.scripted import close_window, open_window, private_environment, settle

_HOME = private_environment("jaxviz-bench-step-")

#: (example, variant) pairs the issue names.
CASES = (("convolve", "vmap"), ("data_parallel", "pmap"))
PASSES = 3
TARGET_MS = 17.0
TARGET_STALL_MS = 17.0


def stepping_stall(app, controller, steps: int) -> tuple[float, float]:
    """The longest gap (ms, beyond the 5 ms interval) of a heartbeat QTimer while the
    window takes one step every 30 ms with its event loop running, and the most CPU
    time (ms) the GUI thread spent between two ticks."""
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
    return beat.stop() * 1000, beat.worst_cpu * 1000


class Clock:
    """Wall-clock and CPU time of one step (or one refill)."""

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
        return f"{spread(self.wall)} wall; CPU {spread(self.cpu)}"


def spread(seconds: list[float], target_ms: float | None = None) -> str:
    """``median, p90, max`` in ms (with the 90th percentile's verdict against a target)."""
    ms = sorted(t * 1000 for t in seconds)
    p90 = ms[int(0.9 * (len(ms) - 1))]
    verdict = "" if target_ms is None else \
        f" (p90 vs {target_ms:.0f} ms: {'ok' if p90 <= target_ms else 'OVER'})"
    return (f"median {statistics.median(ms):5.1f}  p90 {p90:5.1f}  max {ms[-1]:5.1f} ms"
            f"{verdict}")


def filling(panel) -> bool:
    """Whether the panel is still filling columns (False for one that fills at once)."""
    return bool(getattr(panel, "filling", False))


class Turns:
    """Per step: the longest event-loop turn (wall and the GUI thread's CPU) and the time
    until the step settled."""

    def __init__(self) -> None:
        self.turn: list[float] = []
        self.turn_cpu: list[float] = []
        self.settled = Clock()

    def step(self, app, controller, panel) -> None:
        beat = Heartbeat()
        beat.start()
        self.settled.start()
        controller.step_forward()
        settle(app, lambda: not filling(panel))
        app.processEvents()  # the last column's layout and paint
        self.settled.stop()
        until = time.perf_counter() + 0.02  # and whatever else the step left to do
        while time.perf_counter() < until:
            app.processEvents()
            time.sleep(0.001)
        self.turn.append(beat.stop())
        self.turn_cpu.append(beat.worst_cpu)

    def figures(self) -> list[str]:
        return [f"longest turn per step: {spread(self.turn, TARGET_MS)} wall",
                f"                       {spread(self.turn_cpu, TARGET_MS)} GUI-thread CPU",
                f"step shown and settled: {self.settled.figures()} ({len(self.turn)} steps)"]


def main() -> int:
    print(bytecode_as_installed())
    print(machine_speed())
    from jaxviz.ui.stepper.values_panel import ValuesPanel

    app, window, engine = open_window(_HOME)
    print(f"platform: {app.platformName()}; window {window.width()}x{window.height()}; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    steppings = []
    controller = window.step_mode.controller
    try:
        for example, variant in CASES:
            window.open_example(example)
            settle(app, lambda: window.router.details is not None and not window.session.pending
                 and window.router.result.function == window.state.function)
            start = time.perf_counter()
            window.step_mode.start(variant)
            settle(app, lambda: controller.result is not None and not controller.busy)
            engine_s = time.perf_counter() - start
            result = controller.result
            steppings.append((example, variant, result, window.state.source.split("\n")))
            panel = window.tools.values.view
            first, later = Turns(), Turns()
            for n in range(PASSES):
                controller.cursor.go(0)
                controller.stepChanged.emit(0)
                settle(app, lambda p=panel: not filling(p))
                app.processEvents()
                turns = first if n == 0 else later
                for _ in range(len(result.steps) - 1):
                    turns.step(app, controller, panel)
            print(f"\n{example} ({variant}): {len(result.steps)} steps; the engine stepped it "
                  f"in {engine_s:.2f} s (not counted); load average {os.getloadavg()[0]:.1f}")
            print("  window, first pass:")
            for line in first.figures():
                print(f"    {line}")
            print("  window, later passes:")
            for line in later.figures():
                print(f"    {line}")
            stall, cpu = stepping_stall(app, controller, len(result.steps) - 1)
            print(f"  longest event-loop stall while stepping (a step every 30 ms): {stall:.1f} "
                  f"ms (target <= {TARGET_STALL_MS:.0f} ms: "
                  f"{'ok' if stall <= TARGET_STALL_MS else 'OVER'}); the GUI thread's CPU between "
                  f"two ticks at most {cpu:.1f} ms; load average {os.getloadavg()[0]:.1f}")
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
                getattr(panel, "finish", lambda: None)()  # (a panel that fills at once: none)
                panel.repaint()
                app.processEvents()
                if n:
                    clock.stop()
        print(f"\nvalues panel alone, {example} ({variant}), later passes: {clock.figures()}")
        panel.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
