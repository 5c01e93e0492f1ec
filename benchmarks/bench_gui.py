"""How quick is the window? Start-up and its imports, edit-to-panes, event-loop stalls, memory.

Prints (never asserts; machines are noisy), all measured in the same run, with the
load average at the time (on a shared machine compare the ratios, not the seconds):

* **what start-up imports**: the modules imported before the window's first paint,
  by cumulative import time (``python -X importtime``, the median of ``--runs``
  start-ups), so a regression names its module;
* **start-up**: from spawning ``jaxviz example:convolve`` (the real entry point,
  a fresh process) to its window's first paint, median of ``--runs``, interleaved
  with ``python -c "import jax"`` (targets: <= 0.3 s and <= 0.6x the JAX import);
* **edit to updated panes**, per gallery example with a warm engine: from an
  edit in the editor to the jaxpr panes showing the new result, with and
  without the deliberate 400 ms typing pause (target: median <= 300 ms
  after the pause);
* **the longest event-loop stall**, from a 5 ms QTimer heartbeat (target <= 17 ms,
  one frame at 60 Hz): while tracing every gallery example, while switching
  examples, while stepping data_parallel (pmap) and while the timing view records
  a short run, each with the GUI-thread calls over 17 ms in that part by name
  (``heartbeat.StallLog``: the widget painted, the steps run, a full collection);
* **the GUI process's memory**: resident set now and at its peak (target <= 150 MB).

The in-process part collects reference cycles as the window's process does
(:mod:`jaxviz.ui.gc_policy`: full passes only when the window is idle). Beside the
start-up it times a bare PySide6 window the same way: the floor no Qt app goes under.

Modules are imported from cached bytecode, as an installed jaxviz's are
(``heartbeat.bytecode_as_installed``: a machine that sets ``PYTHONDONTWRITEBYTECODE``
would otherwise compile every module at every start-up), after one untimed start-up
of each kind.

``--only timing`` skips the rest: a warm engine, then ``--runs`` timing runs, each
with its longest stall, the GUI thread's worst CPU between two ticks, how many turns
went over a frame, and the calls over 17 ms.

Run under Xvfb for a real window (``xvfb-run -a python benchmarks/bench_gui.py``);
without a display it uses Qt's offscreen platform.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

from heartbeat import Heartbeat, StallLog, bytecode_as_installed, machine_speed

if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# Private settings and recovery folders: the benchmark must not touch the user's.
_HOME = tempfile.mkdtemp(prefix="jaxviz-bench-gui-")
os.environ["XDG_CONFIG_HOME"] = os.path.join(_HOME, "config")
os.environ["XDG_DATA_HOME"] = os.path.join(_HOME, "data")

#: The child: the `jaxviz` entry point's imports, then the window; prints at its first
#: paint (before the engine starts and the example opens: app.main's on_painted).
CHILD = """
import os, sys, time
from jaxviz.cli import opens_window
from jaxviz.ui import app

def painted(window):
    t = time.time()
    with open("/proc/self/statm") as f:
        rss = int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6
    print(f"shown {t:.6f} {rss:.1f}", flush=True)
    sys.stderr.flush()
    os._exit(0)

sys.exit(app.main(["example:convolve"], on_painted=painted))
"""

#: The floor under the first paint: a bare PySide6 window (Python, Qt's libraries, one
#: empty widget painted), launched the same way; jaxviz cannot paint sooner than this.
BARE_CHILD = """
import os, sys, time
from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication, QWidget

class Painted(QObject):
    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Paint:
            print(f"shown {time.time():.6f} 0", flush=True)
            os._exit(0)
        return False

