"""Plain records shared by every layer: no JAX, no Qt.

The public surface is re-exported here; the modules behind it are
:mod:`~jaxviz.model.records` (requests and results, with a versioned plain-data
codec), :mod:`~jaxviz.model.specs` (parsers for what users type) and
:mod:`~jaxviz.model.gallery` (the example gallery, read without executing it),
:mod:`~jaxviz.model.stepping` (the jaxpr stepper's request, steps and values) and
:mod:`~jaxviz.model.value_text` (stepped values as text).
"""

from jaxviz.model.engine import DevicesRequest, EngineEvent, EngineInfo, Reply
from jaxviz.model.gallery import Example, GalleryError, get_example, list_examples, list_functions
from jaxviz.model.records import (
    SCHEMA_VERSION, VARIANTS, ArrayLayout, DeviceInfo, Equation, ErrorInfo, MeshInfo,
    SchemaMismatch, ShardInfo, SourceSpan, SubJaxpr, Target, TraceRequest, TraceResult,
    VariantResult, VarInfo, from_plain, register, to_plain,
)
from jaxviz.model.specs import SpecError
from jaxviz.model.stepping import StepRequest, StepResult  # registers the stepping records
from jaxviz.model.timing import TimingRequest, TimingRun  # registers the timing records

__all__ = [
    "SCHEMA_VERSION", "VARIANTS", "ArrayLayout", "DeviceInfo", "Equation", "ErrorInfo",
    "Example", "GalleryError", "MeshInfo", "SchemaMismatch", "ShardInfo", "SourceSpan",
    "SpecError", "SubJaxpr", "Target", "TraceRequest", "TraceResult", "VariantResult",
    "VarInfo", "from_plain", "get_example", "list_examples", "list_functions", "register",
    "to_plain",
]
__all__ += ["DevicesRequest", "EngineEvent", "EngineInfo", "Reply"]
__all__ += ["StepRequest", "StepResult"]
__all__ += ["TimingRequest", "TimingRun"]
