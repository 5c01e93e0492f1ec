"""``jaxviz.view``: one variant of a function, traced in the engine, shown inline."""

from __future__ import annotations

import functools
import inspect
from pathlib import Path
from typing import Any

from jaxviz.model import TraceResult, VariantResult
from jaxviz.notebook import render
from jaxviz.notebook.requests import build_request, check_variant
from jaxviz.notebook.shipping import Shipment, ship

#: Seconds a request may run in the engine (tracing and compiling the variant).
DEFAULT_TIMEOUT = 120.0
#: Devices the engine simulates unless asked otherwise (as the window and the CLI).
DEFAULT_DEVICES = 8


class JaxvizError(RuntimeError):
    """The function, its arguments or its variant failed; the message says what and where."""


def check_numbers(devices: int, timeout: float) -> None:
    """Refuse a device count or timeout outside what the CLI allows (no engine starts)."""
    from jaxviz.model.limits import DEVICES, TIMEOUT

    for name, value, limit in (("devices", devices, DEVICES), ("timeout", timeout, TIMEOUT)):
        if isinstance(value, bool) or not isinstance(value, int | float) \
                or not limit.contains(value):
            raise ValueError(f"{name}={value!r}: give {limit.describe()}")


def run_trace(shipment: Shipment, variants: list[str], options: dict[str, Any],
              want: list[str], devices: int, timeout: float) -> TraceResult:
    """Trace ``variants`` of the shipped call in the engine; raise :class:`JaxvizError`
    with jaxviz's message (and the user's line) when it fails."""
    from jaxviz.cli.runner import run_trace as engine_trace
    from jaxviz.model.errors import format_error

    check_numbers(devices, timeout)
    request = build_request(shipment, variants, options, want)
    result = engine_trace(request, devices, timeout)
    if result.error is not None:
        raise JaxvizError(format_error(result.error, False) + _printed(result))
    for vr in result.variants:
        if vr.error is not None:
            raise JaxvizError(f"{vr.variant}: {format_error(vr.error, False)}"
                              + _printed(result))
    return result


def _printed(result: TraceResult) -> str:
    printed = (result.stdout + result.stderr).strip()
    return f"\n(your code printed:)\n{printed}" if printed else ""


