"""The trace settings, once: what the user types besides the code.

One row per setting of :class:`~jaxviz.model.records.TraceSettings`: its
default, what kind of value it takes, the command-line flag and its help, the
arguments panel's label, placeholder and tooltip, and whether a lecture step's
``[step.options]`` may set it. The record's defaults, argparse
(:func:`jaxviz.cli.options.add_target_options`), the request builders
(:func:`settings_values`, used by the window, the CLI and the lecture deck), the
arguments panel (:mod:`jaxviz.ui.panels.args`) and the lecture format
(:data:`LECTURE_OPTIONS`) are all made from :data:`TRACE_SETTINGS`.

The rows are in the order the panel shows them (and ``--help`` lists them).
Cross-field checks (an ``in_axes`` per argument, a mesh that fits the devices)
stay in :func:`jaxviz.views.window.window_state.find_field_errors`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

#: How a setting's value is typed: ``spec`` an argument spec (any text), ``text`` one line
#: of text, ``axis`` an axis name (an identifier), ``count`` a whole number within
#: :data:`jaxviz.model.limits.BATCH` (None: the default), ``flag`` on or off, ``list`` one
#: line of text that may be given several times (joined by ``", "``).
Kind = Literal["spec", "text", "axis", "count", "flag", "list"]

#: The mapped axis collectives use when the user names none.
_AXIS = "i"


@dataclass(frozen=True)
class TraceSetting:
    """One trace setting.

    Attributes:
        name: the field of :class:`~jaxviz.model.records.TraceSettings`.
        default: its value when the user gives none (``None``: decided downstream, e.g.
            the batch is the device count).
        kind: how its value is typed (:data:`Kind`).
        metavar: what the command line calls its value.
        help: the ``--help`` text for its flag.
        label: the arguments panel's label.
        tooltip: what the panel's field says on hover.
        placeholder: what the panel's empty text field shows (text settings only).
        lecture: a lecture step's ``[step.options]`` may set it.
    """

    name: str
    default: Any
    kind: Kind
    metavar: str
    help: str
    label: str
    tooltip: str
    placeholder: str = ""
    lecture: bool = False

    @property
    def flag(self) -> str:
        """The command-line option (``--axis-name`` for ``axis_name``)."""
        return "--" + self.name.replace("_", "-")

    @property
    def typed_as_text(self) -> bool:
        """Whether the value is text (checked by the field checks), not a number or flag."""
        return self.kind not in ("count", "flag")


TRACE_SETTINGS: tuple[TraceSetting, ...] = (
    TraceSetting(
        "args", None, "spec", "SPEC",
        help="arguments of one unbatched call, e.g. \"f32[5], f32[3]\" or "
             "\"jnp.arange(5.), init(jax.random.key(0))\"",
        label="Args", placeholder="f32[5], f32[3]  or  x, w",
        tooltip="The arguments of one call, as abstract types (f32[5]) or Python "
                "expressions evaluated in the file (jnp.arange(5.)).",
        lecture=True),
    TraceSetting(
        "batch", None, "count", "B",
        help="batch size for vmap/pmap/sharding (default: the device count)",
        label="Batch",
        tooltip="Batch size for vmap, pmap and sharding (default: the device count).",
        lecture=True),
    TraceSetting(
        "batched_args", None, "text", "SPEC",
        help="already-batched arguments for vmap/pmap/sharded/shard_map "
             "(default: built from --args with a batch axis per --in-axes)",
        label="Batched", placeholder="from the arguments",
        tooltip="Already-batched arguments for vmap, pmap and the sharded variants "
                "(default: the arguments with a batch axis added).",
        lecture=True),
    TraceSetting(
        "in_axes", None, "text", "AXES",
        help="batch axis of each argument, e.g. \"0, None\" (default 0)",
        label="in_axes", placeholder="0 for every argument",
        tooltip="The batch axis of each argument for vmap and pmap, e.g. 0, None.",
        lecture=True),
    TraceSetting(
        "axis_name", _AXIS, "axis", "NAME",
        help=f"name of the mapped axis that collectives use (default {_AXIS})",
        label="Axis", placeholder=_AXIS,
        tooltip="The name collectives (psum, all_gather ...) use for the mapped axis.",
        lecture=True),
    TraceSetting(
        "mesh", None, "text", "MESH",
        help="device mesh for sharded/shard_map, e.g. \"data=4,model=2\"",
        label="Mesh", placeholder=f"{_AXIS}=<devices>",
        tooltip="Device mesh axes and sizes for the sharded and shard_map variants, "
                "e.g. data=4,model=2.",
        lecture=True),
    TraceSetting(
        "specs", None, "text", "SPECS",
        help="a PartitionSpec per argument, e.g. \"P('data', None), P()\"",
        label="Specs", placeholder=f"P({_AXIS!r}) per argument",
        tooltip="A PartitionSpec per argument, e.g. P('data', None), P(None, 'model').",
        lecture=True),
    TraceSetting(
        "out_specs", None, "text", "SPECS",
        help="output PartitionSpecs: shard_map's out_specs (default: inferred) and the "
             "sharded variant's out_shardings",
        label="Out specs", placeholder="inferred",
        tooltip="The output PartitionSpecs: shard_map's out_specs and the sharded "
                "variant's out_shardings.",
        lecture=True),
    TraceSetting(
        "out_axes", None, "text", "AXES",
        help="vmap's out_axes, e.g. 1, or \"0, None\" for two outputs",
        label="out_axes", placeholder="0",
        tooltip="vmap's out_axes, e.g. 1, or 0, None for two outputs."),
    TraceSetting(
        "static", None, "list", "NAME=VALUE",
        help="a static argument, passed by name and never traced (repeat the flag, or "
             "\"n=3, mode='sum'\"); also: name=value in --args",
        label="Static", placeholder="n=3",
        tooltip="Static arguments, by name, never traced: n=3, mode='sum' "
                "(also name=value in Args)."),
    TraceSetting(
        "devices_order", None, "text", "IDS",
        help="the device ids the mesh (and pmap) uses, in order, e.g. \"0,2,4,6,1,3,5,7\" "
             "(default: JAX's order)",
        label="Device order", placeholder="JAX's order",
        tooltip="The device ids the mesh (and pmap) uses, in order, e.g. 0,2,4,6,1,3,5,7."),
    TraceSetting(
        "check_vma", True, "flag", "",
        help="shard_map's check_vma (default: on, or the example's setting); "
             "--no-check-vma traces shard_map as pmap does, without varying-axes types "
             "(no psum_invariant)",
        label="shard_map",
        tooltip="shard_map's check_vma: JAX tracks which mesh axes each value varies over "
                "(psum_invariant, pvary and {V:axis} in the jaxpr). With it, jax.grad with "
                "respect to an argument replicated by P() sums its gradient over the mesh "
                "axis. Off: shard_map is traced as pmap traces it.",
        lecture=True),
    TraceSetting(
        "axis_types", None, "text", "TYPES",
        help="the mesh axes' types: explicit or auto (default), or one per axis, e.g. "
             "\"explicit,auto\"; under an explicit mesh the variants run inside "
             "jax.set_mesh and types carry their sharding",
        label="Mesh axes",
        tooltip="The mesh axes' type. auto: jit's shardings tell the compiler where the "
                "inputs live and it decides the rest; types carry no sharding. explicit: the "
                "sharding is part of every type (f32[4@X,8]), computed by JAX at trace time, "
                "and every variant but pmap runs inside jax.set_mesh(mesh)."),
)

#: The settings by name.
SETTINGS: dict[str, TraceSetting] = {s.name: s for s in TRACE_SETTINGS}
#: The settings typed as text, in table order (the fields the field checks parse).
TEXT_SETTINGS: tuple[str, ...] = tuple(s.name for s in TRACE_SETTINGS if s.typed_as_text)
#: The settings a lecture step's ``[step.options]`` may set.
LECTURE_OPTIONS: tuple[str, ...] = tuple(s.name for s in TRACE_SETTINGS if s.lecture)
#: The mapped axis collectives use when none is named.
DEFAULT_AXIS_NAME: str = SETTINGS["axis_name"].default


def default(name: str) -> Any:
    """The default value of the setting ``name``."""
    return SETTINGS[name].default


def settings_values(values: Mapping[str, Any]) -> dict[str, Any]:
    """Every trace setting from a mapping holding some of them, by name.

    A setting that is missing, ``None`` or empty text takes its default (``args``
    has none: it is ``""``); keys that are not settings are ignored. This is how the
    window, the command line and the lecture deck fill in what was not given.
    """
    out: dict[str, Any] = {}
    for setting in TRACE_SETTINGS:
        value = values.get(setting.name)
        if value is None or value == "":
            value = "" if setting.name == "args" else setting.default
        out[setting.name] = value
    return out


def fits_kind(setting: TraceSetting, value: Any) -> bool:
    """Whether ``value``, as a settings file writes it (a lecture's ``[step.options]``, a
    file's ``JAXVIZ`` dict), is of the type ``setting``'s kind takes: True or False for a
    flag, a whole number within :data:`~jaxviz.model.limits.BATCH` for a count, one string
    or a list of them for a list, a string otherwise. (Whether the text parses is the
    fields' own check: :func:`jaxviz.views.window.window_state.find_field_errors`.)"""
    from jaxviz.model.limits import BATCH

    if setting.kind == "flag":
        return isinstance(value, bool)
    if setting.kind == "count":
        return isinstance(value, int) and not isinstance(value, bool) and BATCH.contains(value)
    if setting.kind == "list":
        return isinstance(value, str) or (isinstance(value, (list, tuple))
                                          and all(isinstance(v, str) for v in value))
    return isinstance(value, str)
