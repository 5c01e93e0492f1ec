"""``jaxviz time``: measure dispatch versus completion; write data and lecture-ready plots.

Writes into ``--out``: ``timings.csv`` (one row per call), ``timings.json``
(the whole run; ``jaxviz`` can replay it), ``trace.json`` (Chrome trace
events: open it in https://ui.perfetto.dev) and the plots ``dispatch_vs_complete``,
``timeline``, ``variants`` and ``sweep`` (when asked) as PNG, SVG and PDF. What was
measured is written even when the run fails half-way.

``--out FILE.pdf`` writes the plots alone into one vector PDF, a page per plot
(for LaTeX/Beamer); ``--out FILE.png`` or ``FILE.svg`` one image per plot
(``FILE-timeline.png``, ...). ``--plot KIND`` keeps one plot (then a PNG or SVG
is ``FILE`` itself).
"""

from __future__ import annotations

import contextlib
import sys
import tempfile
import time
from pathlib import Path

from jaxviz.cli.common import USAGE_KINDS
from jaxviz.cli.options import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_USAGE,
    add_target_options,
    function_name,
    image_size,
    number,
    one_line,
    output_path,
    usage_error,
)
from jaxviz.model.limits import FONT_SCALE, PIPELINE, RUNS, WARMUP
from jaxviz.model.sizes import PLOT_SIZES
from jaxviz.model.timing import TIMING_DEFAULTS
from jaxviz.views.timing.stats import CAPTIONS


def add_parser(sub) -> None:
    p = sub.add_parser(
        "time", help="time dispatch vs completion; write CSV, JSON, a Perfetto trace and plots",
        description="Measure when each call of a function returned (dispatch) and when its "
                    "result was ready (block_until_ready), for several variants, a pipeline of "
                    "calls and an optional size sweep; write timings.csv, timings.json, "
                    "trace.json (Perfetto) and PNG, SVG and PDF plots into --out. Runs without "
                    "a display.")
    add_target_options(p, variant=False)
    p.set_defaults(timeout=600.0)
    for action in p._actions:  # the shared option's help names the default of the others
        if action.dest == "timeout":
            action.help = "give up after this long; what was measured is still written " \
                          "(default 600)"
    g = p.add_argument_group("timing")
    g.add_argument("--variants", type=one_line, metavar="LIST",
                   help="comma-separated timing variants: numpy, op-by-op (or plain), jit, "
                        "jit-sync (jit with async dispatch off), loop, vmap, jit-vmap, pmap, "
                        "sharded, shard_map (default: the example's, else jit)")
    g.add_argument("--runs", type=number(RUNS), default=TIMING_DEFAULTS.runs, metavar="R",
                   help=f"measured calls per variant (default {TIMING_DEFAULTS.runs})")
    g.add_argument("--warmup", type=number(WARMUP), default=TIMING_DEFAULTS.warmup, metavar="W",
                   help=f"calls before the measured ones (default {TIMING_DEFAULTS.warmup})")
    g.add_argument("--pipeline", type=number(PIPELINE), default=TIMING_DEFAULTS.pipeline,
                   metavar="K",
                   help="calls dispatched back to back without waiting, then awaited in order "
                        f"(default {TIMING_DEFAULTS.pipeline}; 0: none)")
    g.add_argument("--pipeline-variant", type=one_line, metavar="NAME",
                   help="the variant to pipeline (default: pmap/sharded if timed, else jit)")
    g.add_argument("--sweep", type=one_line, metavar="NAME=SIZES",
                   help="size sweep, e.g. \"n=256,512,1024\" (default: none; the example's "
                        "sizes with --sweep example)")
    g.add_argument("--sweep-args", type=one_line, metavar="SPEC",
                   help="argument spec using the sweep name, e.g. \"f32[n,n], f32[n,n]\" "
                        "(default: the example's, else --args)")
    g.add_argument("--baseline", metavar="NAME", type=function_name,
                   help="the NumPy function of the file timed as the numpy variant "
                        "(default: the example's)")
    g.add_argument("--no-async", dest="async_dispatch", action="store_false",
                   help="measure with CPU asynchronous dispatch off "
                        "(jax_cpu_enable_async_dispatch=False)")
    g.add_argument("--no-per-device", dest="per_device", action="store_false",
                   help="do not poll when each device's shard is ready")
    o = p.add_argument_group("output")
    o.add_argument("--out", required=True, metavar="DIR|FILE", type=output_path,
                   help="directory for the data and plots (created if missing); or a file "
                        "for the plots alone: FILE.pdf (one vector page per plot, for "
                        "LaTeX/Beamer), FILE.png or FILE.svg (FILE-KIND.png per plot)")
    o.add_argument("--plot", choices=list(CAPTIONS), metavar="KIND",
                   help="write only this plot: " + ", ".join(CAPTIONS) + " (timeline needs "
                        "--pipeline, sweep needs --sweep)")
    o.add_argument("--size", default="1920x1080", metavar="WxH", type=image_size(PLOT_SIZES),
                   help=f"plot size in pixels (default 1920x1080, for a projector; "
                        f"{PLOT_SIZES})")
    o.add_argument("--theme", choices=("light", "dark"), default="light",
                   help="plot colours (default light)")
    o.add_argument("--font-scale", type=number(FONT_SCALE), default=1.0, metavar="X",
                   help="multiply the text size (default 1.0: tick labels, legend and caption "
                        "18 pt on a slide the plot fills, 36 px at 1920x1080; "
                        f"{FONT_SCALE.low:g} to {FONT_SCALE.high:g})")
    o.add_argument("--no-plots", dest="plots", action="store_false",
                   help="write only the data files")


