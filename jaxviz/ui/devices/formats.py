"""The device view's export formats, registered once: frames as PNG, SVG and PDF; the
animation as MP4, WebM (:mod:`~jaxviz.ui.devices.video`), GIF, APNG and PDF pages.

Importing :mod:`jaxviz.ui.devices` registers them in the one registry
(:mod:`jaxviz.views.exports`), beside the timing plots' formats
(:mod:`jaxviz.ui.exporters.formats`): the CLI (``jaxviz animate``), the notebook and
the device view's Export menu read them there.
"""

from __future__ import annotations

from pathlib import Path

from jaxviz.ui.devices.export import Progress, Renderer, save_apng, save_gif, save_pdf
from jaxviz.ui.devices.video import save_video
from jaxviz.views.exports import Exporter, exporters, find, for_suffix, register

#: The registry's look-ups, for callers that need the device view's formats registered.
__all__ = ["exporters", "find", "for_suffix"]


def _frame(renderer: Renderer, path: str | Path, phase: int, t: float = 1.0) -> Path:
    return renderer.save(phase, t, path)


register(Exporter("frame", "png", ".png", "Frame as PNG image", "PNG images",
                  "{kind}.png", _frame))
register(Exporter("frame", "svg", ".svg", "Frame as SVG (vector, for slides)", "SVG images",
                  "{kind}.svg", _frame))
register(Exporter("frame", "pdf", ".pdf", "Frame as PDF (vector, for LaTeX/Beamer)",
                  "PDF documents", "{kind}.pdf", _frame))



# Every animation writer takes (renderer, path, frames_per_phase=, fps=, progress=) and
# returns how many frames (pages) it wrote; each uses the options that apply to it.

def _mp4_webm(renderer: Renderer, path: str | Path, frames_per_phase: int = 6,
              fps: float = 30, progress: Progress | None = None) -> int:
    return save_video(renderer, path, fps=fps, progress=progress)


def _gif(renderer: Renderer, path: str | Path, frames_per_phase: int = 6,
         fps: float = 30, progress: Progress | None = None) -> int:
    return save_gif(renderer, path, frames_per_phase, progress=progress)


def _apng(renderer: Renderer, path: str | Path, frames_per_phase: int = 6,
          fps: float = 30, progress: Progress | None = None) -> int:
    return save_apng(renderer, path, frames_per_phase, progress=progress)


def _pdf_pages(renderer: Renderer, path: str | Path, frames_per_phase: int = 6,
               fps: float = 30, progress: Progress | None = None) -> int:
    return save_pdf(renderer, path)  # one page per phase, finished


register(Exporter("animation", "mp4", ".mp4",
                  "Animation as MP4 video (H.264: PowerPoint, Keynote, Google Slides)",
                  "MP4 videos", "{kind}.mp4", _mp4_webm))
register(Exporter("animation", "webm", ".webm", "Animation as WebM video (VP9: browsers)",
                  "WebM videos", "{kind}.webm", _mp4_webm))
register(Exporter("animation", "gif", ".gif", "Animation as GIF (256 colours)",
                  "GIF animations", "{kind}.gif", _gif))
register(Exporter("animation", "apng", ".apng", "Animation as animated PNG (lossless)",
                  "Animated PNG images", "{kind}.apng", _apng))
register(Exporter("animation", "pdf", ".pdf",
                  "Every phase as a PDF page (vector, for LaTeX/Beamer)", "PDF documents",
                  "{kind}.pdf", _pdf_pages))
