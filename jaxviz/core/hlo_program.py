"""Read an optimized, SPMD-partitioned HLO module: its instructions in program order.

This is the one place where jaxviz reads compiled HLO. What jaxlib 0.10 offers
as structure (``compiled.runtime_executable().hlo_modules()``) is thin: an
``HloModule`` gives its computations and its schedule (the order every device
runs the instructions in), an ``HloInstruction`` its name, opcode, operands
and ``to_string()`` -- but no shapes, replica groups, source-target pairs,
called computations or metadata, and jaxlib ships no HLO proto parser. So the
program order comes from the schedule (through
:func:`jaxviz.core.jax_internals.hlo_schedule`) where the module has one, and
everything else from the module's text, parsed here and nowhere else.

Replica groups come in every form the jaxlib 0.10 printer writes:

* explicit lists ``{{0,1},{2,3}}`` (``{}``: one group of every partition);
* iota ``[2,4]<=[8]`` and ``[2,4]<=[4,2]T(1,0)``;
* mesh axes ``mesh['axis_0'=4,'axis_1'=2] {'axis_1'}``, optionally with a
  device order ``mesh[...], device_ids=([4,2]T(1,0)) {...}`` and sub-axes
  ``'axis_0':(1)2``;

and ``source_target_pairs={{0,1},...}`` for permutes. The numbers in them are
SPMD partition ids (global ids ``replica * num_partitions + partition`` with
``use_global_device_ids``; one replica here); :mod:`jaxviz.core.hlo_steps`
maps them to device ids through the executable's device assignment and walks
the program in order.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass, field

import numpy as np

#: HLO opcodes that move data between devices.
COLLECTIVE_OPCODES = frozenset({
    "all-reduce", "all-gather", "reduce-scatter", "all-to-all", "collective-permute",
    "collective-broadcast", "ragged-all-to-all",
})

#: Opcodes that only name, reinterpret or copy values: no computation of their own.
BOOKKEEPING = frozenset({
    "parameter", "constant", "get-tuple-element", "tuple", "bitcast", "copy", "partition-id",
    "replica-id", "after-all", "add-dependency", "opt-barrier",
})

#: Reduction computations' root opcodes -> the word for the reduction.
REDUCTIONS = {"add": "sum", "maximum": "max", "minimum": "min", "multiply": "product",
              "and": "and", "or": "or", "xor": "xor"}

_COMPUTATION = re.compile(r"^(ENTRY\s+)?%([\w.\-]+)\s*\(.*\)\s*->\s*.*\{\s*$")
_INSTRUCTION = re.compile(r"^\s*(ROOT\s+)?%([\w.\-]+)\s*=\s*(.*)$")
_TYPE_LAYOUT = re.compile(r"\{[^{}]*\}")
_COMMENT = re.compile(r"/\*.*?\*/")  # long tuples print /*index=5*/ before elements
_OPERAND = re.compile(r"%([\w.\-]+)")
_OP_NAME = re.compile(r'op_name="([^"]*)"')
_PRIMITIVE = re.compile(r"/([A-Za-z_]\w*)(?=$|[;:)])")
_FRAME_ID = re.compile(r"stack_frame_id=(\d+)")
_HEADER_INT = re.compile(r"\b(num_partitions|replica_count)=(\d+)")
_TRIP_COUNT = re.compile(r'"known_trip_count":\{"n":"(\d+)"')
_EXPLICIT = re.compile(r"replica_groups=\{((?:\{[\d,\s]*\},?\s*)*)\}")
_IOTA = re.compile(r"replica_groups=\[([\d,]+)\]<=\[([\d,]+)\](?:T\(([\d,]+)\))?")
_MESH = re.compile(r"replica_groups=mesh\[([^\]]*)\](?:,\s*device_ids=\((.*?)\))?\s*\{([^}]*)\}")
_MESH_AXIS = re.compile(r"'([^']+)'=(\d+)")
_AXIS_REF = re.compile(r"'([^']+)'(?::\((\d+)\)(\d+))?")
_PAIRS = re.compile(r"source_target_pairs=\{((?:\{\d+,\d+\},?)*)\}")
_NUMBER_PAIR = re.compile(r"\{(\d+),(\d+)\}")
_DIMENSIONS = re.compile(r"\bdimensions=\{([\d,]*)\}")
_CHANNEL = re.compile(r"\bchannel_id=(\d+)")
_TUPLE_INDEX = re.compile(r"\bindex=(\d+)")
_CALLED = re.compile(
    r"\b(calls|to_apply|body|condition|true_computation|false_computation)=%([\w.\-]+)")
_BRANCHES = re.compile(r"\bbranch_computations=\{([^}]*)\}")
_ARRAY = re.compile(r"^([a-z]\w*)\[([\d,]*)\]")
_CONTRACTING = re.compile(r"\blhs_contracting_dims=\{([\d,]*)\}")
_WINDOW = re.compile(r"\bwindow=\{([^}]*)\}")
_DIM_LABELS = re.compile(r"\bdim_labels=(\w+)_(\w+)->(\w+)")
_TARGET = re.compile(r'\bcustom_call_target="([^"]*)"')
_PRECISION = re.compile(r"\boperand_precision=\{([\w,]*)\}")
#: Precision levels, lowest first (``jax.lax.Precision``: DEFAULT, HIGH, HIGHEST).
_LEVELS = ("default", "high", "highest")
#: A dot algorithm (``algorithm=dot_bf16_bf16_f32_x6``; a cuBLAS call's
#: ``"algorithm":"ALG_DOT_BF16_BF16_F32_X6"``): XLA names it
#: ``DOT_{A_TYPE}_{B_TYPE}_{ACCUM_TYPE}[_X{NUM_OPS}]``, the types of the primitive dot
#: operations the chip runs and how many of them make one (xla_data.proto, Algorithm).
_ALGORITHM = re.compile(r"(?:alg_)?dot_(any_f8|[a-z]+\d+)_(?:any_f8|[a-z]+\d+)_[a-z]+\d+"
                        r"(?:_x(\d+))?")
_BACKEND_CONFIG = "backend_config={"


class HloReadError(ValueError):
    """The text is not an HLO module this reader understands."""


@dataclass
class Instruction:
    """One HLO instruction, as printed.

    Attributes:
        name: its name without ``%``.
        opcode: ``all-reduce``, ``fusion``, ``parameter`` ...
        types: its result type(s) without layouts: one for an array, one per
            element for a tuple (``["f32[4]", "f32[]"]``).
        operands: the names of its operands.
        attrs: the attribute text after the operand list.
        root: whether it is its computation's ROOT.
    """

    name: str
    opcode: str
    types: list[str]
    operands: list[str]
    attrs: str
    root: bool = False

    @property
    def op_name(self) -> str:
        """The ``op_name`` metadata (``jit(f)/shard_map/psum``), or ``""``."""
        m = _OP_NAME.search(self.attrs)
        return m.group(1) if m else ""

    @property
    def primitives(self) -> list[str]:
        """The JAX primitives its ``op_name`` names: ``jit(f)/shard_map/psum`` -> ``[psum]``.

        A fused op names several (``.../mul;.../broadcast_in_dim``), a combined
        collective one per part (``.../(psum:psum)``).
        """
        return _PRIMITIVE.findall(self.op_name)

    @property
    def frame_id(self) -> int | None:
        m = _FRAME_ID.search(self.attrs)
        return int(m.group(1)) if m else None

    @property
    def trip_count(self) -> int | None:
        """The iterations XLA knows a while loop makes (its backend config), or None."""
        m = _TRIP_COUNT.search(self.attrs)
        return int(m.group(1)) if m else None

    @property
    def dimensions(self) -> list[int]:
        """The ``dimensions={...}`` attribute (gather/scatter/split dimensions)."""
        m = _DIMENSIONS.search(self.attrs)
        return _ints(m.group(1)) if m else []

    @property
    def channel_id(self) -> int | None:
        m = _CHANNEL.search(self.attrs)
        return int(m.group(1)) if m else None

    @property
    def tuple_index(self) -> int | None:
        """The ``index=`` of a get-tuple-element."""
        m = _TUPLE_INDEX.search(self.attrs)
        return int(m.group(1)) if m else None

    @property
    def lhs_contracting_dims(self) -> list[int]:
        """A dot's contracted dimensions of its left operand."""
        m = _CONTRACTING.search(self.attrs)
        return _ints(m.group(1)) if m else []

    @property
    def custom_call_target(self) -> str:
        """A custom call's ``custom_call_target`` (``__cublas$lt$matmul``), or ``""``."""
        m = _TARGET.search(self.attrs)
        return m.group(1) if m else ""

    @functools.cached_property
    def gemm_config(self) -> dict | None:
        """A cuBLAS call's ``gemm_backend_config`` (its dot's dimension numbers, epilogue,
        alpha/beta, precision): the dot XLA:GPU handed to cuBLAS; None for any other
        instruction, or one whose config does not read. (Read once: the cost of a call
        asks for it for its FLOPs, its bytes and its precision.)"""
        at = self.attrs.find(_BACKEND_CONFIG)
        if at < 0 or not self.custom_call_target.startswith("__cublas"):
            return None
        start = at + len(_BACKEND_CONFIG) - 1
        try:
            config = json.loads(self.attrs[start:_balanced_end(self.attrs, start)])
        except ValueError:
            return None
        gemm = config.get("gemm_backend_config") if isinstance(config, dict) else None
        return gemm if isinstance(gemm, dict) else None

    @property
    def precision(self) -> str:
        """The highest ``operand_precision`` a dot (or the cuBLAS call made of one) asks
        for: ``"default"``, ``"high"`` or ``"highest"`` (``jax.lax.Precision``, or the
        ``jax_default_matmul_precision`` it was traced under)."""
        m = _PRECISION.search(self.attrs)
        if m is not None:
            levels = m.group(1).split(",")
        else:
            config = (self.gemm_config or {}).get("precision_config") or {}
            levels = config.get("operand_precision") or []
        ranks = [_LEVELS.index(str(v).lower()) for v in levels if str(v).lower() in _LEVELS]
        return _LEVELS[max(ranks, default=0)]

    @property
    def algorithm(self) -> tuple[str, int] | None:
        """A dot's algorithm as ``(the type its primitive dots run in, how many of them
        make one)`` -- ``("bf16", 6)`` for ``dot_bf16_bf16_f32_x6`` -- or None when it
        has none (``ALG_UNSET``: the operand precision decides)."""
        m = re.search(r"\balgorithm=(\w+)", self.attrs)
        name = m.group(1) if m is not None else str(
            ((self.gemm_config or {}).get("precision_config") or {}).get("algorithm", ""))
        found = _ALGORITHM.fullmatch(name.lower())
        if found is None:
            return None
        return found.group(1), int(found.group(2) or 1)

    @property
    def window(self) -> list[tuple[int, int, int]]:
        """A windowed op's ``window={size=2x3 pad=0_1x1_1}``: per dimension (size, low pad,
        high pad); ``[]`` without a window."""
        m = _WINDOW.search(self.attrs)
        if m is None:
            return []
        fields = dict(part.split("=", 1) for part in m.group(1).split() if "=" in part)
        sizes = [int(v) for v in fields.get("size", "").split("x") if v]
        pads = [tuple(int(v) for v in p.split("_")) for p in fields["pad"].split("x")] \
            if "pad" in fields else [(0, 0)] * len(sizes)
        return [(size, pad[0], pad[1]) for size, pad in zip(sizes, pads)]

    @property
    def dim_labels(self) -> tuple[str, str, str] | None:
        """A convolution's ``dim_labels=b01f_01io->b01f`` as (input, kernel, output)."""
        m = _DIM_LABELS.search(self.attrs)
        return (m.group(1), m.group(2), m.group(3)) if m else None

    def called(self) -> list[tuple[str, str]]:
        """``(role, computation)`` for every computation the instruction calls."""
        out = [(m.group(1), m.group(2)) for m in _CALLED.finditer(self.attrs)]
        m = _BRANCHES.search(self.attrs)
        if m:
            out += [(f"branch {k}", name.strip().lstrip("%"))
                    for k, name in enumerate(m.group(1).split(","))]
        return out


