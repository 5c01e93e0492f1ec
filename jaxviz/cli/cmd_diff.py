"""``jaxviz diff``: what one variant changed against another, equation by equation."""

from __future__ import annotations

import json
import os
import shutil
import sys

from jaxviz.cli.options import (
    EXIT_FAILED,
    EXIT_USAGE,
    add_target_options,
    build_request,
    number,
    one_line,
    usage_error,
)
from jaxviz.model import VARIANTS
from jaxviz.model.limits import WIDTH


def add_parser(sub) -> None:
    p = sub.add_parser(
        "diff", help="compare two variants' jaxprs, equation by equation",
        description="Trace two variants of a function and print their jaxprs aligned: "
                    "equations are paired by source line and primitive (not by variable "
                    "names), and each pair says what changed (a gained batch axis, a "
                    "per-device shape, a parameter) or that only one side has it.")
    add_target_options(p, variant=False)
    p.add_argument("--variants", type=one_line, metavar="A,B",
                   help="the two variants to compare, e.g. plain,vmap or vmap,pmap "
                        f"(from: {', '.join(VARIANTS)}; default: plain and vmap, or the "
                        "example's first two)")
    p.add_argument("--format", choices=("text", "json"), default="text",
                   help="text: the aligned jaxprs (default); json: the rows, their kinds "
                        "and changes")
    p.add_argument("--layout", choices=("auto", "columns", "unified"), default="auto",
                   help="text layout: two columns side by side, or one column of -/+ lines "
                        "(default: columns when the terminal is wide enough)")
    p.add_argument("--width", type=number(WIDTH), metavar="N",
                   help=f"text width in characters (default: the terminal's; "
                        f"{WIDTH.low:g} to {WIDTH.high:g})")
    p.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                   help="colour the changes (default: when printing to a terminal and "
                        "NO_COLOR is not set)")


def _pick_variants(text: str | None, declared: list[str]) -> list[str] | str:
    """The two variants to compare, or a message saying what is wrong with ``text``."""
    if text is None:
        first = "plain" if "plain" in declared or not declared else declared[0]
        rest = [v for v in declared if v != first] or ["vmap"]
        return [first, "vmap" if "vmap" in rest else rest[0]]
    names = [v.strip() for v in text.split(",") if v.strip()]
    unknown = [v for v in names if v not in VARIANTS]
    if unknown:
        return (f"--variants: unknown variant {unknown[0]!r} "
                f"(choose two of: {', '.join(VARIANTS)})")
    if len(names) != 2:
        return (f"--variants takes two variants to compare, e.g. plain,vmap "
                f"(got {len(names)}: {text!r})")
    if names[0] == names[1]:
        return f"--variants: compare two different variants (got {names[0]} twice)"
    return names


def run(ns) -> int:
    from jaxviz.cli.common import USAGE_KINDS, report
    from jaxviz.cli.runner import run_trace
    from jaxviz.model.errors import UserError, format_error
    from jaxviz.model.sources import resolve_target

    try:
        _, defaults = resolve_target(ns.target)
    except UserError as exc:
        return report(exc.info, ns)
    declared = list(defaults.get("variants") or [])
    chosen = _pick_variants(ns.variants, declared)
    if isinstance(chosen, str):
        return usage_error(chosen)
    try:
        req, _ = build_request(ns, ["jaxpr"], variants=chosen)
    except UserError as exc:
        return report(exc.info, ns)
    result = run_trace(req, ns.devices, ns.timeout)
    sys.stderr.write(result.stdout + result.stderr)
    if result.error is not None:
        return report(result.error, ns)
    left, right = (result.variant(name) for name in chosen)
    for failed in (left, right):
        if failed.error is not None:
            hint = f" (this example shows: {', '.join(declared)})" if declared else ""
            print(f"jaxviz: error: cannot compare {chosen[0]} with {chosen[1]}: the "
                  f"{failed.variant} variant did not trace{hint}\n"
                  f"{format_error(failed.error, ns.debug)}", file=sys.stderr)
            # The README's rule, as `jaxviz jaxpr` applies it: 2 for what was given, 1
            # when the function ran and failed.
            return EXIT_USAGE if failed.error.kind in USAGE_KINDS else EXIT_FAILED

    from jaxviz.model import to_plain
    from jaxviz.views.compare.jaxpr_diff import diff_variants

    diff = diff_variants(left, right)
    if ns.format == "json":
        print(json.dumps(to_plain(diff), indent=1))
        return 0
    from jaxviz.cli.diff_text import render, wants_color

    width = ns.width or shutil.get_terminal_size((80, 24)).columns
    color = wants_color(ns.color, sys.stdout.isatty(), os.environ)
    print(render(diff, title=f"{ns.target} ({result.function})", width=width,
                 layout=ns.layout, color=color))
    return 0
