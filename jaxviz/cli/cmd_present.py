"""``jaxviz present``: a lecture full screen with a clicker, or its deck as PDF/PNG handouts.

``jaxviz present LECTURE.toml`` runs a lecture file (:mod:`jaxviz.views.present.lecture`);
``jaxviz present TARGET`` (``example:NAME``, ``file.py:function``) builds the
steps of one function from the variants it declares. ``--export deck.pdf``
writes one page per slide and ``--export folder/`` one PNG per slide, headless,
with the drawing the room sees (:mod:`jaxviz.ui.present.paint`).
"""

from __future__ import annotations

import sys
from pathlib import Path

from jaxviz.cli.options import (
    EXIT_FAILED,
    add_device_options,
    image_size,
    number,
    output_path,
    usage_error,
)
from jaxviz.model.limits import LINE
from jaxviz.model.sizes import ANIMATION_SIZES

#: Variants a file without a JAXVIZ dict is presented with.
FILE_VARIANTS = ["plain", "vmap", "pmap"]


def add_parser(sub) -> None:
    p = sub.add_parser(
        "present", help="run a lecture full screen (clicker keys), or export its deck",
        description="Present a lecture file (LECTURE.toml) or one function (example:NAME, "
                    "file.py:function) full screen, one large view per step, driven by a "
                    "presenter's clicker: PageDown/PageUp, Right/Left, Space, Home/End, "
                    "B or . black screen, W white screen, a number then Enter to jump, "
                    "Z the whole jaxpr, M measure timing live, E edit the function, Esc "
                    "leave. With --export, write the deck without a display: FILE.pdf "
                    "(one page per slide) or a FOLDER/ (one PNG per slide).")
    p.add_argument("target", metavar="LECTURE_OR_TARGET",
                   help="a lecture .toml file, example:NAME or path/to/file.py:function")
    p.add_argument("--export", type=output_path, metavar="FILE.pdf|FOLDER/",
                   help="write the deck instead of presenting: a .pdf (one page per slide) "
                        "or a folder (one PNG per slide, made if missing)")
    p.add_argument("--size", default="1920x1080", metavar="WxH",
                   type=image_size(ANIMATION_SIZES),
                   help=f"slide size in pixels for --export (default 1920x1080; "
                        f"{ANIMATION_SIZES})")
    p.add_argument("--theme", choices=("light", "dark"), default="light",
                   help="colour theme (default light)")
    p.add_argument("--measure", action="store_true",
                   help="measure timing steps now instead of replaying their recordings")
    p.add_argument("--no-timing", action="store_true",
                   help="for a TARGET: leave the timing steps out (they are measured when "
                        "the deck is made)")
    p.add_argument("--start", type=number(LINE), default=1, metavar="N",
                   help="the slide to start on (1 = the first)")
    p.add_argument("--window", action="store_true",
                   help="present in a window instead of full screen")
    p.add_argument("--trust", action="store_true",
                   help="run the code a lecture file names beyond the gallery's examples "
                        "(its target files, its args expressions); without it such a "
                        "lecture lists that code and stops")
    add_device_options(p)
    p.set_defaults(devices=None)  # None: the lecture's own (8 unless it says)


def lecture_for(text: str, devices: int | None, timing: bool = True):
    """The lecture of a ``.toml`` file, or one built for a target.

    Raises:
        jaxviz.views.present.lecture.LectureError: a lecture file that is wrong.
        jaxviz.model.errors.UserError: a target that cannot be resolved.
    """
    from jaxviz.model.gallery import declared_in
    from jaxviz.model.sources import resolve_target
    from jaxviz.views.present.lecture import function_lecture, load_lecture

    if text.endswith(".toml"):
        return load_lecture(text, devices)
    target, defaults = resolve_target(text)
    declared = defaults.get("variants") or (declared_in(target.source) or {}).get("variants")
    variants = list(declared or FILE_VARIANTS)
    title = text if not text.startswith("example:") else text[len("example:"):]
    return function_lecture(text, f"{target.function}: {title}", variants, devices or 8,
                            timing=timing)