@dataclass
class Computation:
    """A computation's instructions in program order."""

    name: str
    instructions: list[Instruction]
    entry: bool = False

    def by_name(self) -> dict[str, Instruction]:
        return {i.name: i for i in self.instructions}


@dataclass
class Module:
    """A parsed HLO module.

    Attributes:
        frames: stack frame id -> the ``(file, line)`` of that (innermost) frame.
        stacks: stack frame id -> ``(file, function, line, parent frame id or None)``,
            the whole Python call stack an instruction was traced under.
    """

    name: str
    computations: dict[str, Computation]
    entry: str
    num_partitions: int = 1
    num_replicas: int = 1
    frames: dict[int, tuple[str, int]] = field(default_factory=dict)
    stacks: dict[int, tuple[str, str, int, int | None]] = field(default_factory=dict)

    @property
    def entry_computation(self) -> Computation:
        return self.computations[self.entry]

    def source(self, instruction: Instruction) -> tuple[str, int] | None:
        frame = instruction.frame_id
        return self.frames.get(frame) if frame is not None else None

    def call_stack(self, instruction: Instruction) -> list[tuple[str, str, int]]:
        """``(file, function, line)`` of every frame an instruction was traced under,
        outermost first (empty without a stack frame)."""
        frame = instruction.frame_id
        chain: list[tuple[str, str, int]] = []
        seen: set[int] = set()
        while frame is not None and frame in self.stacks and frame not in seen:
            seen.add(frame)
            file, function, line, parent = self.stacks[frame]
            chain.append((file, function, line))
            frame = parent
        return chain[::-1]


