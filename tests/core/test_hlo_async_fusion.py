"""A fusion XLA:GPU runs asynchronously costs what the fusion it calls moves.

In a scanned train step XLA:GPU takes each layer's slice of a stacked array, and
writes each layer's residual into one, with ``fusion-start`` / ``fusion-done`` pairs
around a dynamic-slice or dynamic-update-slice fusion. A ``fusion-start``'s type
repeats its operands beside its result, and jaxviz counted it as any instruction:
every operand read and every result written, the whole stacked array (3.2 GB for a
12-layer step's attention probabilities) twelve times over. On an NVIDIA H100 a
12-layer GPT train step run by ``lax.scan`` was projected at 90 ms at least, and ran
in 38 ms. The module below is XLA:GPU's own output (jax 0.11.2, an H100, 2026-11-27:
one such pair of that step, its metadata shortened, in a loop of XLA's own trip
count); the oracle is XLA's count for the same update compiled for the CPU, where it
is a plain fusion.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest
from jax import lax

from jaxviz.core.hlo_cost import CostModel
from jaxviz.core.hlo_program import read_module

ASYNC_UPDATE = """HloModule jit_train_step_scanned, is_scheduled=true

%fused_dynamic_update_slice.21.clone (param_0.666: f32[12,4,16,1024,1024], param_1.789: s32[], param_2.588: f32[4,16,1024,1024]) -> f32[12,4,16,1024,1024] {
  %param_0.666 = f32[12,4,16,1024,1024]{4,3,2,1,0} parameter(0), metadata={scheduling_name="param_0.666"}
  %param_2.588 = f32[4,16,1024,1024]{3,2,1,0} parameter(2), metadata={scheduling_name="param_2.588"}
  %bitcast.26.2 = f32[1,4,16,1024,1024]{4,3,2,1,0} bitcast(%param_2.588), metadata={op_name="jit(train_step_scanned)/jvp()/while/body/eval_jaxpr/exp" scheduling_name="bitcast.26.2" stack_frame_id=15}
  %param_1.789 = s32[] parameter(1), metadata={scheduling_name="param_1.789"}
  %constant_35_12_1 = s32[] constant(0), metadata={op_name="jit(train_step_scanned)/jvp()/while/body/jit(dynamic_index_in_dim)" stack_frame_id=11}
  ROOT %dynamic_update_slice.34.2 = f32[12,4,16,1024,1024]{4,3,2,1,0} dynamic-update-slice(%param_0.666, %bitcast.26.2, %param_1.789, %constant_35_12_1, %constant_35_12_1, /*index=5*/%constant_35_12_1, %constant_35_12_1), metadata={op_name="jit(train_step_scanned)/jvp()/while/body/jit(dynamic_update_index_in_dim)/dynamic_update_slice" scheduling_name="dynamic_update_slice.34.2" stack_frame_id=35}
}

%body (p: (s32[], f32[12,4,16,1024,1024], f32[4,16,1024,1024])) -> (s32[], f32[12,4,16,1024,1024], f32[4,16,1024,1024]) {
  %p = (s32[], f32[12,4,16,1024,1024]{4,3,2,1,0}, f32[4,16,1024,1024]{3,2,1,0}) parameter(0)
  %get-tuple-element.205 = s32[] get-tuple-element(%p), index=0
  %get-tuple-element.214 = f32[12,4,16,1024,1024]{4,3,2,1,0} get-tuple-element(%p), index=1
  %fusion.155 = f32[4,16,1024,1024]{3,2,1,0} get-tuple-element(%p), index=2
  %fusion-start.28 = ((f32[12,4,16,1024,1024]{4,3,2,1,0}, s32[], f32[4,16,1024,1024]{3,2,1,0}), f32[12,4,16,1024,1024]{4,3,2,1,0}, u32[]) fusion-start(%get-tuple-element.214, %get-tuple-element.205, %fusion.155), kind=kLoop, calls=%fused_dynamic_update_slice.21.clone, metadata={op_name="jit(train_step_scanned)/jvp()/while/body/jit(dynamic_update_index_in_dim)/dynamic_update_slice" scheduling_name="fusion-start.28" stack_frame_id=35}, backend_config={"device_type":"DEVICE_TYPE_INVALID","force_earliest_schedule":false,"native_emitter_backend_config":{"type":"NATIVE_EMITTER_TYPE_INVALID","unroll_factor":0},"operation_queue_id":"0","reification_cost":[]}
  %fusion-done.28 = f32[12,4,16,1024,1024]{4,3,2,1,0} fusion-done(%fusion-start.28), metadata={op_name="jit(train_step_scanned)/jvp()/while/body/jit(dynamic_update_index_in_dim)/dynamic_update_slice" scheduling_name="fusion-done.28" stack_frame_id=35}, backend_config={"device_type":"DEVICE_TYPE_INVALID","force_earliest_schedule":false,"native_emitter_backend_config":{"type":"NATIVE_EMITTER_TYPE_INVALID","unroll_factor":0},"operation_queue_id":"0","reification_cost":[]}
  ROOT %t = (s32[], f32[12,4,16,1024,1024]{4,3,2,1,0}, f32[4,16,1024,1024]{3,2,1,0}) tuple(%get-tuple-element.205, %fusion-done.28, %fusion.155)
}

