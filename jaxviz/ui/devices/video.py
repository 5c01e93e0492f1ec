"""The device animation as video: MP4 (H.264) and WebM (VP9), encoded with PyAV.

Slide programs and browsers play video natively, smoothly and at any length,
where a GIF is limited to 256 colours and grows large. PyAV's wheels carry
their own FFmpeg with libx264 and libvpx, so nothing is installed beside the
Python package. Frames are rendered one at a time and encoded as they come
(memory stays flat however long the animation is).

* MP4: H.264 High profile, ``yuv420p`` (the chroma layout PowerPoint,
  Keynote, QuickTime and browsers decode), the index at the front of the file
  (``faststart``: it starts playing before it has fully loaded). yuv420p
  halves the colour resolution, so H.264 needs an even width and height.
* WebM: VP9 in constant quality, ``yuv420p``, for browsers.

Colours are converted with the BT.709 matrix and the streams say so
(colour space, primaries, transfer, limited range), as HD video is expected
to be; the palette's colours come back within a few levels.

Timing follows the live view: each phase moves for its duration (the view's
1x speed) at the chosen frame rate, then holds its final state for
``hold_s`` seconds so the room can read it.

Example:
    >>> save_video(renderer, "convolve.mp4", fps=30)                 # doctest: +SKIP
    780
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
from PySide6.QtGui import QImage

from jaxviz.ui.devices.export import Progress, Renderer

#: Seconds each phase's final state stays on screen.
HOLD_S = 1.5


@dataclass(frozen=True)
class VideoFormat:
    """How one container is encoded: FFmpeg's codec name, pixel format and options."""

    codec: str
    options: dict[str, str] = field(default_factory=dict)
    container_options: dict[str, str] = field(default_factory=dict)
    even_size: bool = False
    pix_fmt: str = "yuv420p"


FORMATS = {
    # crf 18: visually lossless for flat colours and text; "high" is what every
    # hardware decoder of the last decade plays.
    ".mp4": VideoFormat("libx264", {"crf": "18", "preset": "medium", "profile": "high",
                                    "tune": "animation"},
                        {"movflags": "+faststart"}, even_size=True),
    # Constant quality (b:v 0 with a crf), rows and tile columns in parallel. libvpx's
    # "realtime" speed encodes these flat-coloured frames ~10x faster than "good" at
    # about the same size and error (measured on convolve at 1280x720: mean error
    # under 1 of 255 levels).
    ".webm": VideoFormat("libvpx-vp9", {"crf": "30", "b:v": "0", "row-mt": "1",
                                        "tile-columns": "2", "deadline": "realtime",
                                        "cpu-used": "6"}),
}


def video_schedule(durations: list[float], fps: float, hold_s: float = HOLD_S
                   ) -> list[tuple[int, float]]:
    """``(phase, t)`` of every video frame: each phase's motion over its duration at
    ``fps``, then its final state for ``hold_s`` seconds."""
    frames: list[tuple[int, float]] = []
    for phase, duration in enumerate(durations):
        moving = max(round(duration * fps), 1)
        frames += [(phase, k / moving) for k in range(moving)]
        frames += [(phase, 1.0)] * max(round(hold_s * fps), 1)
    return frames


def size_problem(suffix: str, width: int, height: int) -> str | None:
    """Why a ``width`` x ``height`` video cannot be written as ``suffix``; None if it can."""
    fmt = FORMATS.get(suffix.lower())
    if fmt is not None and fmt.even_size and (width % 2 or height % 2):
        even = f"{width + width % 2}x{height + height % 2}"
        return (f"{suffix.lstrip('.').upper()} video (H.264, yuv420p) needs an even width "
                f"and height, not {width}x{height}: try {even}")
    return None


def even_size(suffix: str, width: int, height: int) -> tuple[int, int]:
    """``width`` x ``height``, made even (one pixel less) where ``suffix``'s video needs it."""
    fmt = FORMATS.get(suffix.lower())
    if fmt is not None and fmt.even_size:
        return width - width % 2, height - height % 2
    return width, height


