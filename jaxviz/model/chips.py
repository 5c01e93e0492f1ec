"""Hardware presets for the cost model: peak FLOP/s, HBM, links and topology of real chips.

The numbers live in a data file shipped with the package (``jaxviz/model/chips.toml``),
each with its source; a user's own file with the same fields is read by the same code
(:func:`load_chips`). Plain Python: no JAX, no Qt.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jaxviz.model import files
from jaxviz.model.codec import check_annotations, register

#: The presets file shipped with jaxviz.
PRESETS = Path(__file__).with_name("chips.toml")

#: Families the cost model knows how to connect.
FAMILIES = ("tpu", "gpu")

#: Wraparound rules of TPU tori (see :attr:`Chip.wraparound`).
WRAPAROUND_RULES = ("full", "multiple-of-4", "always", "never")

_NUMBERS = ("hbm_bytes", "hbm_bandwidth", "link_bandwidth", "link_bidirectional",
            "hop_latency", "nvlink_domain", "network_bandwidth")


class ChipFileError(ValueError):
    """A chip file that cannot be read, or a chip it does not have: the message says where."""


@register
@dataclass
class Chip:
    """One accelerator as the cost model sees it.

    Attributes:
        key: its name on the command line (``tpu-v5e``, ``h100``).
        name: what captions call it (``TPU v5e``).
        family: ``tpu`` (ICI torus links) or ``gpu`` (NVLink inside a node).
        flops: peak dense FLOP/s per operand dtype (``bf16``, ``f32``, ``int8`` ...).
        hbm_bytes: HBM capacity per chip.
        hbm_bandwidth: HBM bytes per second.
        link_bandwidth: TPU: ICI bytes/s per link one way; GPU: NVLink egress per GPU.
        link_bidirectional: TPU: ICI bytes/s per link both ways (0 for GPUs).
        hop_latency: seconds per hop, the latency floor of a collective.
        torus: TPU: chips per axis of the largest slice; empty for GPUs.
        wraparound: TPU: ``full`` (an axis wraps around only at its full torus size),
            ``multiple-of-4``, ``always`` or ``never``.
        nvlink_domain: GPU: GPUs per NVLink domain (node).
        network_bandwidth: GPU: bytes/s a node sends to other nodes.
        sources: field (``flops.bf16`` for a peak) -> where the number comes from.
    """

    key: str
    name: str
    family: str
    flops: dict[str, float]
    hbm_bytes: float
    hbm_bandwidth: float
    link_bandwidth: float
    link_bidirectional: float = 0.0
    hop_latency: float = 1e-6
    torus: list[int] = field(default_factory=list)
    wraparound: str = "full"
    nvlink_domain: int = 0
    network_bandwidth: float = 0.0
    sources: dict[str, str] = field(default_factory=dict)

    def peak(self, dtype: str) -> tuple[float, str]:
        """The peak FLOP/s for operands of ``dtype`` and the dtype whose peak it is.

        A dtype the chip lists has its own peak; any other uses the bf16 peak
        (``f64``, ``s32`` ...: the projection says which peak it used). A dot algorithm's
        ``bf16_x6`` (six bf16 dots make one) runs at the bf16 peak / 6, unless the chip
        has a figure of its own for it (XLA:GPU runs ``bf16_x9`` as one Triton kernel,
        which an H100 ran faster than nine passes at the bf16 peak allow).
        """
        repeated = passes(dtype)
        if repeated is not None and dtype not in self.flops:
            peak, used = self.peak(repeated[0])
            return peak / repeated[1], f"{used}_x{repeated[1]}"
        key = {"f8e4m3fn": "fp8", "f8e5m2": "fp8", "s8": "int8", "u8": "int8"}.get(dtype, dtype)
        if key in self.flops:
            return self.flops[key], key
        if key.startswith("f32_") and "f32" in self.flops:  # a precision the chip lacks
            return self.flops["f32"], "f32"
        return self.flops.get("bf16", max(self.flops.values())), "bf16"

    def wraps(self, axis_size: int) -> bool:
        """Whether an axis of ``axis_size`` chips has a wraparound link (TPU tori)."""
        if self.wraparound == "never":
            return False
        if self.wraparound == "always" or axis_size <= 2:
            return True  # two chips: the one link is the whole ring
        if self.wraparound == "multiple-of-4":
            return axis_size % 4 == 0
        return axis_size in self.torus


def passes(dtype: str) -> tuple[str, int] | None:
    """A dot algorithm's ``bf16_x6`` (six bf16 dots make one) as ``("bf16", 6)``; None
    for any other dtype."""
    repeated = re.fullmatch(r"(\w+)_x(\d+)", dtype)
    if repeated is None or int(repeated.group(2)) <= 0:
        return None
    return repeated.group(1), int(repeated.group(2))


def load_chips(path: Path | str | None = None) -> dict[str, Chip]:
    """The chips of a presets file (jaxviz's own by default), by key.

    Raises:
        ChipFileError: the file cannot be read, is not TOML, or a chip lacks a field
            or has one of the wrong kind (the message names the file, chip and field).
    """
    import tomllib  # on first use: the window paints before it reads any TOML

    where = Path(path) if path is not None else PRESETS
    try:  # a user's file is read as every file is: regular, bounded in size and time
        data = tomllib.loads(files.read_text(where, limit=files.SETTINGS_BYTES))
        files.check_depth(data, str(where))
    except files.FileProblem as exc:
        raise ChipFileError(str(exc)) from None
    except OSError as exc:
        raise ChipFileError(f"{where}: cannot read it ({exc.strerror or exc})") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ChipFileError(f"{where}: not a TOML file: {exc}") from None
    if not data:
        raise ChipFileError(f"{where}: no chips in it (a [name] table per chip)")
    return {key: _chip(where, key, table) for key, table in data.items()}


def find_chip(key: str, path: Path | str | None = None) -> Chip:
    """One chip by key, from jaxviz's presets or a user's file.

    Raises:
        ChipFileError: no such chip (the message lists those there are).
    """
    chips = load_chips(path)
    if key not in chips:
        where = f" in {path}" if path is not None else ""
        raise ChipFileError(f"no chip {key!r}{where}: choose one of {', '.join(chips)}")
    return chips[key]


def _chip(where: Path, key: str, table: Any) -> Chip:
    def bad(what: str) -> ChipFileError:
        return ChipFileError(f"{where}: [{key}] {what}")

    if not isinstance(table, dict):
        raise bad("is not a table of fields")
    family = table.get("family")
    if family not in FAMILIES:
        raise bad(f"family must be one of {', '.join(FAMILIES)}, not {family!r}")
    flops = table.get("flops")
    if not isinstance(flops, dict) or not flops or not all(
            _positive(v) for v in flops.values()):
        raise bad("flops must be a table of positive peaks per dtype, e.g. "
                  "{ bf16 = 1.97e14 }")
    needed = ["hbm_bytes", "hbm_bandwidth", "link_bandwidth"]
    needed += ["link_bidirectional"] if family == "tpu" else ["nvlink_domain",
                                                              "network_bandwidth"]
    for name in needed:
        if not _positive(table.get(name)):
            raise bad(f"{name} must be a positive number")
    numbers = {name: table[name] for name in _NUMBERS if name in table}
    for name, value in numbers.items():
        if not _positive(value):
            raise bad(f"{name} must be a positive number, not {value!r}")
    wrap = table.get("wraparound", "full")
    if wrap not in WRAPAROUND_RULES:
        raise bad(f"wraparound must be one of {', '.join(WRAPAROUND_RULES)}, not {wrap!r}")
    torus = table.get("torus", [])
    if not isinstance(torus, list) or not all(isinstance(n, int) and n > 0 for n in torus):
        raise bad("torus must be a list of chips per axis, e.g. [16, 16]")
    sources = table.get("sources", {})
    if not isinstance(sources, dict) or not all(isinstance(v, str) for v in sources.values()):
        raise bad("sources must be a table of strings")
    return Chip(key=key, name=str(table.get("name", key)), family=family,
                flops={str(k): float(v) for k, v in flops.items()},
                hbm_bytes=float(numbers["hbm_bytes"]),
                hbm_bandwidth=float(numbers["hbm_bandwidth"]),
                link_bandwidth=float(numbers["link_bandwidth"]),
                link_bidirectional=float(numbers.get("link_bidirectional", 0.0)),
                hop_latency=float(numbers.get("hop_latency", 1e-6)),
                torus=list(torus), wraparound=wrap,
                nvlink_domain=int(numbers.get("nvlink_domain", 0)),
                network_bandwidth=float(numbers.get("network_bandwidth", 0.0)),
                sources=dict(sources))


def _positive(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0


check_annotations(Chip)
