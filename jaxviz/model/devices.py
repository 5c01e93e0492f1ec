"""Facts about devices and meshes, shared by trace results and storyboards."""

from __future__ import annotations

from dataclasses import dataclass

from jaxviz.model.codec import check_annotations, register


@register
@dataclass
class MeshInfo:
    """A device mesh: axis names and sizes, device ids in mesh (row-major) order."""

    axis_names: list[str]
    axis_sizes: list[int]
    device_ids: list[int]


@register
@dataclass
class DeviceInfo:
    id: int
    platform: str
    kind: str
    process_index: int


check_annotations(MeshInfo, DeviceInfo)
