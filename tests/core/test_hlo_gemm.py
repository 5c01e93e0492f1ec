"""A dot XLA:GPU hands to cuBLAS is costed as the dot it is.

On a GPU, XLA compiles most dots to a ``__cublas$lt$matmul`` custom call whose
``gemm_backend_config`` holds the dot's dimension numbers and what it fuses in
(an ``epilogue`` such as a bias). XLA's own ``cost_analysis()`` counts such a call
as nothing (it returned -1 on an H200 for a bf16 matmul), and jaxviz counted it as
no FLOPs too: a matmul on a GPU was projected 12 times too fast. The two modules
below are XLA:GPU's own output (jax 0.11.2 on an NVIDIA H200, 2026-11-26; the first
verbatim but for its source table, the second one instruction of a train step's
module); the oracle is XLA's count for the same computation compiled for the CPU,
where the dot stays a ``dot`` and the bias an ``add`` (in f32: on the CPU, XLA turns a
bf16 dot into converts around an f32 one, and counts the converts too).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest

from jaxviz.core.hlo_cost import CostModel
from jaxviz.core.hlo_program import read_module

_CONFIG = ('backend_config={{"device_type":"DEVICE_TYPE_INVALID","force_earliest_schedule":'
           'false,"gemm_backend_config":{{"alpha_imag":0,"alpha_real":1,'
           '"autotune_workspace_size":"33554432","beta":0,"damax_output":false,'
           '"dot_dimension_numbers":{{"lhs_batch_dimensions":[],'
           '"lhs_contracting_dimensions":["1"],"rhs_batch_dimensions":[],'
           '"rhs_contracting_dimensions":["0"]}},"epilogue":"{epilogue}","grad_x":false,'
           '"grad_y":false,"lhs_stride":"67108864","precision_config":{{"algorithm":'
           '"ALG_UNSET","operand_precision":["DEFAULT","DEFAULT"]}},"rhs_stride":"67108864",'
           '"scale_mode":0,"selected_algorithm":"1"}},"operation_queue_id":"0",'
           '"reification_cost":[]}}')

MATMUL = """HloModule jit_matmul, is_scheduled=true

ENTRY %main.1 (a.1: bf16[8192,8192], b.1: bf16[8192,8192]) -> bf16[8192,8192] {
  %b.1 = bf16[8192,8192]{1,0} parameter(1), metadata={op_name="b" scheduling_name="b.1"}
  %a.1 = bf16[8192,8192]{1,0} parameter(0), metadata={op_name="a" scheduling_name="a.1"}
  %custom-call.1 = (bf16[8192,8192]{1,0}, s8[33554432]{0}) custom-call(%a.1, %b.1), custom_call_target="__cublas$lt$matmul", metadata={op_name="jit(matmul)/dot_general" scheduling_name="custom-call.1" stack_frame_id=5}, """ + _CONFIG.format(epilogue="DEFAULT") + """
  ROOT %get-tuple-element = bf16[8192,8192]{1,0} get-tuple-element(%custom-call.1), index=0
}
"""

BIAS = """HloModule jit_mlp, is_scheduled=true