def rgb_array(image: QImage) -> np.ndarray:
    """A QImage as an ``(height, width, 3)`` uint8 RGB array."""
    rgb = image.convertToFormat(QImage.Format.Format_RGB888)
    data = np.frombuffer(rgb.constBits(), np.uint8, rgb.sizeInBytes())
    rows = data.reshape(rgb.height(), rgb.bytesPerLine())
    # A copy: the view would outlive the converted image it points into.
    return rows[:, : rgb.width() * 3].reshape(rgb.height(), rgb.width(), 3).copy()


def save_video(renderer: Renderer, path: str | Path, fps: float = 30,
               hold_s: float = HOLD_S, progress: Progress | None = None) -> int:
    """Write the animation as MP4 or WebM (by the file's suffix); returns the frame count.

    Raises:
        ValueError: the scene has no phases, the suffix is not a video format, or the
            size does not suit the codec (see :func:`size_problem`).
        OSError: the file cannot be written.
    """
    import av

    path = Path(path)
    fmt = FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise ValueError(f"no video format for {path.suffix or 'a file without suffix'}: "
                         f"use {' or '.join(FORMATS)}")
    if renderer.phase_count == 0:
        raise ValueError(f"nothing to animate: {renderer.scene.error or 'no phases'}")
    problem = size_problem(path.suffix, renderer.width, renderer.height)
    if problem:
        raise ValueError(problem)
    if not fps > 0:
        raise ValueError(f"the frame rate must be positive, not {fps}")
    schedule = video_schedule(renderer.durations, fps, hold_s)
    try:
        container = av.open(str(path), mode="w", options=fmt.container_options)
    except av.FFmpegError as exc:
        raise OSError(f"could not write {path}: {exc}") from exc
    try:
        stream = container.add_stream(fmt.codec, rate=_rate(fps), options=fmt.options)
        assert isinstance(stream, av.VideoStream)
        stream.width, stream.height = renderer.width, renderer.height
        stream.pix_fmt = fmt.pix_fmt
        _tag_bt709(stream.codec_context)
        for done, (phase, t) in enumerate(schedule, start=1):
            rgb = av.VideoFrame.from_ndarray(rgb_array(renderer.image(phase, t)),
                                             format="rgb24")
            container.mux(stream.encode(_to_bt709(rgb, fmt.pix_fmt)))
            if progress is not None:
                progress(done, len(schedule))
        container.mux(stream.encode(None))  # flush the encoder
        container.close()
    except BaseException as exc:
        container.close()
        path.unlink(missing_ok=True)
        if isinstance(exc, av.FFmpegError):
            raise OSError(f"could not write {path}: {exc}") from exc
        raise
    return len(schedule)


def _tag_bt709(context: Any) -> None:
    """Say in the stream how its colours are coded: BT.709, limited range (what players
    assume for HD video anyway; said, so that none guesses BT.601 and shifts the hues)."""
    from av.video.reformatter import ColorPrimaries, ColorRange, Colorspace, ColorTrc

    context.colorspace = int(Colorspace.ITU709)
    context.color_primaries = int(ColorPrimaries.BT709)
    context.color_trc = int(ColorTrc.BT709)
    context.color_range = int(ColorRange.MPEG)


def _to_bt709(frame: Any, pix_fmt: str) -> Any:
    """An RGB frame converted with the BT.709 matrix, tagged as such."""
    from av.video.reformatter import ColorPrimaries, ColorRange, Colorspace, ColorTrc

    return frame.reformat(format=pix_fmt, dst_colorspace=Colorspace.ITU709,
                          dst_color_range=ColorRange.MPEG, dst_color_trc=ColorTrc.BT709,
                          dst_color_primaries=ColorPrimaries.BT709)


def _rate(fps: float) -> Fraction:
    """The frame rate as the exact fraction FFmpeg wants (29.97 -> 2997/100)."""
    return Fraction(fps).limit_denominator(1001)
