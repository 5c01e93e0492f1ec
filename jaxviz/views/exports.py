"""The export formats, by subject and name: one registry for the CLI and the Export menus.

An :class:`Exporter` says what it exports (its :data:`subject <SUBJECTS>`),
its name, file extension, description, default file name, and the function
that writes it. ``jaxviz time`` and ``jaxviz animate`` pick formats here
(by name or by the suffix of ``--out``), and the views build their Export
menus from :func:`exporters`, so a format added with :func:`register`
appears everywhere at once.

The registry is plain data (no Qt). The timing run's data formats (CSV,
JSON, Chrome trace) register here; the pictures (plots, device-view frames,
animations) register in :mod:`jaxviz.ui.exporters`, where the Qt renderers
are -- import it before asking for those subjects.

Example:
    >>> [e.name for e in exporters("run")]                         # doctest: +SKIP
    ['csv', 'json', 'trace']
    >>> find("plot", "svg").write(run, "timeline.svg", kind="timeline")  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jaxviz.views.timing import export as timing_export

#: What can be exported, and the call every writer of that subject accepts.
SUBJECTS: dict[str, str] = {
    "plot": "one timing plot of a run: write(run, path, kind=, size=, theme=, figure=None, "
            "**figure options) -> path (figure: the plot already laid out, to write it "
            "in several formats)",
    "run": "a timing run's data: write(run, path) -> path",
    "frame": "one frame of the device view: write(renderer, path, phase=, t=) -> path",
    "projection": "the projected timeline (a roofline, not a measurement): write(timeline, "
                  "path[, size=, theme=]) -> path",
    "what-if": "the what-if plot: write((WhatIfResult, Chip), path[, size=, theme=]) -> path",
    "animation": "every phase of the device view: write(renderer, path, frames_per_phase=, "
                 "fps=, progress=None) -> number of frames (or pages); frames_per_phase "
                 "paces GIF/APNG, fps the videos; progress(done, total) is called after "
                 "each frame, and raising in it stops the export (no partial file stays)",
}


@dataclass(frozen=True)
class Exporter:
    """One export format of one subject.

    Attributes:
        subject: a key of :data:`SUBJECTS`.
        name: the format's name within its subject (``png``, ``csv``, ``gif``).
        extension: the file suffix, with its dot.
        description: what the file holds, for menus ("Plot as PNG image").
        file_kind: the file dialog's name for such files ("PNG images").
        default_name: the suggested file name (``{kind}`` is the plot's kind).
        write: writes it; its call is the subject's (see :data:`SUBJECTS`).
    """

    subject: str
    name: str
    extension: str
    description: str
    file_kind: str
    default_name: str
    write: Callable[..., Any]

    @property
    def file_filter(self) -> str:
        """The file dialog filter, e.g. ``PNG images (*.png)``."""
        return f"{self.file_kind} (*{self.extension})"

    def with_extension(self, path: str | Path) -> Path:
        """``path`` ending in this format's extension: added when a file dialog returns a
        name typed without it (``plot`` becomes ``plot.pdf``; ``plot.PDF`` stays)."""
        path = Path(path)
        if path.suffix.lower() == self.extension:
            return path
        return path.with_name(path.name + self.extension)


_EXPORTERS: dict[tuple[str, str], Exporter] = {}


def register(exporter: Exporter) -> Exporter:
    """Add (or replace) a format; menus and the CLI offer it from then on.

    Raises:
        ValueError: an unknown subject.
    """
    if exporter.subject not in SUBJECTS:
        raise ValueError(f"unknown export subject {exporter.subject!r}; "
                         f"choose from {', '.join(SUBJECTS)}")
    _EXPORTERS[(exporter.subject, exporter.name)] = exporter
    return exporter


def exporters(subject: str) -> list[Exporter]:
    """The formats of ``subject``, in the order they were registered."""
    return [e for (s, _), e in _EXPORTERS.items() if s == subject]


def find(subject: str, name: str) -> Exporter:
    """The ``name`` format of ``subject``.

    Raises:
        ValueError: naming the formats that exist.
    """
    found = _EXPORTERS.get((subject, name))
    if found is None:
        names = ", ".join(e.name for e in exporters(subject)) or "none"
        raise ValueError(f"unknown {subject} export {name!r}; choose from {names}")
    return found


def for_suffix(subject: str, suffix: str) -> Exporter | None:
    """The format of ``subject`` whose extension is ``suffix`` (any case); None if none is."""
    suffix = suffix.lower()
    return next((e for e in exporters(subject) if e.extension == suffix), None)


register(Exporter("run", "csv", ".csv", "Calls as CSV (one row per call)", "CSV files",
                  "timings.csv", timing_export.write_csv))
register(Exporter("run", "json", ".json", "Run as JSON (replays here, as recorded)",
                  "JSON files", "timings.json", timing_export.write_json))
register(Exporter("run", "trace", ".json", "Chrome trace for Perfetto (ui.perfetto.dev)",
                  "JSON files", "trace.json", timing_export.write_chrome_trace))


def write_data(run: Any, out_dir: str | Path) -> list[Path]:
    """Write ``run`` in every run format into ``out_dir``, each under its default name
    (``timings.csv``, ``timings.json``, ``trace.json``).

    Raises:
        OSError: a file could not be written (files written before stay).
    """
    out = Path(out_dir)
    return [e.write(run, out / e.default_name) for e in exporters("run")]