def plot_file(out: Path) -> bool:
    """``--out`` names a file of a plot format (``plot.pdf``), not a folder."""
    from jaxviz.views.exports import for_suffix

    with contextlib.suppress(ImportError):  # the plot formats register with the Qt renderers
        import jaxviz.ui.exporters  # noqa: F401
    return for_suffix("plot", out.suffix) is not None and not out.is_dir()


def out_problem(out: Path, plots: bool) -> str | None:
    """A message when ``--out`` cannot be used: a data file's name (the data files go
    into a folder together), a plot file without plots or in a missing folder. (A
    folder is created, by :func:`check_writable`, only for a request that can run.)"""
    from jaxviz.views.exports import exporters

    if plot_file(out):
        if not plots:
            return f"--no-plots writes only the data files: give --out a folder, not {out}"
        if not out.parent.is_dir():
            return f"--out {str(out)!r}: the folder {out.parent} does not exist"
        return None
    if any(out.suffix.lower() == e.extension for e in exporters("run")) and not out.is_dir():
        return (f"--out {str(out)!r}: the data files (timings.csv, timings.json, trace.json) "
                f"go into a folder together (e.g. --out {str(out.with_suffix(''))!r}); a "
                f".pdf, .png or .svg --out writes the plots alone")
    return None


def plot_problem(plot: str | None, request) -> str | None:
    """A message when ``--plot`` asks for a plot the run will have no data for."""
    if plot == "timeline" and not request.pipeline:
        return "--plot timeline needs a pipeline of calls (--pipeline K, K > 0)"
    if plot == "sweep" and not request.sweep:
        return "--plot sweep needs a size sweep (--sweep NAME=SIZES)"
    return None


def check_writable(out: Path) -> str | None:
    """Create ``out`` if needed; a message if it cannot be written, else None."""
    try:
        out.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=out, prefix=".jaxviz-write-test-"):
            pass
    except OSError as exc:
        return f"cannot write into --out {str(out)!r}: {exc.strerror or exc}"
    return None


class Progress:
    """Collects streamed records into a run and shows one progress line on stderr."""

    def __init__(self, run, stream=None, debug: bool = False):
        self.run = run
        self.debug = debug
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self._last = 0.0
        self._shown = ""
        self._said: set[tuple[str | None, str | None, int | None, str]] = set()

    def __call__(self, record) -> None:
        from jaxviz.model import ErrorInfo
        from jaxviz.model.timing import TimingStatus

        self.run.add(record)
        if isinstance(record, TimingStatus):
            self.show(record)
        elif isinstance(record, ErrorInfo):
            self.say(record)

    def say(self, error) -> None:
        """Print an error once (a variant's failure repeated by its pipeline is not news)."""
        from jaxviz.model.errors import format_error

        key = (error.variant, error.file, error.line, error.message)
        if key in self._said:
            return
        self._said.add(key)
        self.clear()
        print(f"jaxviz: error: {format_error(error, self.debug)}", file=self.stream)

    def show(self, status) -> None:
        pct = 100 * status.done / status.total if status.total else 0
        line = f"jaxviz time: {status.message}  [{status.done}/{status.total}, {pct:.0f}%]"
        now = time.monotonic()
        if self.tty:
            self.stream.write("\r" + line.ljust(len(self._shown)))
            self.stream.flush()
            self._shown = line
        elif now - self._last > 2.0 or status.message == "done":
            print(line, file=self.stream)
            self._last = now

    def clear(self) -> None:
        if self.tty and self._shown:
            self.stream.write("\r" + " " * len(self._shown) + "\r")
            self._shown = ""