ENTRY %main.26 (b.1: bf16[2048], w.1: bf16[2048,2048], x.1: bf16[8192,2048]) -> bf16[8192,2048] {
  %b.1 = bf16[2048]{0} parameter(0)
  %w.1 = bf16[2048,2048]{1,0} parameter(1)
  %x.1 = bf16[8192,2048]{1,0} parameter(2)
  %cublas-lt-matmul.1 = (bf16[8192,2048]{1,0}, s8[33554432]{0}) custom-call(%x.1, %w.1, %b.1), custom_call_target="__cublas$lt$matmul", metadata={op_name="jit(mlp_train_step)/jvp()/dot_general" scheduling_name="cublas-lt-matmul.1" stack_frame_id=8}, """ + _CONFIG.format(epilogue="BIAS") + """
  ROOT %get-tuple-element = bf16[8192,2048]{1,0} get-tuple-element(%cublas-lt-matmul.1), index=0
}
"""


def _xla_on_cpu(f, *shapes) -> dict:
    args = [jax.ShapeDtypeStruct(s, jnp.float32) for s in shapes]
    analysis = jax.jit(f).lower(*args).compile().cost_analysis()
    return analysis[0] if isinstance(analysis, list) else analysis


def test_a_cublas_matmul_costs_the_dot_it_was_made_of():
    model = CostModel(read_module(MATMUL))
    cost = model.program()
    xla = _xla_on_cpu(lambda a, b: a @ b, (8192, 8192), (8192, 8192))
    assert cost.flops == xla["flops"] == 2 * 8192 ** 3
    assert cost.flops_by_dtype == {"bf16": cost.flops}
    # what the dot reads and writes, not the cuBLAS workspace returned beside it
    assert cost.bytes == xla["bytes accessed"] / 2 == 3 * 8192 * 8192 * 2  # bf16, not f32
    assert model.custom_calls == []  # known now: no "costed as nothing" note


def test_a_fused_bias_counts_as_the_add_it_replaces():
    cost = CostModel(read_module(BIAS)).program()
    xla = _xla_on_cpu(lambda x, w, b: x @ w + b, (8192, 2048), (2048, 2048), (2048,))
    assert cost.flops == xla["flops"] == 2 * 8192 * 2048 * 2048 + 8192 * 2048


def test_another_custom_call_is_still_named_as_not_costed():
    text = MATMUL.replace("__cublas$lt$matmul", "my_kernel")
    model = CostModel(read_module(text))
    assert model.program().flops == 0
    assert model.custom_calls == ["custom-call.1"]


def _dot_cost(precision):
    a = jax.ShapeDtypeStruct((256, 128), jnp.float32)
    b = jax.ShapeDtypeStruct((128, 64), jnp.float32)
    text = jax.jit(lambda x, y: jnp.dot(x, y, precision=precision)).lower(a, b).compile() \
        .as_text()
    return CostModel(read_module(text)).program()


def test_an_f32_dot_runs_at_the_peak_of_the_precision_it_asks_for():
    """jax.lax.Precision: DEFAULT is one bf16 pass on a TPU and TF32 on a GPU; HIGH three
    bf16 passes / TF32; HIGHEST six bf16 passes / true f32 (docs.jax.dev, Matmul
    precision). The compiled dot keeps the precision asked for (``operand_precision``),
    and its FLOPs are projected at that precision's peak."""
    from jaxviz.model.chips import find_chip
    from jaxviz.model.cost_model import compute_time

    flops = 2 * 256 * 128 * 64
    for precision, key in ((None, "f32"), ("high", "f32_high"), ("highest", "f32_highest")):
        assert _dot_cost(precision).flops_by_dtype == {key: flops}
    with jax.default_matmul_precision("highest"):  # the global setting, as users set it
        assert _dot_cost(None).flops_by_dtype == {"f32_highest": flops}
    tpu, gpu = find_chip("tpu-v5e"), find_chip("h100")
    assert compute_time(tpu, {"f32_highest": flops}).value == pytest.approx(
        6 * compute_time(tpu, {"bf16": flops}).value, rel=0.01)
    assert compute_time(tpu, {"f32_high": flops}).value == pytest.approx(
        3 * compute_time(tpu, {"bf16": flops}).value, rel=0.01)
    assert compute_time(gpu, {"f32_high": flops}).value == compute_time(
        gpu, {"f32": flops}).value  # TF32 either way
    assert compute_time(gpu, {"f32_highest": flops}).value == pytest.approx(flops / 6.7e13)
    # a chip without a figure for it says which peak it used
    b200 = find_chip("b200")
    assert "f32_highest at the f32 peak" in compute_time(b200, {"f32_highest": flops}).formula


def test_a_cublas_call_keeps_the_precision_its_dot_asked_for():
    highest = MATMUL.replace('"operand_precision":["DEFAULT","DEFAULT"]',
                             '"operand_precision":["HIGHEST","HIGHEST"]').replace(
        "bf16[8192", "f32[8192")
    cost = CostModel(read_module(highest)).program()
    assert cost.flops_by_dtype == {"f32_highest": 2 * 8192 ** 3}


@pytest.mark.parametrize("preset, key, passes", [
    ("BF16_BF16_F32", "bf16", 1),
    ("BF16_BF16_F32_X3", "bf16", 3),
    ("BF16_BF16_F32_X6", "bf16", 6),
    ("F32_F32_F32", "f32_highest", 1),
])
def test_a_dot_algorithm_runs_in_its_type_as_many_times_as_it_says(preset, key, passes):
    """A dot asked for an algorithm (``precision="BF16_BF16_F32_X6"``) keeps it in the
    compiled program (``algorithm=dot_bf16_bf16_f32_x6``); XLA names algorithms
    DOT_{A}_{B}_{ACCUM}[_X{NUM_OPS}], NUM_OPS primitive dots of type A per dot
    (xla_data.proto). Its FLOPs (XLA's own count on the CPU) are projected at the
    peak of type A divided by NUM_OPS -- not at the f32 operands' peak."""
    from jaxviz.model.chips import find_chip
    from jaxviz.model.cost_model import compute_time

    a = jax.ShapeDtypeStruct((256, 128), jnp.float32)
    b = jax.ShapeDtypeStruct((128, 64), jnp.float32)
    compiled = jax.jit(lambda x, y: jnp.dot(x, y, precision=preset)).lower(a, b).compile()
    assert f"algorithm=dot_{preset.lower()}" in compiled.as_text()
    xla = compiled.cost_analysis()
    xla = xla[0] if isinstance(xla, list) else xla
    cost = CostModel(read_module(compiled.as_text())).program()
    shown = key if passes == 1 else f"{key}_x{passes}"
    assert cost.flops_by_dtype == {shown: pytest.approx(xla["flops"])}
    for chip in ("tpu-v5e", "h100"):
        spec = find_chip(chip)
        peak = spec.flops[key] if key in spec.flops else spec.flops["bf16"]
        assert compute_time(spec, cost.flops_by_dtype).value == pytest.approx(
            xla["flops"] / (peak / passes))
        if passes > 1 and key in spec.flops:  # the formula says how it runs
            assert f"({key}, {passes} passes)" in compute_time(spec, cost.flops_by_dtype).formula


