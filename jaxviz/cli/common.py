"""Running a trace from the command line and reporting its errors."""

from __future__ import annotations

import sys

from jaxviz.cli.options import EXIT_FAILED, EXIT_USAGE, build_request
from jaxviz.model import ErrorInfo, TraceResult, VariantResult

#: Error kinds that come from what was given (exit 2, the README's rule): an option or
#: a field that does not parse or fit (batch, mesh, a collective's unbound axis, a
#: program too large to step within the asked-for record limit), a file that cannot be
#: read or loaded (syntax, an exception at its top level), an unknown name. Everything
#: else (the function raised while JAX traced or ran it, a timeout, a crash, a forged
#: reply) exits 1.
USAGE_KINDS = {"syntax", "spec", "option", "lookup", "load", "batch", "mesh", "collective",
               "size"}


def report(info: ErrorInfo, ns) -> int:
    """Print the error (a setting's error from the engine named as the user gave it:
    ``--static: ...`` or ``own.py: JAXVIZ 'static': ...``); return the exit code."""
    from jaxviz.model.errors import format_error

    name = getattr(ns, "setting_names", {}).get(info.field or "")
    text = format_error(info, ns.debug)
    if name and not text.startswith(name):
        text = f"{name}: {text}"
    print(f"jaxviz: error: {text}", file=sys.stderr)
    return EXIT_USAGE if info.kind in USAGE_KINDS else EXIT_FAILED


def trace_one(ns, want: list[str]) -> tuple[TraceResult | None, VariantResult | None, int]:
    """Trace the target's chosen variant; on failure report it and return the exit code."""
    from jaxviz.cli.runner import run_trace
    from jaxviz.model.errors import UserError

    try:
        req, _ = build_request(ns, want)
    except UserError as exc:
        return None, None, report(exc.info, ns)
    result = run_trace(req, ns.devices, ns.timeout)
    # What the user's code printed goes to stderr (stdout is for the result), failure or not.
    sys.stderr.write(result.stdout + result.stderr)
    if result.error is not None:
        return result, None, report(result.error, ns)
    variant = result.variants[0]
    if variant.error is not None:
        return result, variant, report(variant.error, ns)
    return result, variant, 0