def run(ns) -> int:
    from jaxviz.model.errors import UserError
    from jaxviz.views.present.lecture import LectureError

    try:
        lecture = lecture_for(ns.target, ns.devices, timing=not ns.no_timing)
    except LectureError as exc:
        return usage_error(str(exc))
    except UserError as exc:
        from jaxviz.cli.common import report

        return report(exc.info, ns)
    refused = _untrusted(lecture, ns.trust)
    if refused:
        return refused
    if ns.export is None:
        from jaxviz.ui.present.app import main as present

        return present(lecture, theme=ns.theme, start=ns.start - 1, measure=ns.measure,
                       full_screen=not ns.window, timeout=ns.timeout)
    return export(lecture, ns)


def _untrusted(lecture, trusted: bool) -> int:
    """The trust rule for lecture files: list the code a lecture runs beyond the gallery's
    examples before any of it runs; run it only with ``--trust``. Returns an exit code
    (0: go on). A target named on the command line is the user's say, as everywhere."""
    from jaxviz.views.present.lecture import what_runs

    if not lecture.path:
        return 0
    runs = what_runs(lecture)
    if not runs:
        return 0
    listing = "\n".join(f"  {line}" for line in runs)
    if trusted:
        print(f"note: {lecture.path} runs code of its own (--trust):\n{listing}",
              file=sys.stderr)
        return 0
    return usage_error(f"{lecture.path} runs code that is not jaxviz's: presenting it runs "
                       f"what it names, as your own code runs:\n{listing}\nRead it; run "
                       f"`jaxviz present {lecture.path} --trust` to present it")


def export(lecture, ns) -> int:
    """Write the deck (no display needed)."""
    out = Path(ns.export)
    pdf = out.suffix.lower() == ".pdf"
    if not pdf and out.suffix:
        return usage_error(f"--export {ns.export}: give a .pdf file or a folder for PNGs")
    if pdf and not out.parent.is_dir():
        return usage_error(f"--export {ns.export}: the folder {out.parent} does not exist")
    from jaxviz.cli.runner import prestart, run_request

    prestart(lecture.devices)
    from jaxviz.ui.present.loading import multiprocess_runs
    from jaxviz.views.present.deck import build_slides, built, leave_out, load_functions

    def say(text: str) -> None:
        print(f"  {text} ...", file=sys.stderr)

    functions = load_functions(
        lecture, lambda record: run_request(record, lecture.devices, ns.timeout),
        measure=ns.measure, progress=say)
    multiprocess_runs(lecture, functions, say)  # the multi-host slides: a real run
    slides, left_out = leave_out(build_slides(lecture, functions))
    for why in left_out:  # a deck is whole: a step that failed or shows nothing is left out
        print(f"note: left out {why}", file=sys.stderr)
    if left_out and not built(slides):  # (a lecture of title slides only is whole)
        print(f"jaxviz: error: nothing to present: every step of {lecture.title!r} failed "
              f"or had nothing to show (see the notes above)", file=sys.stderr)
        return EXIT_FAILED
    from jaxviz.ui.theme.qt_guard import ensure_app

    ensure_app()  # widgets: the timing plots are pyqtgraph items
    from jaxviz.ui.present.export import write_pdf, write_pngs

    try:
        if pdf:
            write_pdf(slides, out, ns.size, ns.theme, lecture.title)
            print(f"wrote {out}: {len(slides)} pages, one per slide, "
                  f"{ns.size[0]}x{ns.size[1]}")
        else:
            paths = write_pngs(slides, out, ns.size, ns.theme, lecture.title)
            print(f"wrote {len(paths)} slides into {out}: {paths[0].name} ... {paths[-1].name}")
    except OSError as exc:
        print(f"jaxviz: error: could not write {out}: {exc}", file=sys.stderr)
        return EXIT_FAILED
    return 0