app = QApplication(sys.argv[:1])
window = QWidget()
window.resize(800, 600)
watcher = Painted()
window.installEventFilter(watcher)
window.show()
app.exec()
"""

TARGET_STALL_MS = 17.0
FIRST_PAINT_RSS: list[float] = []
TARGET_RSS_MB = 150.0


def startup_once(importtime: bool = False, child: str = CHILD) -> tuple[float, dict[str, float]]:
    """Seconds from spawning the process to its window's first paint, and (with
    ``importtime``) each module's cumulative import time in seconds (the resident
    memory at the first paint, MB, is kept in :data:`FIRST_PAINT_RSS`)."""
    flags = ["-X", "importtime"] if importtime else []
    start = time.time()
    out = subprocess.run([sys.executable, *flags, "-c", child], capture_output=True,
                         text=True, timeout=120)
    for line in out.stdout.splitlines():
        if line.startswith("shown "):
            if child is CHILD:
                FIRST_PAINT_RSS.append(float(line.split()[2]))
            return float(line.split()[1]) - start, parse_importtime(out.stderr)
    raise RuntimeError(f"the window never showed:\n{out.stdout}\n{out.stderr}")


def parse_importtime(text: str) -> dict[str, float]:
    """``-X importtime`` lines -> {module: cumulative seconds}."""
    found: dict[str, float] = {}
    for line in text.splitlines():
        if line.startswith("import time:") and "|" in line:
            _self, cumulative, name = line[len("import time:"):].split("|")
            if cumulative.strip().isdigit():
                found[name.strip()] = int(cumulative) / 1e6
    return found


def import_breakdown(runs: int, top: int) -> None:
    """Print the modules imported before the first paint by median cumulative import time."""
    tables = [startup_once(importtime=True)[1] for _ in range(runs)]
    names = set().union(*tables)
    median = {n: statistics.median(t.get(n, 0.0) for t in tables) for n in names}
    total = sum(median[n] for n in names if n in ("site", "encodings")) or 0.0
    own = [n for n in names if n.startswith("jaxviz")]
    print(f"imported before the first paint: {len(names)} modules ({len(own)} of jaxviz); "
          f"top {top} by cumulative import time (median of {runs}, -X importtime; "
          f"interpreter start-up {total * 1000:.0f} ms):")
    for name in sorted(names, key=lambda n: -median[n])[:top]:
        print(f"    {median[name] * 1000:7.1f} ms  {name}")


def import_jax_once() -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import jax"], check=True, timeout=120)
    return time.perf_counter() - start


def wait(app, condition, timeout: float = 120.0) -> None:
    deadline = time.perf_counter() + timeout
    while not condition():
        if time.perf_counter() > deadline:
            raise TimeoutError("gave up waiting")
        app.processEvents()
        time.sleep(0.001)


def in_process(edits: int) -> dict:
    """Edit-to-panes per example and the stalls, in one window with a warm engine."""
    from PySide6.QtWidgets import QApplication

    from jaxviz.ui.theme import style
    from jaxviz.ui.window.main_window import MainWindow

    log = StallLog()
    app = QApplication.instance() or log.application(["bench"])
    beat = Heartbeat()
    # The calls of the parts' measured stretches only: the window's construction (its
    # first item view's palette, 18 ms) is not a stall of any part.
    log.during = beat
    style.apply_theme(app)
    from jaxviz.ui import gc_policy

    collector = gc_policy.install(app)  # as the window's process runs (jaxviz.ui.app)
    win = MainWindow()
    win.resize(1920, 1080)
    win.show()
    win.start_engine()
    updated: list[float] = []
    win.panesUpdated.connect(lambda: updated.append(time.perf_counter()))
    sent: list[float] = []
    win.session._debounce.timeout.connect(lambda: sent.append(time.perf_counter()))
    figures: dict = {"edit": [], "request": [], "stall": 0.0, "per_example": {}}
    wait(app, lambda: win.engine.info is not None)
    for name in win.gallery.examples:
        win.open_example(name)
        wait(app, lambda: not win.session.pending)  # warm: jaxprs, HLO and layouts done
        mine = []
        for n in range(edits):
            updated.clear()
            sent.clear()
            beat.start()
            cursor = win.editor.textCursor()
            cursor.movePosition(cursor.MoveOperation.End)
            start = time.perf_counter()
            cursor.insertText(f"\n# edit {n}\n")
            wait(app, lambda: bool(updated))
            edit_s = updated[0] - start
            request_s = updated[0] - sent[0] if sent else edit_s
            wait(app, lambda: not win.session.pending)  # phase two as well
            figures["stall"] = max(figures["stall"], beat.stop())
            figures["stall_cpu"] = max(figures.get("stall_cpu", 0.0), beat.worst_cpu)
            figures["edit"].append(edit_s)
            figures["request"].append(request_s)
            mine.append(request_s)
        figures["per_example"][name] = statistics.median(mine)
        win.document.editor.document().setModified(False)  # no "save first?" on the next one
    figures["p99"] = beat.p99()
    named = figures["named"] = {"tracing": log.worst(3)}
    stages = figures["rss_stages"] = [("every example traced and edited", rss_mb()[0])]
    log.clear()
    figures["switch_stall"] = switching_stall(app, win, beat)
    figures["switch_stall_cpu"] = beat.worst_cpu
    named["switching"] = log.worst(3)
    stages.append(("examples switched", rss_mb()[0]))
    log.clear()
    figures["step_stall"] = stepping_stall(app, win, beat)
    figures["step_stall_cpu"] = beat.worst_cpu
    named["stepping"] = log.worst(3)
    stages.append(("data_parallel stepped", rss_mb()[0]))
    log.clear()
    figures["timing_stall"] = timing_run_stall(app, win, beat)
    figures["timing_stall_cpu"] = beat.worst_cpu
    named["timing"] = log.worst(3)
    stages.append(("a timing run", rss_mb()[0]))
    figures["rss"] = rss_mb()
    # A user pauses now and then: the window's idle collection runs (gc_policy).
    passes = collector.passes
    settle_for(app, gc_policy.IDLE_S + 2 * gc_policy.CHECK_MS / 1000)
    figures["rss_idle"] = rss_mb()[0], collector.passes - passes, gc_policy.IDLE_S
    win.document.editor.document().setModified(False)
    win.close()
    return figures


def switching_stall(app, win, beat: Heartbeat) -> float:
    """The longest stall while opening each gallery example in turn (warm engine)."""
    worst = worst_cpu = 0.0
    for name in win.gallery.examples:
        beat.start()
        win.open_example(name)
        wait(app, lambda: not win.session.pending)
        settle_for(app, 0.05)
        worst = max(worst, beat.stop())
        worst_cpu = max(worst_cpu, beat.worst_cpu)
        win.document.editor.document().setModified(False)
    beat.worst_cpu = worst_cpu
    return worst


def stepping_stall(app, win, beat: Heartbeat) -> float | None:
    """The longest stall while stepping data_parallel (pmap) through every step, one
    step every 30 ms; the engine's own stepping (before) is not counted."""
    if "data_parallel" not in win.gallery.examples:
        return None
    win.open_example("data_parallel")
    wait(app, lambda: not win.session.pending)
    controller = win.step_mode.controller
    win.step_mode.start("pmap")
    wait(app, lambda: controller.result is not None and not controller.busy)
    beat.start()
    for _ in range(len(controller.result.steps) - 1):
        controller.step_forward()
        settle_for(app, 0.03)
    stall = beat.stop()
    controller.stop()
    win.document.editor.document().setModified(False)
    return stall