class View:
    """One variant of ``f(*args)`` as jaxviz shows it, rendered inline in Jupyter.

    Made by :func:`jaxviz.view`. In a notebook the cell's output shows the
    source beside the variant's jaxpr (each equation on the colour of its
    source line), the notes, and the device view: the animation and every
    phase's frame with its title and caption.

    Attributes:
        result: the engine's :class:`~jaxviz.model.TraceResult` record.
        variant: the traced variant's record (jaxpr text, equations, storyboard).
    """

    def __init__(self, f: Any, args: tuple[Any, ...], variant: str, devices: int,
                 timeout: float, options: dict[str, Any], theme: str = "light",
                 size: tuple[int, int] = (960, 540)):
        self.function = f
        self.args = args
        self.devices = devices
        self.timeout = timeout
        self.options = options
        self.theme = theme
        self.size = size
        self.shipment = ship(f, args)
        self.result = run_trace(self.shipment, [check_variant(variant)], options,
                                ["jaxpr", "story"], devices, timeout)
        self.variant: VariantResult = self.result.variants[0]

    # -- what it shows -------------------------------------------------------
    @property
    def jaxpr(self) -> str:
        """The variant's jaxpr text, as JAX prints it."""
        return self.variant.jaxpr_text

    @property
    def notes(self) -> list[str]:
        """What the jaxpr and the values do not say (computed by the engine)."""
        return [note.text for note in self.variant.notes]

    @functools.cached_property
    def _renderer(self) -> Any:
        try:
            return render.renderer(self.result, self.variant.variant, self.size, self.theme)
        except ValueError as exc:
            return str(exc)

    @property
    def phases(self) -> list[Any]:
        """The device view's phases (``kind``, ``title``, ``caption``, ``devices``), in order;
        empty when the variant has no device view."""
        r = self._renderer
        return [] if isinstance(r, str) else list(r.scene.phases)

    def frame(self, phase: int) -> bytes:
        """Phase ``phase`` (0-based) as PNG bytes."""
        r = self._device_renderer()
        if not 0 <= phase < r.phase_count:
            raise IndexError(f"phase {phase}: the {self.variant.variant} animation has phases "
                             f"0 to {r.phase_count - 1}")
        return render.png_bytes(r.image(phase, 1.0))

    def _device_renderer(self) -> Any:
        r = self._renderer
        if isinstance(r, str):
            raise JaxvizError(r)
        return r

    def _source_range(self) -> tuple[int, int]:
        lines, start = inspect.getsourcelines(inspect.unwrap(self.function))
        return start, start + len(lines) - 1

    # -- Jupyter -------------------------------------------------------------
    def _repr_html_(self) -> str:
        first, last = self._source_range()
        who = f"{self.result.function} — {self.variant.variant} on {len(self.result.devices)} " \
              f"{'simulated ' if self.result.simulated else ''}devices"
        parts = [f"<div class='jaxviz-view'><h4 style='margin:4px 0'>{render.esc(who)}</h4>"]
        if self.variant.call:
            parts.append(f"<code>{render.esc(self.variant.call)}</code>")
        if self.notes:
            parts.append("<ul>" + "".join(f"<li>{render.esc(n)}</li>" for n in self.notes)
                         + "</ul>")
        parts.append(render.jaxpr_html(self.result, self.variant, self.shipment.source,
                                       self.shipment.filename, first, last))
        r = self._renderer
        if isinstance(r, str):
            parts.append(f"<p><i>{render.esc(r)}</i></p>")
        else:
            parts.append(render.phases_html(r, r.scene.phases, render.animation_gif(r)))
        parts.append("</div>")
        return "".join(parts)

    def _repr_png_(self) -> bytes | None:
        r = self._renderer
        return None if isinstance(r, str) else render.contact_sheet(r)

    def __repr__(self) -> str:
        return (f"<jaxviz.View {self.result.function} {self.variant.variant}: "
                f"{len(self.phases)} phases>\n{self.jaxpr}")

    # -- more ----------------------------------------------------------------
    def diff(self, a: str, b: str) -> Diff:
        """What transformation ``b`` changed against ``a`` in this function's jaxpr
        (``view.diff("plain", "vmap")``), as ``jaxviz diff`` shows it."""
        result = run_trace(self.shipment, [check_variant(a), check_variant(b)], self.options,
                           ["jaxpr"], self.devices, self.timeout)
        return Diff(result, a, b)

    def save(self, path: str | Path, phase: int | None = None, frames_per_phase: int = 6,
             fps: float = 30.0) -> list[Path]:
        """Write the view as ``jaxviz animate`` / ``jaxviz jaxpr`` would; returns the files.

        The suffix chooses: ``.mp4``, ``.webm``, ``.gif``, ``.apng``, ``.pdf`` (the
        animation; with ``phase``, ``.pdf``/``.png``/``.svg`` is that phase alone),
        ``.png``/``.svg`` (one image per phase: ``NAME-01.png`` ...), ``.json`` (the
        storyboard, with the phases), ``.txt`` (the jaxpr text).
        """
        from jaxviz.ui.devices.formats import for_suffix
        from jaxviz.views.exports import exporters

        out = Path(path)
        suffix = out.suffix.lower()
        if suffix == ".txt":
            out.write_text(self.jaxpr + "\n", encoding="utf-8")
            return [out]
        if suffix == ".json":
            import json

            from jaxviz.model import to_plain

            story = self.variant.storyboard
            if story is None:
                raise JaxvizError(f"{self.variant.variant} has no storyboard")
            story.phases = [p.to_story() for p in self.phases]
            out.write_text(json.dumps(to_plain(story), indent=1) + "\n", encoding="utf-8")
            return [out]
        animation, frame = for_suffix("animation", suffix), for_suffix("frame", suffix)
        r = self._device_renderer()
        if phase is not None:
            if frame is None:
                raise ValueError(f"phase= writes one image: use a .png, .svg or .pdf path, not "
                                 f"{out.name}")
            if not 0 <= phase < r.phase_count:
                raise IndexError(f"phase {phase}: phases are 0 to {r.phase_count - 1}")
            return [Path(frame.write(r, out, phase=phase, t=1.0))]
        if animation is not None:
            if suffix == ".mp4":
                from jaxviz.ui.devices.video import size_problem

                problem = size_problem(suffix, r.width, r.height)
                if problem:
                    raise ValueError(problem)
            animation.write(r, out, frames_per_phase=frames_per_phase, fps=fps)
            return [out]
        if frame is not None:
            return [Path(frame.write(r, out.with_name(f"{out.stem}-{i + 1:02d}{out.suffix}"),
                                     phase=i, t=1.0)) for i in range(r.phase_count)]
        known = sorted({e.extension for s in ("animation", "frame") for e in exporters(s)}
                       | {".json", ".txt"})
        raise ValueError(f"{out.name}: jaxviz writes {', '.join(known)}")


class Diff:
    """Two variants' jaxprs aligned equation by equation (``View.diff``)."""

    def __init__(self, result: TraceResult, a: str, b: str):
        from jaxviz.views.compare.jaxpr_diff import diff_variants

        self.result = result
        self.a, self.b = a, b
        self.diff = diff_variants(result.variant(a), result.variant(b))

    def text(self, width: int = 120) -> str:
        """The diff as ``jaxviz diff`` prints it (side by side from 100 columns)."""
        from jaxviz.cli.diff_text import render as render_diff

        return render_diff(self.diff, title=f"{self.result.function}: {self.a} vs {self.b}",
                           width=width, layout="auto", color=False)

    def __repr__(self) -> str:
        return self.text()

    def _repr_html_(self) -> str:
        return f"<pre style=\"{render._STYLE}\">{render.esc(self.text())}</pre>"
