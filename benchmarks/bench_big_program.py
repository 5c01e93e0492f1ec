"""A 12-layer train step in the GUI process: memory, device-view frames, event-loop stalls.

Issue 28's targets for a big program, printed beside the measured figures (never asserted):

* the GUI process with it open stays under 1 GB resident (``VmRSS`` of the process,
  read from ``/proc/self/status``, and its peak ``VmHWM``);
* the device view plays it at 30 frames per second or more (frames the device view's
  canvas painted per second while playing, offscreen at 1280x720);
* the GUI event loop never stalls more than one frame (17 ms) while the program loads
  and plays (the largest gap between the ticks of a 5 ms timer).

The program is the GPT-style train step of ``tests/programs`` (FSDP x tensor parallel on
4x2), its ``plain`` and ``sharded`` variants with jaxprs and storyboards, traced by the
core in this process (the compile takes minutes on two cores) or read from a JSON file
(``--result``, the model codec's form, as the engine sends it). The GUI part runs in a
child process that never imports JAX, as the window's process does, and shows what the
window shows for it: the two jaxpr panes (``JaxprPane``: text, folds) with the editor and
the source links between them (``LinkController``), the device view
(``DeviceView``) and the compare layout (``CompareView``). It is the views, not the whole
``MainWindow`` with its engine: the figure leaves out the editor and side panels. The
process collects reference cycles as the window's does (:mod:`jaxviz.ui.gc_policy`); the
reply's arrival from the engine is ``bench_reply.py``'s.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/bench_big_program.py [--layers 12]
        [--result result.json] [--keep result.json] [--play 4]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from heartbeat import Heartbeat, bytecode_as_installed
from turn_log import TurnLog

ROOT = Path(__file__).resolve().parents[1]
RSS_TARGET_MB = 1024
FPS_TARGET = 30.0
STALL_TARGET_MS = 17.0


def trace(layers: int) -> dict:
    """The train step's plain and sharded variants (jaxpr + storyboard), as plain data."""
    os.environ.setdefault("JAX_NUM_CPU_DEVICES", "8")
    sys.path.insert(0, str(ROOT))
    from jaxviz import core
    from jaxviz.model import Target, TraceRequest, to_plain
    from tests.programs import gpt_mesh, gpt_source, gpt_specs

    core.configure_devices(8)
    req = TraceRequest(target=Target(gpt_source(layers), "<editor:gpt_train.py>", "train_step"),
                       variants=["plain", "sharded"], want=["jaxpr", "story"],
                       args="params, tokens, targets", in_axes="None, None, None",
                       mesh=gpt_mesh(), specs=gpt_specs(layers))
    start = time.perf_counter()
    result = core.trace_request(req)
    print(f"traced and compiled in {time.perf_counter() - start:.0f} s", flush=True)
    for vr in result.variants:
        if vr.error is not None:
            raise SystemExit(f"{vr.variant} failed: {vr.error.message}")
    return to_plain(result)


def _memory_mb() -> tuple[float, float]:
    """(VmRSS, VmHWM) of this process in MB."""
    found = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            found[key] = int(value.split()[0]) / 1024
    return found["VmRSS"], found["VmHWM"]


def _marks(result) -> dict:
    """Each pane's change marks, as the window hands them over: the steps that make them
    (the pane runs them after its text; the first result loads their module)."""
    from jaxviz.views.compare.changes import marks_steps

    return {vr.variant: marks_steps(result, vr.variant) for vr in result.variants}