# --------------------------------------------------------------------------- #
# Parsing the module text
# --------------------------------------------------------------------------- #


def read_module(text: str, schedule: dict[str, list[str]] | None = None) -> Module:
    """Parse a module's text; order each computation by ``schedule`` where given.

    Args:
        text: the module as ``compiled.as_text()`` prints it.
        schedule: computation name -> instruction names in program order (the
            module's own schedule). Computations it does not list keep the
            printed order (XLA prints scheduled computations in that order).

    Raises:
        HloReadError: the text has no ENTRY computation.
    """
    lines = text.splitlines()
    header = lines[0] if lines else ""
    name = header.split()[1].rstrip(",") if header.startswith("HloModule") else ""
    ints = {k: int(v) for k, v in _HEADER_INT.findall(header)}
    computations: dict[str, Computation] = {}
    entry = ""
    current: Computation | None = None
    for line in lines:
        if current is None:
            m = _COMPUTATION.match(line)
            if m:
                current = Computation(m.group(2), [], entry=bool(m.group(1)))
                if current.entry:
                    entry = current.name
            continue
        if line.startswith("}"):
            computations[current.name] = current
            current = None
            continue
        instruction = parse_instruction(line)
        if instruction is not None:
            current.instructions.append(instruction)
    if not entry:
        raise HloReadError("the HLO text has no ENTRY computation")
    for comp_name, order in (schedule or {}).items():
        comp = computations.get(comp_name)
        if comp is not None and sorted(order) == sorted(i.name for i in comp.instructions):
            named = comp.by_name()
            comp.instructions = [named[n] for n in order]
    return Module(name, computations, entry, ints.get("num_partitions", 1),
                  ints.get("replica_count", 1), _frames(lines), _stacks(lines))


