"""Plain records shared by every layer: no JAX, no Qt.

The public surface is re-exported here. The modules behind it:

* records, engine, timing: requests and results (with a versioned plain-data
  codec), the engine's records, the timing records; :class:`TraceSettings`,
  declared once for examples, requests and the window;
* specs, sizes, limits, sources, errors: parsers for what users type (and the
  range of every number), target resolution (reading files, never running
  them), errors that say what and where;
* gallery: the example gallery, read without executing it;
* timing_stats, timing_export, timing_options, exports: captions and figures from
  a timing run, its data files, the timing view's settings, the export registry;
* changes, link_index, lexers: what changed between variants, which jaxpr lines
  came from which source line, Pygments lexers for jaxprs and HLO;
* palette: every colour, as plain data; window_state: what the window shows;
  screen_fit: where the first window goes on a screen and its layout;
  entry_points: which function a file opens on, and argument specs from annotations;
* storyboard: what every device holds and runs, read from the compiled program;
* stepping, value_text: the jaxpr stepper's request, steps and values, and those
  values as text;
* notes, call_code: what a variant computes differently and why (computed notes),
  and its call as Python that runs as written ("Copy as code").

May import: nothing of jaxviz but itself (mypy strict; import-linter keeps JAX and
Qt out).
"""

from jaxviz.model.calibration import CalibrationRequest, CalibrationResult  # noqa: F401 (registers them)
from jaxviz.model.call_code import CallCode
from jaxviz.model.engine import DevicesRequest, EngineEvent, EngineInfo, Reply
from jaxviz.model.gallery import Example, GalleryError, get_example, list_examples, list_functions
from jaxviz.model.notes import NOTE_KINDS, VariantNote
from jaxviz.model.records import (
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
from jaxviz.model.specs import SpecError
from jaxviz.model.stepping import StepRequest, StepResult  # registers the stepping records
from jaxviz.model.storyboard import (
    ArrayTiles,
    CollectiveOp,
    Enclosing,
    Step,
    Storyboard,
    StoryPhase,
    Tile,
    VmapBatch,
)
from jaxviz.model.timing import TimingRequest, TimingRun  # registers the timing records

__all__ = [
    "SCHEMA_VERSION", "VARIANTS", "ArrayLayout", "DeviceInfo", "Equation", "ErrorInfo",
    "Example", "GalleryError", "MeshInfo", "SchemaMismatch", "ShardInfo", "SourceSpan",
    "SpecError", "SubJaxpr", "Target", "TraceRequest", "TraceResult", "TraceSettings",
    "VariantResult",
    "VarInfo", "from_plain", "get_example", "list_examples", "list_functions", "register",
    "to_plain", "variant_label",
]
__all__ += ["DevicesRequest", "EngineEvent", "EngineInfo", "Reply"]
__all__ += ["StepRequest", "StepResult"]
__all__ += ["TimingRequest", "TimingRun"]
__all__ += ["NOTE_KINDS", "CallCode", "VariantNote"]
__all__ += ["ArrayTiles", "CollectiveOp", "Enclosing", "Step", "StoryPhase", "Storyboard", "Tile",
            "VmapBatch"]

from jaxviz.model.what_if import WhatIfRequest, WhatIfResult  # noqa: E402, F401 (registers them)