def settle_for(app, seconds: float) -> None:
    until = time.perf_counter() + seconds
    wait(app, lambda: time.perf_counter() > until)


def rss_mb() -> tuple[float, float]:
    """This (GUI) process's resident set now and at its peak, in MB."""
    import resource

    with open("/proc/self/statm") as f:
        now = int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 1e6  # KiB on Linux
    return now, peak


def timing_run_stall(app, win, beat: Heartbeat) -> float | None:
    """The longest stall while the docked timing view records a short run (None if absent)."""
    win.open_example("async_dispatch")
    wait(app, lambda: not win.session.pending)
    win.tools.setCurrentWidget(win.tools.timing)
    view = win.tools.timing.view
    if view is None or not hasattr(view, "controls"):
        return None
    try:
        controls = view.controls
        controls.set_checked(["jit"])
        controls.runs.setValue(20)
        controls.warmup.setValue(1)
        controls.pipeline.setValue(4)
        controls.sweep_on.setChecked(False)
    except AttributeError:
        pass
    settle_for(app, 0.5)  # the tab's first paint (and its plot's build) is not the run's
    beat.start()
    view.controls.run_button.click()
    wait(app, lambda: view.running, timeout=10)
    wait(app, lambda: not view.running, timeout=180)
    settle_for(app, 0.3)  # the run's last redraw, and the other tabs' in turns after it
    return beat.stop()