def num_partitions(text: str) -> int:
    """The module's ``num_partitions`` (its header line; 1 when the header has none)."""
    header = text.split("\n", 1)[0]
    ints = {k: int(v) for k, v in _HEADER_INT.findall(header)}
    return ints.get("num_partitions", 1)


def parse_instruction(line: str) -> Instruction | None:
    """Parse one printed instruction (``[ROOT] %name = type opcode(operands), attrs``)."""
    m = _INSTRUCTION.match(line)
    if m is None:
        return None
    rest = m.group(3)
    type_end = _balanced_end(rest, 0) if rest.startswith("(") else rest.find(" ")
    if type_end < 0:
        return None
    type_text = rest[:type_end].strip()
    after = rest[type_end:].lstrip()
    paren = after.find("(")
    if paren < 0:
        return None
    opcode = after[:paren].strip()
    close = _balanced_end(after, paren)
    operand_text = after[paren + 1:close - 1]
    attrs = after[close:].lstrip(", ")
    return Instruction(name=m.group(2), opcode=opcode, types=split_types(type_text),
                       operands=_OPERAND.findall(operand_text), attrs=attrs,
                       root=bool(m.group(1)))


def split_types(type_text: str) -> list[str]:
    """``(f32[4]{0}, f32[])`` -> ``["f32[4]", "f32[]"]``; ``f32[4,2]{1,0}`` -> ``["f32[4,2]"]``."""
    text = _TYPE_LAYOUT.sub("", _COMMENT.sub("", type_text)).strip()
    while "{" in text:  # nested layout braces (tiling, memory space)
        text = _TYPE_LAYOUT.sub("", text)
    if text.startswith("(") and text.endswith(")"):
        inner = text[1:-1]
        return [t.strip() for t in re.split(r",\s*(?![^\[]*\])", inner) if t.strip()]
    return [text]


