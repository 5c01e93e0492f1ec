# What jaxviz.model exports, for type checkers and for the lazy loader: __init__.py
# reads these imports (lazy_loader.attach_stub) and loads each module on first use.

from .calibration import CalibrationRequest, CalibrationResult
from .call_code import CallCode
from .engine import DevicesRequest, EngineEvent, EngineInfo, Reply
from .gallery import Example, GalleryError, get_example, list_examples, list_functions
from .notes import NOTE_KINDS, VariantNote
from .records import (
    SCHEMA_VERSION,
    VARIANTS,
    ArrayLayout,
    DeviceInfo,
    Equation,
    ErrorInfo,
    MeshInfo,
    SchemaMismatch,
    ShardInfo,
    SourceSpan,
    SubJaxpr,
    Target,
    TraceRequest,
    TraceResult,
    TraceSettings,
    VariantResult,
    VarInfo,
    from_plain,
    register,
    to_plain,
    variant_label,
)
from .specs import SpecError
from .stepping import StepRequest, StepResult
from .storyboard import (
    ArrayTiles,
    CollectiveOp,
    Enclosing,
    Step,
    Storyboard,
    StoryPhase,
    Tile,
    VmapBatch,
)
from .timing import TimingRequest, TimingRun
from .what_if import WhatIfRequest, WhatIfResult

__all__ = [
    "ArrayLayout", "ArrayTiles", "CalibrationRequest", "CalibrationResult", "CallCode",
    "CollectiveOp", "DeviceInfo", "DevicesRequest", "Enclosing", "EngineEvent", "EngineInfo",
    "Equation", "ErrorInfo", "Example", "from_plain", "GalleryError", "get_example",
    "list_examples", "list_functions", "MeshInfo", "NOTE_KINDS", "register", "Reply",
    "SCHEMA_VERSION", "SchemaMismatch", "ShardInfo", "SourceSpan", "SpecError", "Step",
    "StepRequest", "StepResult", "Storyboard", "StoryPhase", "SubJaxpr", "Target", "Tile",
    "TimingRequest", "TimingRun", "to_plain", "TraceRequest", "TraceResult", "TraceSettings",
    "variant_label", "VariantNote", "VariantResult", "VARIANTS", "VarInfo", "VmapBatch",
    "WhatIfRequest", "WhatIfResult",
]