%cond (c: (s32[], f32[12,4,16,1024,1024], f32[4,16,1024,1024])) -> pred[] {
  %c = (s32[], f32[12,4,16,1024,1024]{4,3,2,1,0}, f32[4,16,1024,1024]{3,2,1,0}) parameter(0)
  ROOT %false = pred[] constant(false)
}

ENTRY %main (stack: f32[12,4,16,1024,1024], i: s32[], x: f32[4,16,1024,1024]) -> f32[12,4,16,1024,1024] {
  %i = s32[] parameter(1)
  %stack = f32[12,4,16,1024,1024]{4,3,2,1,0} parameter(0)
  %x = f32[4,16,1024,1024]{3,2,1,0} parameter(2)
  %init = (s32[], f32[12,4,16,1024,1024]{4,3,2,1,0}, f32[4,16,1024,1024]{3,2,1,0}) tuple(%i, %stack, %x)
  %while.36 = (s32[], f32[12,4,16,1024,1024]{4,3,2,1,0}, f32[4,16,1024,1024]{3,2,1,0}) while(%init), condition=%cond, body=%body, backend_config={"known_trip_count":{"n":"12"}}
  ROOT %out = f32[12,4,16,1024,1024]{4,3,2,1,0} get-tuple-element(%while.36), index=1
}
"""

STACK = jax.ShapeDtypeStruct((12, 4, 16, 1024, 1024), jnp.float32)
LAYER = jax.ShapeDtypeStruct((4, 16, 1024, 1024), jnp.float32)


def _xla_update_bytes() -> float:
    """XLA's own count (CPU) for writing one layer into the stack in place."""
    def update(stack, i, x):
        return lax.dynamic_update_index_in_dim(stack, x, i, 0)

    compiled = jax.jit(update, donate_argnums=0).lower(
        STACK, jax.ShapeDtypeStruct((), jnp.int32), LAYER).compile()
    analysis = compiled.cost_analysis()
    analysis = analysis[0] if isinstance(analysis, list) else analysis
    return float(analysis["bytes accessed"])


def _body_instruction(model: CostModel, name: str):
    body = model.module.computations["body"]
    return model.instruction(body, body.by_name()[name])


def test_an_async_update_moves_the_layer_not_the_stack():
    model = CostModel(read_module(ASYNC_UPDATE))
    start = _body_instruction(model, "fusion-start.28")
    xla = _xla_update_bytes()
    # XLA counts the layer read and written (2 x 256 MiB); jaxviz also the s32 index
    assert start.bytes == pytest.approx(xla, abs=4)
    assert xla == 2 * 4 * LAYER.size
    assert _body_instruction(model, "fusion-done.28").bytes == 0


def test_the_scan_moves_it_once_a_layer():
    xla = _xla_update_bytes()
    assert CostModel(read_module(ASYNC_UPDATE)).program().bytes == pytest.approx(
        12 * xla, rel=1e-6)
    once = CostModel(read_module(ASYNC_UPDATE), loops="once").program()
    assert once.bytes == pytest.approx(xla, rel=1e-6)
