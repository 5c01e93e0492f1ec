"""Runs many ``jaxviz`` command lines in one process, for the flag sweep.

``python -m tests.helpers.sweep_runner CASES.json RESULTS.json`` runs every case
(a list of arguments after ``jaxviz``) with :func:`jaxviz.cli.main`, as the
``jaxviz`` command would, capturing what it writes to stdout and stderr, its
exit code (a ``SystemExit`` or the returned code) and any exception that
escaped it (which would be a traceback for a user). Cases share the one engine
the command line keeps per process, so the few that need JAX do not each
start one. A case that runs past its limit stops the run: the results say which.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
import threading
import traceback

#: Seconds one case may take (a real timing run with one call included).
CASE_SECONDS = 120.0


def run_case(argv: list[str]) -> dict:
    """One command line: its exit code, stdout, stderr (with any escaped traceback)."""
    from jaxviz.cli import main

    out, err = io.StringIO(), io.StringIO()
    code: int | str | None
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        except BaseException:  # noqa: BLE001 - exactly what the sweep looks for
            traceback.print_exc()
            code = "raised"
    return {"argv": argv, "code": code, "stdout": out.getvalue(), "stderr": err.getvalue()}


def main(cases_path: str, results_path: str) -> bool:
    """Run the cases, write the results; False when a case hung (the run stopped there)."""
    with open(cases_path, encoding="utf-8") as f:
        cases = json.load(f)
    results: list[dict] = []
    finished = True
    if any(argv and argv[0] == "present" for argv in cases):
        # `present --export` paints with Qt: its application belongs to the main thread
        # (made there, offscreen without a display), the cases run in worker threads.
        from jaxviz.ui.theme.qt_guard import ensure_app

        ensure_app()
    for argv in cases:
        box: list[dict] = []
        worker = threading.Thread(target=lambda a=argv, b=box: b.append(run_case(a)),
                                  daemon=True)
        worker.start()
        worker.join(CASE_SECONDS)
        if not box:
            results.append({"argv": argv, "code": "hung", "stdout": "", "stderr": ""})
            finished = False
            break
        results.append(box[0])
    with open(results_path, "w", encoding="utf-8") as f:
        json.dump(results, f)
    return finished


if __name__ == "__main__":
    if not main(sys.argv[1], sys.argv[2]):
        os._exit(1)  # the hung case's thread would keep the process alive (its engine
        # notices its parent is gone and ends with everything it started)
