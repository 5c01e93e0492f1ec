"""What the values panel shows for one step, as plain data (no Qt, no JAX).

:func:`build_panel` turns one :class:`~jaxviz.model.stepping.EvalStep` of a
stepping into a :class:`StepPanel`: a heading, the source line, notes, and one
:class:`Column` per lane -- the host, or every device that ran the step, each
in the device colour the device view gives it. Every value becomes a
:class:`Cell` of one kind:

* ``numbers``: scalars and small vectors (at most :data:`VECTOR_MAX` elements,
  at most one axis longer than 1), written out;
* ``heatmap``: matrices kept exactly, drawn on the colour scale
  :attr:`StepPanel.scale` that every heat map of the step shares;
* ``summary``: everything else: shape, dtype, minimum, maximum, mean and a
  histogram (from the engine's summary, or computed here from exact values).

The Qt widgets (:mod:`jaxviz.ui.stepper`) draw exactly this; tests read it.

Example:
    >>> from jaxviz.model.stepping import EvalStep, LaneValues, StepResult, Value
    >>> from jaxviz.model.records import VarInfo
    >>> step = EvalStep("equation", "0", 0, "sin", inputs=[VarInfo("a", [], "f32")],
    ...                 outputs=[VarInfo("b", [], "f32")],
    ...                 lanes=[LaneValues(None, [Value([], "f32", 0.0)],
    ...                                   [Value([], "f32", 0.0)])])
    >>> panel = build_panel(StepResult("f", "f.py", "plain", steps=[step]), 0)
    >>> [(c.name, c.text) for c in panel.columns[0].outputs]
    [('b', '0')]
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from jaxviz.model.records import VarInfo
from jaxviz.model.stepping import HISTOGRAM_BINS, EvalStep, LaneValues, StepResult, Value
from jaxviz.views.palette import THEMES, device_colour_map
from jaxviz.views.stepper.value_text import format_number, format_value

#: Vectors with at most this many elements are written out as numbers.
VECTOR_MAX = 16
#: Numbers per line of a written-out vector: on the host, and in each device's column.
PER_LINE_HOST, PER_LINE_DEVICE = 8, 2
#: Digits of the numbers written in the panel (a projector: few, large).
PANEL_DIGITS = 4


def whole_note(devices: list[int]) -> str:
    """What the panel says where equations a ``jit``'s shardings split over ``devices``
    were stepped on whole arrays (:attr:`StepResult.whole_over`)."""
    return (f"these are whole arrays, stepped on the host: the jit's shardings split this "
            f"program over devices {_ranges(devices)}, and XLA's SPMD partitioner decides "
            f"what each of them computes when it compiles it; that per-device work is not "
            f"stepped (the Devices tab shows where each block lives).")


def _ranges(ids: list[int]) -> str:
    """``0-7`` for consecutive ids, else ``0, 2, 5``."""
    if len(ids) > 2 and ids == list(range(ids[0], ids[0] + len(ids))):
        return f"{ids[0]}-{ids[-1]}"
    return ", ".join(map(str, ids))
_KIND_WORDS = {"enter": "enters", "leave": "leaves"}
#: The host's colour: the device view's colour of an array not yet split.
HOST_COLOUR = THEMES["light"].device_view.neutral


@dataclass(frozen=True)
class Cell:
    """One value as the panel shows it.

    Attributes:
        role: ``in`` or ``out``.
        name: the variable's name in the jaxpr text (a literal's value).
        type: its type as the jaxpr writes it (``f32[8,3]``).
        kind: ``numbers``, ``heatmap`` or ``summary`` (see the module doc).
        text: the numbers written out, or the summary's statistics.
        matrix: the rows of a heat map (None for other kinds).
        histogram: a summary's element counts per bin (empty if none).
        edges: the bins' edges (one more than bins).
    """

    role: str
    name: str
    type: str
    kind: str
    text: str
    matrix: list[list[float]] | None = None
    histogram: list[int] = field(default_factory=list)
    edges: list[float] = field(default_factory=list)


@dataclass(frozen=True)
class Column:
    """One lane of the step: the host, or one device.

    Attributes:
        device: the device id (None for the host).
        title: ``device 3``, ``host``, or ``global`` (a shard_map's whole arrays).
        colour: the device's colour in the device view (a neutral grey for the host).
        inputs, outputs: the cells, in the equation's order.
    """

    device: int | None
    title: str
    colour: str
    inputs: list[Cell] = field(default_factory=list)
    outputs: list[Cell] = field(default_factory=list)

    @property
    def cells(self) -> list[Cell]:
        return self.inputs + self.outputs


@dataclass(frozen=True)
class StepPanel:
    """Everything the values panel shows for one step.

    Attributes:
        index, count: which step of how many (0-based index).
        heading: ``psum`` or ``enters shard_map``, with the variant.
        where: the step's path (``jit[0] > shard_map[0] > 3``).
        source: ``line 17: return x / lax.psum(x, 'p')`` ('' when not from the file).
        line: the source line (None when not from the file).
        notes: what else to know: the devices a collective combined, the branch
            taken, devices that do not run the step, what the sharded variant is.
        columns: one per lane (host, or devices in mesh order).
        scale: ``(low, high)`` shared by every heat map of the step (None without any);
            symmetric around 0 when the values have both signs.
        equation: the step's equation as the jaxpr text writes it, on one line
            (for ``enter``/``leave`` markers: its first line).
    """

    index: int
    count: int
    heading: str
    where: str
    source: str
    line: int | None
    notes: list[str]
    columns: list[Column]
    scale: tuple[float, float] | None
    equation: str = ""

    @property
    def diverging(self) -> bool:
        """True when the heat maps' values have both signs (a scale centred on 0)."""
        return self.scale is not None and self.scale[0] < 0 < self.scale[1]

    @property
    def per_device(self) -> bool:
        """True when the step has one column per device."""
        return any(c.device is not None for c in self.columns)

    def column(self, device: int) -> Column:
        """The column of a device.

        Raises:
            KeyError: the device does not run this step.
        """
        for c in self.columns:
            if c.device == device:
                return c
        raise KeyError(device)


def build_panel(result: StepResult, index: int, source_lines: Sequence[str] = (),
                colours: Mapping[int, str] | None = None) -> StepPanel:
    """The panel of step ``index`` of ``result``.

    Args:
        result: the stepping.
        index: the step (0-based).
        source_lines: the stepped file's lines (for the source line's text).
        colours: device id -> colour; by default the device view's colours for
            the stepping's mesh (:func:`~jaxviz.views.palette.device_colour_map`).
    """
    step = result.steps[index]
    if colours is None:
        sizes = result.mesh.axis_sizes if result.mesh is not None else []
        order = result.mesh.device_ids if result.mesh is not None else result.devices
        colours = device_colour_map(sizes, order)
    columns = [_column(step, lane, colours) for lane in step.lanes]
    position = {d: k for k, d in enumerate(result.mesh.device_ids if result.mesh else [])}
    columns.sort(key=lambda c: -1 if c.device is None else position.get(c.device, c.device))
    line = (step.source.line if step.source is not None
            and step.source.file == result.filename else None)
    text = source_lines[line - 1].strip() if line and line <= len(source_lines) else ""
    source = f"line {line}: {text}" if line and text else (f"line {line}" if line else "")
    verb = _KIND_WORDS.get(step.kind)
    heading = f"{verb} {step.primitive}" if verb else step.primitive
    equation = _equation_text(result.jaxpr_text, step)
    notes = _notes(result, step)
    if not result.has_values(index):
        end = result.recorded_to if result.recorded_to is not None else len(result.steps)
        notes.insert(0, f"values not recorded here yet: step mode keeps the values of a "
                        f"window of steps (now steps {result.recorded_from + 1}-{end}); the "
                        f"steps around this one are recorded next")
    return StepPanel(index=index, count=len(result.steps), heading=heading, where=step.path,
                     source=source, line=line, notes=notes,
                     columns=columns, scale=_scale(columns), equation=equation)


def _column(step: EvalStep, lane: LaneValues, colours: Mapping[int, str]) -> Column:
    per_device = any(other.device is not None for other in step.lanes)
    if lane.device is None:
        title, colour = ("global" if per_device else "host"), HOST_COLOUR
    else:
        title, colour = f"device {lane.device}", colours.get(lane.device, HOST_COLOUR)
    per_line = PER_LINE_DEVICE if per_device else PER_LINE_HOST
    return Column(lane.device, title, colour,
                  [cell("in", var, value, per_line)
                   for var, value in zip(step.inputs, lane.inputs)],
                  [cell("out", var, value, per_line)
                   for var, value in zip(step.outputs, lane.outputs)])


def cell(role: str, var: VarInfo, value: Value, per_line: int = PER_LINE_HOST) -> Cell:
    """One value as a :class:`Cell` of the kind its shape and dtype call for.

    Written-out vectors get ``per_line`` numbers a line.
    """
    type_text = f"{var.dtype}[{','.join(str(d) for d in var.shape)}]"
    numeric = _numeric(value)
    if value.summary is None and numeric:
        long_axes = sum(1 for d in value.shape if d > 1)
        if value.size <= VECTOR_MAX and long_axes <= 1:
            return Cell(role, var.name, type_text, "numbers", _numbers(value, per_line))
        if len(value.shape) == 2 and value.size:
            matrix = [[_float(x) for x in row] for row in value.exact]
            return Cell(role, var.name, type_text, "heatmap", format_value(value, PANEL_DIGITS),
                        matrix=matrix)
    if value.summary is None and not numeric and value.size <= VECTOR_MAX:
        return Cell(role, var.name, type_text, "numbers", format_value(value, PANEL_DIGITS))
    return _summary_cell(role, var.name, type_text, value, numeric)


def _numeric(value: Value) -> bool:
    """Real numbers or booleans (complex numbers and PRNG keys are written, not drawn)."""
    return value.dtype == "bool" or value.dtype[:1] in ("f", "i", "u") or \
        value.dtype.startswith("bf")


def _numbers(value: Value, per_line: int) -> str:
    if not value.shape:
        return format_number(value.exact, PANEL_DIGITS)
    words = [format_number(x, PANEL_DIGITS) for x in _flat(value.exact)]
    lines = [" ".join(words[k:k + per_line]) for k in range(0, len(words), per_line)]
    return "[" + "\n ".join(lines) + "]"


def _summary_cell(role: str, name: str, type_text: str, value: Value, numeric: bool) -> Cell:
    s = value.summary
    if s is None:  # kept exactly, but too large (or too deep) to write out or draw
        numbers = [_float(x) for x in _flat(value.exact)] if numeric else []
        finite = [x for x in numbers if math.isfinite(x)]
        low = min(finite) if finite else None
        high = max(finite) if finite else None
        mean = sum(finite) / len(finite) if finite else None
        counts, edges = histogram(finite)
        nonfinite = len(numbers) - len(finite)
    else:
        low, high, mean, nonfinite = s.min, s.max, s.mean, s.nonfinite
        counts, edges = list(s.histogram), list(s.edges)
    if low is None or high is None or mean is None:
        stats = "no finite elements" if value.size else "empty"
    else:
        stats = (f"min {format_number(low, PANEL_DIGITS)}\nmax {format_number(high, PANEL_DIGITS)}"
                 f"\nmean {format_number(mean, PANEL_DIGITS)}")
    if nonfinite:
        stats += f"\n{nonfinite} not finite"
    return Cell(role, name, type_text, "summary", stats, histogram=counts, edges=edges)


def histogram(numbers: list[float], bins: int = HISTOGRAM_BINS) -> tuple[list[int], list[float]]:
    """Counts per bin over ``[min, max]`` (as NumPy's ``histogram`` bins them) and the edges."""
    if not numbers:
        return [], []
    low, high = min(numbers), max(numbers)
    if low == high:
        low, high = low - 0.5, high + 0.5
    width = (high - low) / bins
    edges = [low + width * k for k in range(bins)] + [high]
    counts = [0] * bins
    for x in numbers:
        k = min(int((x - low) / width), bins - 1)
        counts[k] += 1
    return counts, edges


def _equation_text(jaxpr_text: str, step: EvalStep, limit: int = 240) -> str:
    """The step's equation on one line (a marker: its first line; the body is elsewhere)."""
    if step.text_start is None:
        return ""
    lines = jaxpr_text.split("\n")
    last = step.text_end if step.kind == "equation" and step.text_end is not None \
        else step.text_start
    text = " ".join(line.strip() for line in lines[step.text_start:last + 1])
    text = text.replace("[ ", "[").replace(" ]", "]")
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _scale(columns: list[Column]) -> tuple[float, float] | None:
    """One scale for every heat map: ``[min, max]``, or ``[-m, m]`` when signs mix."""
    values = [x for c in columns for cell_ in c.cells if cell_.matrix is not None
              for row in cell_.matrix for x in row if math.isfinite(x)]
    if not values:
        return None
    low, high = min(values), max(values)
    if low < 0 < high:
        reach = max(-low, high)
        return -reach, reach
    return low, high


def _notes(result: StepResult, step: EvalStep) -> list[str]:
    notes = []
    if step.groups:
        groups = "; ".join(" ".join(str(d) for d in g) for g in step.groups)
        many = len(step.groups) > 1
        notes.append(f"{step.primitive} combines the values of device{'s' * (not many)} "
                     f"{groups}" + (" (each group on its own)" if many else ""))
    if step.note:
        notes.append(step.note)
    running = {lane.device for lane in step.lanes if lane.device is not None}
    if running and result.devices:
        idle = [d for d in result.devices if d not in running]
        if idle:
            notes.append(f"device{'s' * (len(idle) > 1)} {', '.join(map(str, idle))} "
                         f"{'do' if len(idle) > 1 else 'does'} not run this step")
    if result.whole_over and all(lane.device is None for lane in step.lanes):
        notes.append(whole_note(result.whole_over))
    return notes


def _flat(items: Any) -> list[Any]:
    if isinstance(items, list):
        return [x for item in items for x in _flat(item)]
    return [items]


def _float(x: Any) -> float:
    if isinstance(x, bool):
        return 1.0 if x else 0.0
    return float(x) if isinstance(x, (int, float)) else math.nan
