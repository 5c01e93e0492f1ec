"""The cost model against the scaling book's worked examples, and the presets' sources.

Each collective time below is a worked example of "How to Scale Your Model"
(jax-ml/scaling-book), cited where it is; the chip numbers are the presets'
(themselves cited in jaxviz/model/chips.toml) or, for a chip jaxviz has no preset
for (TPU v4p), the book's own.
"""

from __future__ import annotations

import dataclasses
import math
import tomllib

import pytest

from jaxviz.model.chips import PRESETS, Chip, ChipFileError, find_chip, load_chips
from jaxviz.model.cost_model import (
    collective_time,
    compute_time,
    memory_time,
    project,
    seconds,
)
from jaxviz.model.program import CollectiveUse, MemoryUse, ProgramCosts, StepCost

V5E = find_chip("tpu-v5e")
H100 = find_chip("h100")
#: TPU v4p as the book's examples use it: 9e10 B/s bidirectional per link, a full
#: 4x4x4 cube with wraparound links on every axis (sharding.md, the 4x4x4 questions).
V4P = Chip(key="tpu-v4p", name="TPU v4p", family="tpu", flops={"bf16": 2.75e14},
           hbm_bytes=32e9, hbm_bandwidth=1.2e12, link_bandwidth=4.5e10,
           link_bidirectional=9e10, torus=[16, 16, 16], wraparound="multiple-of-4")

MB34 = 2048 * 8192 * 2  # bf16[2048, 8192]: "the total array has size ... 34MB"


def test_all_gather_of_34mb_on_v5e_with_wraparound_is_377us():
    # sharding.md, "Question [AllGather time]", part (1): 34e6 / 9e10 = 377us over one
    # axis of a bidirectional ring.
    wrapped = dataclasses.replace(V5E, wraparound="always")
    t = collective_time(wrapped, "all-gather", MB34 / 4, MB34, [4])
    assert t.value == pytest.approx(34e6 / 9e10, rel=0.02)
    assert 370e-6 < t.value < 380e-6 and "link-bound" in t.formula


def test_all_gather_on_a_4x4_v5e_without_wraparound_is_about_560us():
    # same question: "TPU v5e only has a wraparound connection when one axis has size 16
    # ... T_comms = 3 * 8.4e6 / 4.5e10 = 560us" (measured: 680us).
    t = collective_time(V5E, "all-gather", MB34 / 4, MB34, [4])
    assert t.value == pytest.approx(3 * 8.4e6 / 4.5e10, rel=0.02)
    assert "without wraparound" in t.formula
    # "an axis without wraparound about 2x slower" for large axes
    big = collective_time(dataclasses.replace(V5E, torus=[32]), "all-gather", MB34 / 16,
                          MB34, [16])
    wrapped = collective_time(V5E, "all-gather", MB34 / 16, MB34, [16])
    assert big.value / wrapped.value == pytest.approx(2 * 15 / 16, rel=1e-6)


def test_a_small_all_gather_is_latency_bound():
    # same question, part (2): shards of 32kB, "we're latency bound. Since we have 3 hops,
    # this will take roughly 3 * 1us = 3us".
    t = collective_time(V5E, "all-gather", 32e3, 4 * 32e3, [4])
    assert t.value == pytest.approx(3e-6)
    assert "latency-bound" in t.formula
    # sharding.md, the 4x4x4 v4p question: 256 bytes over an axis of 4 with wraparound,
    # "we can do the full gather in only 2 hops, so roughly 2us".
    assert collective_time(V4P, "all-gather", 64, 256, [4]).value == pytest.approx(2e-6)


def test_all_gather_over_two_axes_uses_both_axes_links():
    # sharding.md, v4p 4x4x4: AllGather of the full bf16[1024, 4096] over two axes,
    # "T = 2BD / (2 * W) = 2*1024*4096 / (2 * 9e10) = 46us".
    v = 2 * 1024 * 4096
    t = collective_time(V4P, "all-gather", v / 16, v, [4, 4])
    assert t.value == pytest.approx(v / (2 * 9e10))
    assert round(t.value * 1e6) == 47  # the book rounds 46.6us down