def build_timing_request(ns):
    """The :class:`TimingRequest` from the options (example settings fill the gaps).

    Raises:
        jaxviz.model.errors.UserError: the target cannot be resolved.
    """
    from jaxviz.cli.options import build_request
    from jaxviz.model.timing import TimingRequest

    trace, defaults = build_request(ns, want=[], variants=["plain"])
    if ns.baseline is not None:  # a name the file must define (read, not run)
        from jaxviz.model.errors import UserError
        from jaxviz.model.sources import check_function

        shown = ns.target.rpartition(":")[0] if ".py:" in ns.target else ns.target
        try:
            check_function(trace.target.source, ns.baseline, shown, trace.target.filename)
        except UserError as exc:
            exc.info.message = f"--baseline: {exc.info.message}"
            raise
    timing = defaults.get("timing") or {}
    variants = ([v for v in ns.variants.split(",") if v.strip()] if ns.variants is not None
                else list(timing.get("variants") or TIMING_DEFAULTS.variants))
    sweep = ns.sweep
    if sweep == "example":
        sweep = timing.get("sweep")
    sweep_args = ns.sweep_args or (timing.get("sweep_args") if sweep else None)
    return TimingRequest(
        trace=trace, variants=[v.strip() for v in variants], runs=ns.runs, warmup=ns.warmup,
        pipeline=ns.pipeline, pipeline_variant=ns.pipeline_variant, sweep=sweep,
        sweep_args=sweep_args, async_dispatch=ns.async_dispatch,
        baseline=ns.baseline or defaults.get("baseline"), per_device=ns.per_device)


def run(ns) -> int:
    from jaxviz.cli.common import report
    from jaxviz.model.errors import UserError
    from jaxviz.model.timing import TimingRun, validate

    size = ns.size  # checked by its type
    if ns.sweep == "example" and not ns.target.startswith("example:"):
        return usage_error("--sweep example needs an example target (example:NAME)")
    if ns.sweep_args is not None and ns.sweep is None:
        return usage_error("--sweep-args is the argument spec of a size sweep: give --sweep "
                           "too (e.g. --sweep n=256,512 --sweep-args \"f32[n,n]\")")
    out = Path(ns.out)
    problem = out_problem(out, ns.plots)
    if problem:
        return usage_error(problem)
    try:
        req = build_timing_request(ns)
    except UserError as exc:
        return report(exc.info, ns)
    problem = plot_problem(ns.plot, req)
    if problem:
        return usage_error(problem)
    problems = validate(req)
    if problems:
        for info in problems:
            report(info, ns)
        return EXIT_USAGE
    problem = None if plot_file(out) else check_writable(out)  # only for a request that runs
    if problem:
        return usage_error(problem)
    from jaxviz.cli.runner import EngineError, prestart, run_request

    prestart(ns.devices)
    run_ = TimingRun(request=req)
    progress = Progress(run_, debug=ns.debug)
    code = EXIT_OK
    try:
        result = run_request(req, ns.devices, ns.timeout, progress)
    except EngineError as exc:
        progress.clear()
        run_.error = exc.info
        result = None
        report(exc.info, ns)
        code = EXIT_FAILED
    progress.clear()
    if isinstance(result, TimingRun):
        run_ = result
        if run_.error is not None:
            code = report(run_.error, ns)
    for info in run_.errors:
        code = max(code, EXIT_USAGE if info.kind in USAGE_KINDS else EXIT_FAILED)
    kinds = plots_measured(run_, ns.plot)
    if plot_file(out):
        written = write_plot_file(run_, out, size, ns.theme, kinds, ns.debug, ns.font_scale)
        drawn = bool(written)
        out = out.parent
    else:
        written, out = write_outputs(run_, out, size, ns.theme, ns.plots, ns.debug, kinds,
                                     ns.font_scale)
        drawn = any(p.suffix == ".png" for p in written)
    if run_.header is not None and (run_.calls or run_.first_calls):
        print(summary(run_))
    if written:
        files = "1 file" if len(written) == 1 else f"{len(written)} files"
        print(f"\nwrote {files} into {out}: "
              f"{', '.join(p.name for p in written)}")
    if not written or (ns.plots and not drawn):
        code = max(code, EXIT_FAILED)
    return code