def array_shape(type_text: str) -> tuple[str, list[int]]:
    """``f32[4,8]`` -> ``("f32", [4, 8])``; a token or a tuple -> ``("", [])``."""
    m = _ARRAY.match(type_text.strip())
    if m is None:
        return "", []
    return m.group(1), _ints(m.group(2))


def _balanced_end(text: str, start: int) -> int:
    """Index just past the bracket group opening at ``start``."""
    depth = 0
    quote = False
    for k in range(start, len(text)):
        ch = text[k]
        if ch == '"':
            quote = not quote
        elif quote:
            continue
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                return k + 1
    return len(text)


def _frames(lines: list[str]) -> dict[int, tuple[str, int]]:
    """Stack frame id -> (file, line) from the FileNames/FileLocations/StackFrames tables."""
    return {k: (file, line) for k, (file, _, line, _) in _stacks(lines).items()}


def _stacks(lines: list[str]) -> dict[int, tuple[str, str, int, int | None]]:
    """Stack frame id -> (file, function, line, parent frame id) from the location tables.

    jaxlib 0.10 prints a frame's parent one above its id (``parent_frame_id=1``
    on frame 1 is the root; ``parent_frame_id=3`` on frame 4 is frame 2), as
    the module proto's 1-based ids are printed beside 0-based parents plus one.
    """
    tables: dict[str, dict[int, str]] = {}
    section = ""
    for line in lines:
        if line in ("FileNames", "FunctionNames", "FileLocations", "StackFrames"):
            section = line
            tables[section] = {}
            continue
        if not line.strip() or line.startswith("%") or line.startswith("ENTRY"):
            section = "" if not line.strip() else section
            if line.startswith(("%", "ENTRY")):
                break
            continue
        if section:
            key, _, value = line.partition(" ")
            if key.isdigit():
                tables[section][int(key)] = value
    files = {k: v.strip().strip('"') for k, v in tables.get("FileNames", {}).items()}
    functions = {k: v.strip().strip('"') for k, v in tables.get("FunctionNames", {}).items()}
    locations: dict[int, tuple[str, str, int]] = {}
    for k, v in tables.get("FileLocations", {}).items():
        fm = re.search(r"file_name_id=(\d+)", v)
        lm = re.search(r"\bline=(\d+)", v)
        nm = re.search(r"function_name_id=(\d+)", v)
        if fm and lm:
            locations[k] = (files.get(int(fm.group(1)), ""),
                            functions.get(int(nm.group(1)), "") if nm else "", int(lm.group(1)))
    frames: dict[int, tuple[str, str, int, int | None]] = {}
    for k, v in tables.get("StackFrames", {}).items():
        lm = re.search(r"file_location_id=(\d+)", v)
        pm = re.search(r"parent_frame_id=(\d+)", v)
        if lm and int(lm.group(1)) in locations:
            parent = int(pm.group(1)) - 1 if pm else 0
            frames[k] = (*locations[int(lm.group(1))], parent if parent > 0 else None)
    return frames


