"""FLOPs and HBM bytes of every HLO instruction, with while loops run as often as XLA knows.

XLA's own ``compiled.cost_analysis()`` (``HloCostAnalysis``) counts a while
loop's body once and gives one number for the whole program. Here the same
counting rules are applied to each instruction of the parsed module
(:mod:`jaxviz.core.hlo_program`), so every step of the storyboard gets its own
cost, and a loop's body is multiplied by its trip count (the
``known_trip_count`` XLA records in the loop's backend config). With
``loops="once"`` the loops count once, as XLA's analysis does: the tests check
that this reproduces ``cost_analysis()`` on real programs.

The rules (``xla/service/hlo_cost_analysis.cc``): an elementwise op costs one
FLOP per output element (exp, log, tanh, rsqrt ... count as transcendentals
instead); a dot ``2 * output elements * contracted size``; a reduce the
reducer's FLOPs per ``input - output`` elements; a fusion the sum of what it
fuses; an all-reduce one FLOP per element; data movement (copies, slices,
transposes, gathers, the other collectives) none. Bytes are those XLA counts
at the level the program runs (a fusion's operands and results, not what it
keeps inside): operands read plus results written, slices only what they
take.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from jaxviz.core.hlo_program import Computation, Instruction, Module, array_shape

#: Bytes per element of each HLO element type.
DTYPE_BYTES = {
    "pred": 1, "s2": 1, "u2": 1, "s4": 1, "u4": 1, "s8": 1, "u8": 1, "s16": 2, "u16": 2,
    "s32": 4, "u32": 4, "s64": 8, "u64": 8, "f16": 2, "bf16": 2, "f32": 4, "f64": 8,
    "c64": 8, "c128": 16, "f8e4m3fn": 1, "f8e5m2": 1, "f8e4m3": 1, "f8e4m3fnuz": 1,
    "f8e5m2fnuz": 1, "f8e4m3b11fnuz": 1, "f8e3m4": 1, "f4e2m1fn": 1, "f8e8m0fnu": 1,
    "token": 0,
}

#: Elementwise opcodes XLA counts as transcendentals, not FLOPs.
TRANSCENDENTAL = frozenset({
    "acosh", "erf", "exponential", "log", "logistic", "power", "sqrt", "cbrt", "rsqrt",
    "tanh", "sine", "cosine", "exponential-minus-one", "log-plus-one", "atan2", "tan",
})

#: Elementwise opcodes: one FLOP (or transcendental) per output element.
ELEMENTWISE = TRANSCENDENTAL | frozenset({
    "abs", "add", "and", "ceil", "clamp", "clz", "compare", "complex", "convert", "divide",
    "floor", "imag", "is-finite", "maximum", "minimum", "multiply", "negate", "not", "or",
    "popcnt", "real", "reduce-precision", "remainder", "round-nearest-afz",
    "round-nearest-even", "select", "shift-left", "shift-right-arithmetic",
    "shift-right-logical", "sign", "subtract", "xor", "stochastic-convert",
})

#: Opcodes that touch no memory of their own.
NO_BYTES = frozenset({"parameter", "constant", "get-tuple-element", "bitcast", "after-all",
                      "add-dependency", "domain", "partition-id", "replica-id"})



@dataclass
class Cost:
    """What instructions cost on one device.

    Attributes:
        flops: floating-point (and integer) operations, transcendentals excluded.
        transcendentals: exp, log, tanh ... one per element.
        bytes: HBM bytes read and written.
        flops_by_dtype: ``flops`` split by the element type they run in (a dot by its
            operands' type, anything else by its result's), for the peak of each.
    """

    flops: float = 0.0
    transcendentals: float = 0.0
    bytes: float = 0.0
    flops_by_dtype: dict[str, float] = field(default_factory=dict)

    def add(self, other: Cost, times: float = 1.0) -> None:
        self.flops += other.flops * times
        self.transcendentals += other.transcendentals * times
        self.bytes += other.bytes * times
        for k, v in other.flops_by_dtype.items():
            self.flops_by_dtype[k] = self.flops_by_dtype.get(k, 0.0) + v * times

    def maximum(self, other: Cost) -> None:
        self.flops = max(self.flops, other.flops)
        self.transcendentals = max(self.transcendentals, other.transcendentals)
        self.bytes = max(self.bytes, other.bytes)
        for k, v in other.flops_by_dtype.items():
            self.flops_by_dtype[k] = max(self.flops_by_dtype.get(k, 0.0), v)


def elements(type_text: str) -> int:
    dtype, dims = array_shape(type_text)
    return math.prod(dims) if dtype else 0


def type_bytes(type_text: str) -> int:
    """Bytes of one array type (``f32[4,8]`` -> 128); 0 for tokens."""
    dtype, dims = array_shape(type_text)
    return DTYPE_BYTES.get(dtype, 4) * math.prod(dims) if dtype else 0


def types_bytes(types: list[str]) -> int:
    return sum(type_bytes(t) for t in types)


class CostModel:
    """The cost of instructions of one module, computations memoized.

    Args:
        module: the parsed module.
        loops: ``"trip"`` multiplies a while loop's body by its known trip count
            (once where XLA does not know it); ``"once"`` counts it once, as
            ``compiled.cost_analysis()`` does.
    """

    def __init__(self, module: Module, loops: str = "trip"):
        self.module = module
        self.loops = loops
        self._computations: dict[str, Cost] = {}
        self._named: dict[str, dict[str, Instruction]] = {}
        self.unknown_trip_counts: list[str] = []
        self.custom_calls: list[str] = []

    # -- whole computations ------------------------------------------------- #

    def computation(self, name: str) -> Cost:
        """The cost of running computation ``name`` once."""
        if name not in self._computations:
            comp = self.module.computations[name]
            total = Cost()
            for ins in comp.instructions:
                total.add(self.instruction(comp, ins))
            self._computations[name] = total
        return self._computations[name]

    def program(self) -> Cost:
        """The whole program: its ENTRY computation."""
        return self.computation(self.module.entry)

    # -- one instruction ------------------------------------------------------ #

    def instruction(self, comp: Computation, ins: Instruction) -> Cost:
        """What one instruction of ``comp`` costs (its called computations included)."""
        cost = Cost()
        flops, transcendentals, dtype = self._flops(comp, ins)
        cost.flops, cost.transcendentals = flops, transcendentals
        if flops:
            cost.flops_by_dtype[dtype] = flops
        op = ins.opcode
        called = dict(ins.called())
        if op == "while":
            body = Cost()
            body.add(self.computation(called["body"]))
            body.add(self.computation(called["condition"]))
            trips = ins.trip_count
            if trips is None:
                self.unknown_trip_counts.append(ins.name)
            times = float(trips) if self.loops == "trip" and trips is not None else 1.0
            cost.add(body, times)
            return cost
        if op == "conditional":
            for role, name in ins.called():
                if role.startswith("branch") or role.endswith("_computation"):
                    cost.maximum(self.computation(name))
            return cost
        if op == "call" or (op.endswith("-start") and op == "async-start"):
            for _, name in ins.called():
                cost.add(self.computation(name))
            return cost
        if op in ("fusion", "fusion-start"):
            # fusion-start: XLA:GPU running a fusion asynchronously (a scan's dynamic
            # slices of its stacked weights); it moves what the fusion it calls moves
            # (its tuple type repeats the operands beside the result; fusion-done is free)
            inner = self.computation(called["calls"])
            cost.flops, cost.transcendentals = inner.flops, inner.transcendentals
            cost.flops_by_dtype = dict(inner.flops_by_dtype)
            cost.bytes = self._fusion_bytes(comp, ins, called["calls"])
            return cost
        if op == "custom-call" and ins.gemm_config is None:
            self.custom_calls.append(ins.name)  # what it does is not known: no FLOPs
        cost.bytes = self._bytes(comp, ins)
        return cost

    def _operand_types(self, comp: Computation, ins: Instruction) -> list[list[str]]:
        named = self._named.setdefault(comp.name, comp.by_name())
        return [named[o].types if o in named else [] for o in ins.operands]

    def _flops(self, comp: Computation, ins: Instruction) -> tuple[float, float, str]:
        """(FLOPs, transcendentals, the dtype they run in) of the instruction itself."""
        op = ins.opcode
        out = ins.types[0] if ins.types else ""
        dtype = array_shape(out)[0]
        if op in ELEMENTWISE:
            n = float(sum(elements(t) for t in ins.types))
            return (0.0, n, dtype) if op in TRANSCENDENTAL else (n, 0.0, dtype)
        operands = self._operand_types(comp, ins)
        if op == "dot":
            lhs = operands[0][0] if operands and operands[0] else ""
            return (_dot_flops(out, lhs, ins.lhs_contracting_dims), 0.0,
                    _dot_dtype(ins, lhs, dtype))
        if op == "custom-call":
            return self._gemm(ins, operands, dtype)
        if op == "convolution":
            return self._convolution(ins, operands), 0.0, array_shape(
                operands[0][0] if operands and operands[0] else out)[0]
        if op in ("all-reduce", "all-reduce-start"):
            return float(sum(elements(t) for t in ins.types)), 0.0, dtype
        if op in ("reduce", "reduce-window", "scatter", "map", "select-and-scatter"):
            reducer = self._reducer(ins)
            if reducer is None:
                return 0.0, 0.0, dtype
            count = self._applications(ins, operands)
            return reducer.flops * count, reducer.transcendentals * count, dtype
        if op == "sort":
            n = elements(operands[0][0]) if operands and operands[0] else 0
            return float(n * max(0, math.ceil(math.log2(n))) if n > 1 else 0), 0.0, dtype
        if op in ("rng", "rng-bit-generator"):
            return 0.0, float(sum(elements(t) for t in ins.types)), dtype
        return 0.0, 0.0, dtype

    def _gemm(self, ins: Instruction, operands: list[list[str]],
              dtype: str) -> tuple[float, float, str]:
        """A cuBLAS gemm XLA:GPU made of a dot (``__cublas$gemm``, ``__cublas$lt$matmul``):
        the dot's ``2 * output elements * contracted size``, plus what its epilogue and
        ``beta`` fuse into it (a bias or the output added: one FLOP per output element, a
        ReLU one, a GELU one transcendental), as XLA counts those ops unfused. Any other
        custom call: nothing (XLA's own analysis does not know it either)."""
        config = ins.gemm_config
        if config is None or not ins.types:
            return 0.0, 0.0, dtype
        numbers = config.get("dot_dimension_numbers") or {}
        lhs = operands[0][0] if operands and operands[0] else ""
        try:
            contracted = [int(d) for d in numbers.get("lhs_contracting_dimensions", [])]
        except (TypeError, ValueError):
            return 0.0, 0.0, dtype
        out = elements(ins.types[0])
        flops, transcendentals = _dot_flops(ins.types[0], lhs, contracted), 0.0
        epilogue = str(config.get("epilogue", ""))
        flops += out * (("BIAS" in epilogue) + ("RELU" in epilogue))
        transcendentals += out * ("GELU" in epilogue)
        if config.get("beta") not in (None, 0, "0"):
            flops += out
        return flops, transcendentals, _dot_dtype(ins, lhs, dtype)

    def _reducer(self, ins: Instruction) -> Cost | None:
        for role, name in ins.called():
            if role == "to_apply" and name in self.module.computations:
                return self.computation(name)
        return None

    def _applications(self, ins: Instruction, operands: list[list[str]]) -> float:
        """How often a reduce / reduce-window / scatter / map applies its computation."""
        op = ins.opcode
        first_out = ins.types[0] if ins.types else ""
        first_in = operands[0][0] if operands and operands[0] else ""
        if op == "reduce":
            return float(elements(first_in) - elements(first_out))
        if op == "map":
            return float(elements(first_out))
        if op == "scatter":
            updates = operands[-1][0] if operands and operands[-1] else ""
            return float(elements(updates))
        if op == "reduce-window":
            return float(_window_reductions(ins.window, first_out))
        return 0.0

    def _convolution(self, ins: Instruction, operands: list[list[str]]) -> float:
        """``2 * output elements * input features / groups * kernel window`` (no padding
        correction: XLA counts only the window positions inside the input)."""
        lhs = array_shape(operands[0][0])[1] if operands and operands[0] else []
        rhs = array_shape(operands[1][0])[1] if len(operands) > 1 and operands[1] else []
        labels = ins.dim_labels
        if not lhs or not rhs or labels is None:
            return 0.0
        kernel = labels[1]
        in_feature = rhs[kernel.index("i")] if "i" in kernel else 1
        spatial = math.prod(rhs[k] for k, c in enumerate(kernel) if c not in "io")
        return 2.0 * elements(ins.types[0]) * in_feature * spatial

    # -- bytes ---------------------------------------------------------------- #

    def _bytes(self, comp: Computation, ins: Instruction) -> float:
        op = ins.opcode
        if op in NO_BYTES:
            return 0.0
        out = types_bytes(ins.types)
        operands = self._operand_types(comp, ins)
        if op == "tuple":
            return 8.0 * len(ins.types)  # the table of pointers XLA counts
        if op == "slice":
            return 2.0 * out
        if op == "dynamic-slice":
            return 2.0 * out + sum(types_bytes(t) for t in operands[1:])
        if op == "dynamic-update-slice":
            update = types_bytes(operands[1]) if len(operands) > 1 else 0
            return 2.0 * update + sum(types_bytes(t) for t in operands[2:])
        if op == "gather":
            return 2.0 * out + (types_bytes(operands[1]) if len(operands) > 1 else 0)
        if op == "scatter":
            updates = types_bytes(operands[-1]) if operands else 0
            indices = types_bytes(operands[len(operands) // 2]) if operands else 0
            return 3.0 * updates + indices
        if op.endswith("-done"):
            return 0.0
        if op == "custom-call" and ins.gemm_config is not None:
            # its result, not the cuBLAS workspace it returns beside it (scratch space)
            out = types_bytes(ins.types[:1])
        return float(out + sum(types_bytes(t) for t in operands))

    def _fusion_bytes(self, comp: Computation, ins: Instruction, fused: str) -> float:
        """A fusion's results written and operands read (slices read what they take)."""
        body = self.module.computations[fused]
        named = body.by_name()
        users: dict[str, list[Instruction]] = {}
        for inner in body.instructions:
            for o in inner.operands:
                users.setdefault(o, []).append(inner)
        root = next((i for i in body.instructions if i.root), None)
        written = 0.0
        roots = ([named[o] for o in root.operands if o in named]
                 if root is not None and root.opcode == "tuple" else [root])
        for r in roots:
            if r is None:
                continue
            if r.opcode == "dynamic-update-slice" and len(r.operands) > 1:
                written += types_bytes(named[r.operands[1]].types) if r.operands[1] in named \
                    else 0
            else:
                written += types_bytes(r.types)
        read = 0.0
        for param in (i for i in body.instructions if i.opcode == "parameter"):
            read += self._parameter_read(param, users, named)
        return written + read

    def _parameter_read(self, param: Instruction, users: dict[str, list[Instruction]],
                        named: dict[str, Instruction]) -> float:
        size = float(types_bytes(param.types))
        total = 0.0
        shared = False
        for user in users.get(param.name, []):
            op = user.opcode
            if op == "slice":
                total += types_bytes(user.types)
            elif op == "dynamic-slice":
                if user.operands and user.operands[0] == param.name:
                    total += types_bytes(user.types)
                elif not shared:
                    shared, total = True, total + size
            elif op == "dynamic-update-slice":
                if user.operands and user.operands[0] != param.name and not shared:
                    shared, total = True, total + size
            elif op in ("broadcast", "reshape"):
                total += size
            elif not shared:
                shared, total = True, total + size
        return total


def _dot_flops(out: str, lhs: str, contracted: list[int]) -> float:
    """XLA's count for a dot: ``2 * output elements * contracted size`` (the sizes of the
    left operand's ``contracted`` dimensions)."""
    dims = array_shape(lhs)[1]
    return 2.0 * elements(out) * math.prod(dims[d] for d in contracted if 0 <= d < len(dims))


#: A dot algorithm's primitive type -> the chip presets' peak for it (``f32``: true float32,
#: the peak of Precision.HIGHEST).
_ALGORITHM_PEAKS = {"any_f8": "fp8", "f32": "f32_highest"}


def _dot_dtype(ins: Instruction, lhs: str, dtype: str) -> str:
    """What a dot's FLOPs run at: its operands' type, and for f32 operands the precision
    it asks for above the default (``f32_high``, ``f32_highest``: the chip presets' peaks
    for them, e.g. six bf16 passes on a TPU, true f32 on a GPU). A dot with an algorithm
    (``precision="BF16_BF16_F32_X6"``) runs in the algorithm's type, as many times as it
    says: ``bf16_x6`` (the bf16 peak / 6)."""
    algorithm = ins.algorithm
    if algorithm is not None:
        kind, passes = algorithm
        kind = _ALGORITHM_PEAKS.get(kind, kind)
        return f"{kind}_x{passes}" if passes > 1 else kind
    kind = array_shape(lhs)[0] or dtype
    precision = ins.precision
    return f"{kind}_{precision}" if kind == "f32" and precision != "default" else kind


def _window_reductions(window_dims: list[tuple[int, int, int]], out: str) -> int:
    """``(window size - 1) * output elements``, XLA's count for a reduce-window (with its
    special case of a reduce broadcast back along one padded dimension, a cumulative sum)."""
    n_out = elements(out)
    if not window_dims:
        return 0
    sizes = [size for size, _, _ in window_dims]
    pads = [(lo, hi) for _, lo, hi in window_dims]
    window = math.prod(sizes)
    count = (window - 1) * n_out
    reduced = [k for k, s in enumerate(sizes) if s != 1]
    padded = [k for k, p in enumerate(pads) if p != (0, 0)]
    out_dims = array_shape(out)[1]
    if len(reduced) == 1 and len(padded) == 1 and out_dims:
        k = next((k for k, s in enumerate(sizes)
                  if s != 1 and pads[k][0] and pads[k][1] and pads[k][0] == pads[k][1]
                  and s == 2 * pads[k][0] + 1), None)
        if k is not None and pads[k][0] == out_dims[k] - 1:
            span = out_dims[k]
            count = n_out // span + span - 1
    return count