def write_outputs(run, out: Path, size: tuple[int, int], theme: str, plots: bool,
                  debug: bool, kinds: list[str] | None = None,
                  font_scale: float = 1.0) -> tuple[list[Path], Path]:
    """Write data (and the plots, or ``kinds``); on a write failure fall back to a
    temporary directory."""
    from jaxviz.views.exports import write_data

    if not run.calls and not run.first_calls:
        return [], out
    try:
        written = write_data(run, out)
    except OSError as exc:
        fallback = Path(tempfile.mkdtemp(prefix="jaxviz-time-"))
        print(f"jaxviz: error: writing into {out} failed ({exc.strerror or exc}); "
              f"writing into {fallback} instead", file=sys.stderr)
        out = fallback
        written = write_data(run, out)
    if plots:
        try:
            from jaxviz.ui.exporters import write_plots

            written += write_plots(run, out, size, theme, kinds, font_scale)
        except Exception as exc:  # noqa: BLE001 - Qt missing, no display, a write failure...
            _plots_failed(exc, debug, "(the data files are written)")
    return written, out


def write_plot_file(run, out: Path, size: tuple[int, int], theme: str,
                    kinds: list[str] | None, debug: bool, font_scale: float = 1.0) -> list[Path]:
    """Write the plots alone into the file ``out`` names (a PDF page per plot, or an image
    per plot); what could not be written is said on stderr."""
    if not run.calls or kinds == []:
        return []
    try:
        from jaxviz.ui.exporters import write_plot_file as write

        return write(run, out, size, theme, kinds, font_scale)
    except Exception as exc:  # noqa: BLE001 - Qt missing, no display, a write failure...
        _plots_failed(exc, debug, "")
        return []


def plots_measured(run, plot: str | None) -> list[str] | None:
    """The plots to draw: None for every plot the run has data for; with ``--plot``, that
    plot, or none (said on stderr) when the run has no calls for it (it failed half-way)."""
    from jaxviz.views.timing.stats import available_plots

    if plot is None:
        return None
    if plot in available_plots(run):
        return [plot]
    print(f"jaxviz: error: no {plot} plot: the run has no calls for it", file=sys.stderr)
    return []


def _plots_failed(exc: Exception, debug: bool, note: str) -> None:
    reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
    print(f"jaxviz: error: the plots could not be written: {type(exc).__name__}: {reason} "
          f"{note}".rstrip(), file=sys.stderr)
    if debug:
        import traceback

        traceback.print_exc()


def summary(run) -> str:
    """A table of the steady-state medians and first calls, and the captions."""
    from jaxviz.model.timing import variant_label
    from jaxviz.views.timing.stats import CAPTIONS, available_plots, fmt_ms, header_line, steady

    lines = [header_line(run), ""]
    lines.append(f"{'variant':<26} {'returned':>10} {'ready':>10}   first call")
    for v in run.variant_names():
        s = steady(run, v)
        first = run.first_call(v)
        f_text = ""
        if first is not None:
            prep = sum(ns for name, ns in first.phases() if name != "execute")
            f_text = (f"{fmt_ms(first.total_ns / 1e6)}" + (
                f" (trace+lower+compile {fmt_ms(prep / 1e6)})" if first.compile_ns else ""))
        if s is None:
            lines.append(f"{variant_label(v):<26} {'-':>10} {'-':>10}   {f_text}")
        else:
            lines.append(f"{variant_label(v):<26} {fmt_ms(s.dispatch_median):>10} "
                         f"{fmt_ms(s.complete_median):>10}   {f_text}")
    lines.append("")
    for kind in available_plots(run):
        lines.append(f"{kind}: {CAPTIONS[kind](run)}")
    return "\n".join(lines)