def test_all_reduce_is_twice_and_all_to_all_a_quarter_of_an_all_gather():
    # sharding.md, the collectives' summary: AllReduce 2V / W_ici, AllToAll V / (4 W_ici).
    wrapped = dataclasses.replace(V5E, wraparound="always")
    gather = collective_time(wrapped, "all-gather", MB34 / 16, MB34, [16]).value
    reduce = collective_time(wrapped, "all-reduce", MB34, MB34, [16]).value
    scatter = collective_time(wrapped, "reduce-scatter", MB34, MB34 / 16, [16]).value
    a2a = collective_time(wrapped, "all-to-all", MB34 / 16, MB34 / 16, [16]).value
    assert reduce == pytest.approx(2 * gather)
    assert scatter == pytest.approx(gather)
    assert a2a == pytest.approx(gather / 4)


def test_all_gather_inside_an_h100_node_is_65us():
    # gpus.md, Pop Quiz 1 [AllGather time]: 8xH100, bf16[1024, 16384]: "more precisely
    # (2 B F (8 - 1)) / (8 * 450e9) ... 65us".
    v = 2 * 1024 * 16384
    t = collective_time(H100, "all-gather", v / 8, v, [8], [list(range(8))])
    assert t.value == pytest.approx(v * 7 / (8 * 450e9))
    assert round(t.value * 1e6) == 65
    # "An AllReduce has 2x this cost"
    ar = collective_time(H100, "all-reduce", v, v, [8], [list(range(8))])
    assert ar.value == pytest.approx(2 * t.value)
    # across two nodes the network bounds it: bytes / node egress (gpus.md)
    across = collective_time(H100, "all-gather", v / 16, v, [16], [list(range(16))])
    assert across.value == pytest.approx(v / 400e9) and "nodes" in across.formula


def test_a_permute_sends_its_bytes_over_one_link():
    t = collective_time(V5E, "collective-permute", 9e6, 9e6, [4], [[0, 1], [1, 2]])
    assert t.value == pytest.approx(9e6 / 4.5e10) and "one ICI link" in t.formula


def test_compute_and_memory_times_are_the_rooflines():
    # roofline.md: T_math = FLOPs / peak FLOP/s, T_comms = bytes / bandwidth.
    assert compute_time(V5E, {"bf16": 1.97e14}).value == pytest.approx(1.0)
    assert compute_time(H100, {"f32": 4.95e14, "bf16": 9.9e14}).value == pytest.approx(2.0)
    assert memory_time(V5E, 8.1e11).value == pytest.approx(1.0)
    assert "FLOP/s" in compute_time(V5E, {"bf16": 1.0}).formula


def test_a_phase_lies_between_the_max_and_the_sum():
    use = CollectiveUse(kind="all-gather", mesh_axes=["x"], groups=[[0, 1, 2, 3]],
                        group_size=4, operand_bytes=MB34 // 4, result_bytes=MB34,
                        sent_bytes=3 * MB34 / 4, count=12)
    costs = ProgramCosts(
        variant="sharded", devices=[0, 1, 2, 3], flops=2e12, hbm_bytes=1e9,
        flops_by_dtype={"bf16": 2e12},
        steps=[StepCost(step=0, kind="compute", flops=2e12, flops_by_dtype={"bf16": 2e12},
                        hbm_bytes=1e9, source_lines=[7]),
               StepCost(step=1, kind="collective", times=12, collective=0,
                        comm_bytes=12 * 3 * MB34 / 4)],
        collectives=[use], memory=MemoryUse(argument_bytes=10, output_bytes=10, temp_bytes=5))
    from jaxviz.model.devices import MeshInfo

    costs.mesh = MeshInfo(["x"], [4], [0, 1, 2, 3])
    p = project(costs, V5E)
    compute, comm = p.phases
    assert compute.t_lower.value == max(compute.t_compute.value, compute.t_memory.value)
    assert compute.t_upper.value == pytest.approx(compute.t_compute.value
                                                  + compute.t_memory.value)
    one = collective_time(V5E, "all-gather", MB34 / 4, MB34, [4]).value
    assert comm.t_comm.value == pytest.approx(12 * one) and comm.label.endswith("×12")
    assert p.total.t_comm.value == pytest.approx(12 * one)
    assert p.total.t_lower.value == pytest.approx(max(p.total.t_compute.value,
                                                      p.total.t_memory.value, 12 * one))
    assert p.total.t_upper.value == pytest.approx(p.total.t_compute.value
                                                  + p.total.t_memory.value + 12 * one)
    assert p.memory_fits and compute.source_line == 7
    # one collective phase: the whole program's T_comm is that phase's, formula and all
    # (it read "7 us = 7 us"); with two, each phase named in the sum
    assert p.total.t_comm.formula == comm.t_comm.formula
    costs.steps.append(StepCost(step=2, kind="collective", times=1, collective=0,
                                comm_bytes=3 * MB34 / 4))
    two = project(costs, V5E)
    assert two.total.t_comm.formula.endswith(f"(phase 2) + {seconds(one)} (phase 3) = "
                                             f"{seconds(13 * one)}")