# --------------------------------------------------------------------------- #
# Replica groups
# --------------------------------------------------------------------------- #


def replica_groups(attrs: str, num_ids: int) -> list[list[int]]:
    """The replica groups of a collective's attribute text, as lists of ids.

    An op without ``replica_groups`` (or with ``{}``) has one group of all
    ``num_ids`` ids.

    Raises:
        HloReadError: a ``replica_groups=`` form this reader does not know.
    """
    if "replica_groups=" not in attrs:
        return [list(range(num_ids))]
    m = _EXPLICIT.search(attrs)
    if m:
        groups = [[int(x) for x in g.split(",") if x.strip()]
                  for g in re.findall(r"\{([\d,\s]*)\}", m.group(1))]
        return groups or [list(range(num_ids))]
    m = _IOTA.search(attrs)
    if m:
        shape = _ints(m.group(1))
        ids = _iota(_ints(m.group(2)), _ints(m.group(3)) if m.group(3) else None)
        iota_groups: list[list[int]] = ids.reshape(shape).tolist()
        return iota_groups
    m = _MESH.search(attrs)
    if m:
        return _mesh_groups(m.group(1), m.group(2), m.group(3))
    raise HloReadError(f"unknown replica_groups form in: {attrs[:200]}")


def _ints(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x.strip()]


def _iota(reshape: list[int], perm: list[int] | None) -> np.ndarray:
    """``iota(prod(reshape)).reshape(reshape).transpose(perm).flatten()``."""
    ids = np.arange(int(np.prod(reshape))).reshape(reshape)
    if perm is not None:
        ids = ids.transpose(perm)
    return ids.reshape(-1)


