"""Which stretch of a train step each compiled step falls in (story_groups.part_regions)."""

from __future__ import annotations

import itertools

from jaxviz.core.story_groups import PARTS, part_regions


def _out_of_place(parts: list[str], regions: list[str]) -> int:
    return sum(1 for p, r in zip(parts, regions) if p and p != r)


def test_backward_steps_xla_runs_early_stay_in_the_forward_stretch():
    parts = ["forward", "backward", "forward", "", "forward", "backward", "backward",
             "forward", "backward", "update", "backward", "update"]
    assert part_regions(parts) == ["forward", "forward", "forward", "", "forward", "backward",
                                   "backward", "backward", "backward", "backward", "backward",
                                   "update"]


def test_a_program_without_a_backward_pass_keeps_its_parts():
    assert part_regions(["", "forward", "update", "forward"]) == ["", "forward", "update",
                                                                 "forward"]


def test_the_stretches_run_in_order_and_misplace_the_fewest_steps():
    """Every program of up to 6 steps, against every way to cut it into forward, backward
    and update stretches (this test's own search): no cut puts fewer steps outside their
    part's stretch."""
    for n in range(1, 7):
        for parts in map(list, itertools.product(("", *PARTS), repeat=n)):
            if "backward" not in parts:
                continue
            regions = part_regions(parts)
            named = [r for r in regions if r]
            assert named == sorted(named, key=PARTS.index), parts
            assert all(bool(r) == bool(p) for p, r in zip(parts, regions)), parts
            best = min(_out_of_place(parts, [
                "" if not p else "forward" if k < a else "backward" if k < b else "update"
                for k, p in enumerate(parts)]) for a in range(n + 1) for b in range(a, n + 1))
            assert _out_of_place(parts, regions) == best, parts