def test_a_cublas_call_keeps_the_algorithm_its_dot_asked_for():
    x6 = MATMUL.replace('"algorithm":"ALG_UNSET"', '"algorithm":"ALG_DOT_BF16_BF16_F32_X6"') \
        .replace("bf16[8192", "f32[8192")
    assert CostModel(read_module(x6)).program().flops_by_dtype == {"bf16_x6": 2 * 8192 ** 3}


X9 = """HloModule jit_mm_bf16_x9, is_scheduled=true

%gemm_fusion_dot_general.1_computation (parameter_0: f32[8192,8192], parameter_1: f32[8192,8192]) -> f32[8192,8192] {
  %parameter_0 = f32[8192,8192]{1,0} parameter(0), metadata={scheduling_name="parameter_0"}
  %parameter_1 = f32[8192,8192]{1,0} parameter(1), metadata={scheduling_name="parameter_1"}
  ROOT %dot_general.0 = f32[8192,8192]{1,0} dot(%parameter_0, %parameter_1), lhs_contracting_dims={1}, rhs_contracting_dims={0}, algorithm=dot_bf16_bf16_f32_x9, metadata={op_name="jit(mm_bf16_x9)/dot_general" scheduling_name="dot_general.0" stack_frame_id=3}, backend_config={"sizes":["32"]}
}

ENTRY %main.1 (a.1: f32[8192,8192], b.1: f32[8192,8192]) -> f32[8192,8192] {
  %b.1 = f32[8192,8192]{1,0} parameter(1), metadata={op_name="b" scheduling_name="b.1"}
  %a.1 = f32[8192,8192]{1,0} parameter(0), metadata={op_name="a" scheduling_name="a.1"}
  ROOT %gemm_fusion_dot_general.1 = f32[8192,8192]{1,0} fusion(%a.1, %b.1), kind=kCustom, calls=%gemm_fusion_dot_general.1_computation, metadata={op_name="jit(mm_bf16_x9)/dot_general" scheduling_name="gemm_fusion_dot_general.1" stack_frame_id=3}, backend_config={"device_type":"DEVICE_TYPE_INVALID","force_earliest_schedule":false,"fusion_backend_config":{"block_level_fusion_config":{"group_size":0,"is_tma_allowed":false,"is_warp_specialization_allowed":false,"num_ctas":1,"num_stages":3,"num_tiles_per_pid":0,"num_warps":"2","output_tiles":[{"sizes":["128","64"]}],"waves_per_eu":0},"kind":"__triton_nested_gemm_fusion"},"operation_queue_id":"0","reification_cost":[]}
}
"""

#: The real run of X9 on an NVIDIA H100 (jax 0.11.2, 2026-11-27): best of 20 calls on
#: random f32 operands, twice (6.97 and 6.85 ms).
X9_MEASURED_S = 6.85e-3


def test_a_gpu_chip_may_run_an_algorithm_faster_than_its_passes_say(tmp_path):
    """XLA:GPU compiles ``precision="BF16_BF16_F32_X9"`` to one Triton kernel (the module
    above, verbatim but for its source table); an H100 ran it in 6.85 ms, where nine
    passes at the bf16 peak take 10 ms: "at least 10 ms" was false. A chip may give an
    algorithm a figure of its own (the GPU presets do, from that run), and the
    projection is then at most the real run; a chip without one keeps type A's peak / N."""
    from jaxviz.model.chips import find_chip
    from jaxviz.model.cost_model import compute_time

    cost = CostModel(read_module(X9)).program()
    assert cost.flops_by_dtype == {"bf16_x9": 2 * 8192 ** 3}
    h100 = compute_time(find_chip("h100"), cost.flops_by_dtype)
    assert h100.value <= X9_MEASURED_S
    assert "(bf16, 9 passes)" in h100.formula
    own = tmp_path / "chips.toml"
    own.write_text('[gpu]\nname = "mine"\nfamily = "gpu"\nflops = { bf16 = 1e15 }\n'
                   'hbm_bytes = 1e11\nhbm_bandwidth = 1e12\nlink_bandwidth = 1e11\n'
                   'hop_latency = 1e-6\nnvlink_domain = 8\nnetwork_bandwidth = 1e11\n')
    mine = find_chip("gpu", own)
    assert compute_time(mine, cost.flops_by_dtype).value == pytest.approx(
        2 * 8192 ** 3 / (1e15 / 9))