def only_timing(runs: int, turns: bool = False) -> None:
    """``--only timing``: a warm engine, then ``runs`` timing runs, each with its longest
    stall, the GUI thread's worst CPU between two ticks and the calls over 17 ms (with
    ``turns``: what each turn over 17 ms of GUI CPU was made of, :class:`turn_log.TurnLog`)."""
    from PySide6.QtWidgets import QApplication

    from jaxviz.ui import gc_policy
    from jaxviz.ui.theme import style
    from jaxviz.ui.window.main_window import MainWindow

    if turns:
        from turn_log import TurnLog
    log = TurnLog(TARGET_STALL_MS) if turns else StallLog()
    app = QApplication.instance() or log.application(["bench"])
    style.apply_theme(app)
    gc_policy.install(app)
    win = MainWindow()
    win.resize(1920, 1080)
    win.show()
    win.start_engine()
    wait(app, lambda: win.engine.info is not None)
    beat = Heartbeat()
    log.during = beat  # the calls of the parts' measured stretches only
    if turns:
        log.watch(beat)
    for n in range(runs):
        log.clear()
        stall = timing_run_stall(app, win, beat)
        ticks = sorted(beat.cpu, reverse=True)
        over = sum(cpu > TARGET_STALL_MS / 1000 for cpu in ticks)
        print(stall_line(f"during timing run {n + 1} of {runs}", stall, beat.worst_cpu)
              + f"; {over} of {len(ticks)} turns over {TARGET_STALL_MS:.0f} ms of GUI CPU "
              f"(load average {os.getloadavg()[0]:.1f})")
        print(named_line(log.worst(4)))
        if turns:
            print("\n".join(log.report()))
        win.document.editor.document().setModified(False)
    win.close()


def verdict(value: float | None, target: float) -> str:
    return "n/a" if value is None else ("ok" if value <= target else "OVER")


def stall_line(what: str, seconds: float | None, cpu: float | None = None) -> str:
    if seconds is None:
        return f"longest event-loop stall {what}: (not available)"
    ms = seconds * 1000
    own = (f"; the GUI thread's own CPU between two ticks at most {cpu * 1000:.1f} ms"
           if cpu is not None else "")
    return (f"longest event-loop stall {what}: {ms:.1f} ms "
            f"(target <= {TARGET_STALL_MS:.0f} ms: {verdict(ms, TARGET_STALL_MS)}){own}")