# --------------------------------------------------------------------------- #
# Presets
# --------------------------------------------------------------------------- #


def _numbers(table: dict) -> list[str]:
    out = []
    for key, value in table.items():
        if key in ("sources", "name", "family", "wraparound"):
            continue
        if isinstance(value, dict):
            out += [f"{key}.{k}" for k in value]
        else:
            out.append(key)
    return out


def test_every_preset_number_carries_a_source():
    raw = tomllib.loads(PRESETS.read_text())
    assert set(raw) == {"tpu-v5e", "tpu-v5p", "tpu-v6e", "h100", "h200", "b200"}
    for key, table in raw.items():
        sources = table["sources"]
        for name in _numbers(table) + (["wraparound"] if "wraparound" in table else []):
            assert sources.get(name), f"{key}: {name} has no source"
            assert "https://" in sources[name] or "assumption" in sources[name], (key, name)


def test_presets_have_the_fields_the_model_needs():
    chips = load_chips()
    for chip in chips.values():
        assert chip.flops["bf16"] > 0 and chip.hbm_bandwidth > 0 and chip.link_bandwidth > 0
        if chip.family == "tpu":
            assert chip.torus and chip.link_bidirectional == 2 * chip.link_bandwidth
        else:
            assert chip.nvlink_domain == 8 and chip.network_bandwidth > 0
    # the book's TPU table (tpus.md) and GPU table (gpus.md)
    assert chips["tpu-v5e"].flops["bf16"] == 1.97e14 and chips["tpu-v5e"].hbm_bandwidth == 8.1e11
    assert chips["tpu-v5p"].flops["bf16"] == 4.59e14 and chips["tpu-v6e"].hbm_bytes == 32e9
    assert chips["h100"].flops["bf16"] == 9.9e14 and chips["b200"].hbm_bytes == 192e9
    assert chips["tpu-v5e"].wraps(16) and not chips["tpu-v5e"].wraps(4)
    assert chips["tpu-v5p"].wraps(4) and not chips["tpu-v5p"].wraps(6)


def test_a_users_chip_file_reads_the_same_fields(tmp_path):
    path = tmp_path / "mine.toml"
    path.write_text('[toy]\nfamily = "tpu"\nflops = { bf16 = 1e12 }\nhbm_bytes = 1e9\n'
                    'hbm_bandwidth = 1e11\nlink_bandwidth = 1e9\nlink_bidirectional = 2e9\n'
                    'torus = [4]\n')
    chip = find_chip("toy", path)
    assert chip.peak("f32") == (1e12, "bf16") and chip.wraps(4) and not chip.wraps(8)
    assert math.isclose(collective_time(chip, "all-gather", 1e6, 4e6, [4]).value, 4e6 / 2e9)
    path.write_text('[toy]\nfamily = "tpu"\nflops = { bf16 = -1 }\n')
    with pytest.raises(ChipFileError, match=r"mine.toml: \[toy\] flops"):
        load_chips(path)
    path.write_text("not toml [")
    with pytest.raises(ChipFileError, match="not a TOML file"):
        load_chips(path)
    with pytest.raises(ChipFileError, match="no chip 'tpu-v9'"):
        find_chip("tpu-v9")


def test_byte_sizes_read_in_the_decimal_units_chips_are_quoted_in():
    from jaxviz.model.cost_model import byte_size

    assert byte_size(80e9) == "80 GB"  # an H100's HBM, as NVIDIA quotes it
    assert byte_size(262_144) == "262 kB"
    assert byte_size(512) == "512 B"