def gui(path: str, play_s: float, layers: int) -> int:
    """The child: the views fed the result; prints memory, frames per second and stalls."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QEvent, QObject

    from jaxviz.model import from_plain
    from jaxviz.ui import gc_policy
    from jaxviz.ui.compare.compare_view import CompareView
    from jaxviz.ui.devices.view import DeviceView
    from jaxviz.ui.panes.area import JaxprArea
    from jaxviz.ui.panes.linking import LinkController
    from jaxviz.ui.text.editor import CodeEditor
    from jaxviz.ui.theme import style
    from tests.programs import gpt_source

    log = TurnLog(STALL_TARGET_MS)  # the calls over 17 ms, and what each slow turn held
    app = log.application(sys.argv[:1])
    style.apply_theme(app)
    gc_policy.install(app)  # cycles collected as the window's process does: when idle
    before = _memory_mb()[0]
    beat = Heartbeat()
    log.watch(beat)

    def run_for(seconds: float, until=lambda: True) -> None:
        end = time.perf_counter() + seconds
        while time.perf_counter() < end or not until():
            app.processEvents()
            time.sleep(0.001)

    result = from_plain(json.loads(Path(path).read_text()))
    assert "jax" not in sys.modules, "the GUI process imported JAX"
    # the panes, the editor and the links between them, as in the window
    area = JaxprArea()
    area.set_visible_variants([vr.variant for vr in result.variants])
    area.resize(1400, 900)
    area.show()
    panes = [area.panes[vr.variant] for vr in result.variants]
    editor = CodeEditor()
    editor.setPlainText(gpt_source(layers))
    editor.resize(700, 900)
    editor.show()
    links = LinkController(editor, area)
    view = DeviceView()
    view.resize(1280, 720)
    view.show()
    compare = CompareView()
    compare.resize(1280, 720)
    compare.show()
    app.processEvents()

    # loading: what the window does when the result arrives
    log.clear()
    beat.start()
    load_start = time.perf_counter()
    # the window hands each pane the steps of its change marks (MainWindow's
    # _panes_show_result; the first result loads their module)
    from_window = log.timed("changes.marks_steps (as the window does)", _marks, result)
    for vr in result.variants:  # through the area, as the window does: the panes in view
        # at once within its budget per turn, the others in later turns (JaxprArea.fill)
        log.timed(f"JaxprArea.fill ({vr.variant})", area.fill, vr.variant,
                  lambda pane, vr=vr: pane.show_result(vr, from_window[vr.variant]))
    log.timed("LinkController.set_result", links.set_result, result)
    log.timed("DeviceView.set_result", view.set_result, result, "sharded")
    log.timed("CompareView.set_pair", compare.set_pair, "plain", "sharded")
    log.timed("CompareView.show_result", compare.show_result, result)
    highlighters = [p.jaxpr_view.highlighter for p in panes] + [
        compare.columns.left.highlighter, compare.columns.right.highlighter]
    run_for(0.5, until=lambda: not area.filling and not any(p.filling for p in panes)
            and not compare.busy and compare.diff is not None
            and not getattr(view, "busy", False) and bool(view.phases)
            and not any(h.lexing for h in highlighters))
    load_s = time.perf_counter() - load_start
    load_stall = beat.stop() * 1000
    load_cpu = beat.worst_cpu * 1000
    load_names = log.worst()
    load_turns = log.report(count=int(os.environ.get("TURNS", "4")),
                            calls=int(os.environ.get("CALLS", "8")))
    log.clear()
    beat.start()

    # playing: frames the canvas paints
    class Counter(QObject):
        frames = 0

        def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt's name
            if event.type() == QEvent.Type.Paint:
                Counter.frames += 1
            return False

    counter = Counter()
    view.canvas.installEventFilter(counter)
    start_phase = view.current_phase
    view.play()
    t0 = time.perf_counter()
    run_for(play_s)
    played = time.perf_counter() - t0
    view.pause()
    play_stall = beat.stop() * 1000
    play_cpu = beat.worst_cpu * 1000
    fps = Counter.frames / played
    end_phase = view.current_phase
    # and from the middle of the program (compute and collective phases, not the host's);
    # the jump there draws its phase at once (not playing: left out of the figures)
    first_names = log.worst()
    middle = len(view.phases) // 2
    view.seek(middle, 0.0)
    run_for(0.3)
    log.clear()
    beat.start()
    Counter.frames = 0
    view.play()
    t0 = time.perf_counter()
    run_for(play_s)
    played_mid = time.perf_counter() - t0
    view.pause()
    play_stall = max(play_stall, beat.stop() * 1000)
    play_cpu = max(play_cpu, beat.worst_cpu * 1000)
    fps_mid = Counter.frames / played_mid
    play_names = sorted(first_names + log.worst(), reverse=True)[:8]
    play_turns = log.report(count=int(os.environ.get("TURNS", "2")),
                            calls=int(os.environ.get("CALLS", "8")))
    rss, peak = _memory_mb()
    print(f"GUI process (no JAX): {len(view.phases)} phases; jaxprs of "
          + " and ".join(f"{len(vr.jaxpr_text.splitlines())} lines" for vr in result.variants))
    print(f"{'figure':42} {'measured':>10} {'target':>10}")
    print(f"{'resident memory, views open (MB)':42} {rss:10.0f} {f'< {RSS_TARGET_MB}':>10}"
          f"   (peak {peak:.0f}; {before:.0f} before the result)")
    print(f"{'device view playing (frames/s)':42} {fps:10.1f} {f'>= {FPS_TARGET:.0f}':>10}"
          f"   ({Counter.frames} frames in {played:.1f} s, phases {start_phase}"
          f"->{end_phase})")
    print(f"{'device view playing mid-program (frames/s)':42} {fps_mid:10.1f} "
          f"{f'>= {FPS_TARGET:.0f}':>10}   (from phase {middle})")
    print(f"{'longest event-loop gap, loading (ms)':42} {load_stall:10.0f} "
          f"{f'<= {STALL_TARGET_MS:.0f}':>10}   (loading took {load_s:.2f} s)")
    print(f"{'longest event-loop gap, playing (ms)':42} {play_stall:10.0f} "
          f"{f'<= {STALL_TARGET_MS:.0f}':>10}")
    print(f"{'most GUI-thread CPU between ticks, loading':42} {load_cpu:10.0f} "
          f"{f'<= {STALL_TARGET_MS:.0f}':>10}   (ms; a loaded machine stretches the gaps, "
          f"not this)")
    print(f"{'most GUI-thread CPU between ticks, playing':42} {play_cpu:10.0f} "
          f"{f'<= {STALL_TARGET_MS:.0f}':>10}")
    for title, names in (("loading", load_names), ("playing", play_names)):
        print(f"GUI-thread calls over {STALL_TARGET_MS:.0f} ms while {title}, longest first "
              f"(wall ms, the GUI thread's CPU ms):" + ("" if names else " none"))
        for ms, name, cpu in names:
            print(f"  {ms:8.0f} {cpu:6.0f}  {name}")
    print("the slowest turns while loading (GUI-thread CPU between two ticks), what they held "
          "(CPU ms):" + ("" if load_turns else " none over the target"))
    for line in load_turns:
        print(line)
    print("the slowest turns while playing from the middle:"
          + ("" if play_turns else " none over the target"))
    for line in play_turns:
        print(line)
    if os.environ.get("TURNS"):  # where the long steps were
        import turn_log

        for ms, where in sorted(turn_log.LONG_STEPS, reverse=True)[:15]:
            print(f"  step {ms:5.1f} ms, stopped at {where}")
    print(f"load average {os.getloadavg()[0]:.2f} (2-core machine: the gaps grow with it)")
    return 0


def main() -> int:
    print(bytecode_as_installed())
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--layers", type=int, default=12)
    parser.add_argument("--result", help="a traced result (JSON) instead of tracing here")
    parser.add_argument("--keep", help="write the traced result (JSON) here")
    parser.add_argument("--play", type=float, default=4.0, help="seconds of playing")
    parser.add_argument("--gui", help=argparse.SUPPRESS)  # the child's side
    ns = parser.parse_args()
    if ns.gui:
        return gui(ns.gui, ns.play, ns.layers)
    path = ns.result
    if path is None:
        path = ns.keep or os.path.join(tempfile.mkdtemp(prefix="jaxviz-bench-big-"),
                                       "result.json")
        Path(path).write_text(json.dumps(trace(ns.layers)))
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.call([sys.executable, __file__, "--gui", path, "--play", str(ns.play),
                            "--layers", str(ns.layers)], env=env)


if __name__ == "__main__":
    sys.exit(main())