def _mesh_groups(axes_text: str, device_text: str | None, group_text: str) -> list[list[int]]:
    """Groups of the mesh form: the devices along the named (sub-)axes, other axes fixed."""
    names = [(n, int(s)) for n, s in _MESH_AXIS.findall(axes_text)]
    sizes = [s for _, s in names]
    index = {n: k for k, (n, _) in enumerate(names)}
    if device_text:
        tm = re.fullmatch(r"\[([\d,]+)\](?:<=\[([\d,]+)\])?(?:T\(([\d,]+)\))?", device_text.strip())
        if tm:
            reshape = _ints(tm.group(2) or tm.group(1))
            devices = _iota(reshape, _ints(tm.group(3)) if tm.group(3) else None)
        else:
            devices = np.array(_ints(device_text.replace("(", "").replace(")", "")))
    else:
        devices = np.arange(int(np.prod(sizes)))
    # Split every mesh axis into the pieces the referenced sub-axes need.
    # (mesh axis, (pre_size, size) of a sub-axis or None for the whole axis)
    refs: list[tuple[int, tuple[int, int] | None]] = [
        (index[n], (int(pre), int(size)) if pre else None)
        for n, pre, size in _AXIS_REF.findall(group_text)]
    pieces: list[list[tuple[int, int]]] = []  # per mesh axis: (pre_size, size) pieces
    for axis, full in enumerate(sizes):
        cuts = sorted({sub for a, sub in refs if a == axis and sub is not None})
        parts: list[tuple[int, int]] = []
        done = 1
        for pre, size in cuts:
            if pre > done:
                parts.append((done, pre // done))
            parts.append((pre, size))
            done = pre * size
        if done < full:
            parts.append((done, full // done))
        pieces.append(parts)
    # Major-to-minor dims: within an axis the piece with the smallest pre_size is
    # major (``'a':(1)2`` is the outer 2 of axis a).
    dims = [(axis, pre, size) for axis, parts in enumerate(pieces) for pre, size in parts]
    array = devices.reshape([size for _, _, size in dims])
    # Grouped dims go last: mesh axes in mesh order, sub-axes of one axis as listed.
    grouped: list[int] = []
    for axis in range(len(sizes)):
        for a, sub in refs:
            if a == axis:
                grouped += [k for k, (da, p, s) in enumerate(dims)
                            if da == axis and (sub is None or (p, s) == sub)]
    others = [k for k in range(len(dims)) if k not in grouped]
    group_size = int(np.prod([dims[k][2] for k in grouped])) if grouped else 1
    groups: list[list[int]] = array.transpose(others + grouped).reshape(-1, group_size).tolist()
    return groups


def source_target_pairs(attrs: str) -> list[tuple[int, int]]:
    """``source_target_pairs={{0,1},{1,0}}`` -> ``[(0, 1), (1, 0)]``."""
    m = _PAIRS.search(attrs)
    return [(int(a), int(b)) for a, b in _NUMBER_PAIR.findall(m.group(1))] if m else []


def collective_opcodes(text: str) -> list[str]:
    """The distinct collective opcodes in HLO text (``all-reduce-start`` as ``all-reduce``)."""
    found = set()
    for line in text.splitlines():
        ins = parse_instruction(line)
        if ins is not None and ins.opcode.removesuffix("-start") in COLLECTIVE_OPCODES:
            found.add(ins.opcode.removesuffix("-start"))
    return sorted(found)


# --------------------------------------------------------------------------- #
# The text a reader sees
# --------------------------------------------------------------------------- #

#: The tables of source locations a module's text starts with (before its computations).
_LOCATION_TABLES = ("FileNames", "FunctionNames", "FileLocations", "StackFrames")
_SOURCE_ATTRS = re.compile(r'\s*source_file="([^"]*)"\s+source_line=(\d+)')
_METADATA = re.compile(r"metadata=\{([^{}]*)\}")


def readable(text: str, user_file: str) -> str:
    """The module's text for a reader: the program, with its source locations in the
    user's file and nothing of the Python stack that lowered it.

    jaxlib prints tables of every frame of the stack that called ``lower`` (the
    engine's own modules, ``runpy``...) before the program, and instructions point
    into them by ``stack_frame_id``. Here the tables go; an instruction whose frame
    is a line of ``user_file`` says so as ``source_file="NAME.py" source_line=N``
    (as older jaxlibs printed it); other frames are dropped.

    Args:
        text: the module as ``compiled.as_text()`` prints it.
        user_file: the file name the user's code was traced under.
    """
    lines = text.splitlines()
    frames = _frames(lines)
    name = user_file.replace("\\", "/").rsplit("/", 1)[-1]

    def located(match: re.Match[str]) -> str:
        where = frames.get(int(match.group(1)))
        if where is None or where[0] != user_file:
            return ""
        return f'source_file="{name}" source_line={where[1]}'

    def source_attrs(match: re.Match[str]) -> str:
        if match.group(1) not in (user_file, name):
            return ""
        return f' source_file="{name}" source_line={match.group(2)}'

    out: list[str] = []
    in_table = False
    for line in lines:
        if line in _LOCATION_TABLES:
            in_table = True
            continue
        if in_table:
            if not line.strip():
                in_table = False
            continue
        out.append(_METADATA.sub(lambda m: "metadata={" + " ".join(_FRAME_ID.sub(
            located, _SOURCE_ATTRS.sub(source_attrs, m.group(1))).split()) + "}", line))
    while len(out) > 1 and not out[1].strip() and (len(out) < 3 or not out[2].strip()):
        del out[1]  # the blank lines the tables left behind
    return "\n".join(out) + ("\n" if text.endswith("\n") else "")