def named_line(worst: list[tuple[float, str, float]]) -> str:
    """The GUI-thread calls over the target in one part, longest first (StallLog): what a
    regression in that part is in."""
    if not worst:
        return f"    no GUI-thread call over {TARGET_STALL_MS:.0f} ms"
    return f"    calls over {TARGET_STALL_MS:.0f} ms (wall ms / GUI CPU ms): " + "; ".join(
        f"{ms:.0f}/{cpu:.0f} {name}" for ms, name, cpu in worst)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="start-ups to time (default 5)")
    parser.add_argument("--edits", type=int, default=3, help="edits per example (default 3)")
    parser.add_argument("--top", type=int, default=20, help="modules in the import table")
    parser.add_argument("--startup-only", action="store_true",
                        help="only the imports and the start-up (no engine)")
    parser.add_argument("--only", choices=["timing"],
                        help="only this part: 'timing' runs the timing part --runs times "
                             "(a warm engine, no start-up timings)")
    parser.add_argument("--turns", action="store_true",
                        help="with --only timing: what each turn over 17 ms of GUI CPU held")
    ns = parser.parse_args()
    platform = os.environ.get("QT_QPA_PLATFORM") or f"xcb (DISPLAY={os.environ.get('DISPLAY')})"
    print(f"jaxviz GUI benchmark — Qt platform: {platform}; load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(bytecode_as_installed())
    print(machine_speed())
    if ns.only == "timing":
        only_timing(ns.runs, ns.turns)
        print(machine_speed() + " -- at the end")
        return
    startup_once(), import_jax_once(), startup_once(child=BARE_CHILD)  # warm: none timed
    import_breakdown(max(1, min(ns.runs, 3)), ns.top)
    starts, jax_imports, bare = [], [], []
    for _ in range(ns.runs):  # interleaved: all three see the same machine
        starts.append(startup_once()[0])
        jax_imports.append(import_jax_once())
        bare.append(startup_once(child=BARE_CHILD)[0])
    s, j, b = statistics.median(starts), statistics.median(jax_imports), statistics.median(bare)
    print(f"window's first paint after launch: median {s:.3f} s (min {min(starts):.3f}, "
          f"max {max(starts):.3f}; target <= 0.3 s: {verdict(s, 0.3)})")
    print(f"a bare PySide6 window's first paint: median {b:.3f} s (the floor on this machine: "
          f"Python, Qt's libraries, one empty widget) -> jaxviz adds {s - b:.3f} s")
    print(f"python -c 'import jax':            median {j:.3f} s -> window/JAX = {s / j:.2f}x "
          f"(target <= 0.6x: {verdict(s / j, 0.6)}; load average now "
          f"{os.getloadavg()[0]:.1f})")
    print(f"resident memory at the first paint: median {statistics.median(FIRST_PAINT_RSS):.0f} MB")
    if ns.startup_only:
        return
    f = in_process(ns.edits)
    edit, req = statistics.median(f["edit"]), statistics.median(f["request"])
    print(f"edit to updated panes ({len(f['edit'])} edits, {len(f['per_example'])} examples, "
          f"warm engine): median {req * 1000:.0f} ms after the typing pause, "
          f"{edit * 1000:.0f} ms including the 400 ms pause; max {max(f['request']) * 1000:.0f} ms "
          f"(target median <= 300 ms)")
    for name, value in f["per_example"].items():
        print(f"    {name:16s} {value * 1000:6.0f} ms")
    print(stall_line("while tracing every gallery example", f["stall"], f.get("stall_cpu"))
          + f"; 99th percentile of the heartbeat's delays {f['p99'] * 1000:.1f} ms")
    print(named_line(f["named"]["tracing"]))
    print(stall_line("while switching examples", f["switch_stall"], f["switch_stall_cpu"]))
    print(named_line(f["named"]["switching"]))
    print(stall_line("while stepping data_parallel (pmap)", f["step_stall"],
                     f["step_stall_cpu"]))
    print(named_line(f["named"]["stepping"]))
    print(stall_line("during a timing run (first open of the timing tab excluded)",
                     f["timing_stall"], f["timing_stall_cpu"]))
    print(named_line(f["named"]["timing"]))
    print("GUI process resident memory after each part: " + "; ".join(
        f"{what} {mb:.0f} MB" for what, mb in f["rss_stages"]))
    now, peak = f["rss"]
    idle, passes, idle_s = f["rss_idle"]
    print(f"GUI process resident memory: {now:.0f} MB at the end, {peak:.0f} MB at its peak "
          f"(target <= {TARGET_RSS_MB:.0f} MB: {verdict(peak, TARGET_RSS_MB)}); {idle:.0f} MB "
          f"after {idle_s:.0f} s idle ({passes} idle collection(s) ran); load "
          f"average now {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(machine_speed() + " -- at the end")


if __name__ == "__main__":
    main()
    sys.stdout.flush()
    os._exit(0)  # skip Qt's teardown of a window whose engine threads are still winding down
