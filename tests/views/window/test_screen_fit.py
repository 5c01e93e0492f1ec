"""The first window's place and layout for each screen, and frames put back on screen (no Qt)."""

from __future__ import annotations

import itertools

import pytest

from jaxviz.views.window.screen_fit import (
    PREFERRED_FRAME,
    Rect,
    fit_frame,
    logical,
    panes_for,
    plan_window,
    screen_of,
)

SIZES = [(1280, 720), (1366, 768), (1920, 1080), (2560, 1440)]
SCALES = [1, 1.5, 2]
#: A window's smallest frame at the projector layout's densest (from the offscreen window:
#: its minimum size hint without the side docks, plus a title bar).
SMALLEST = (560, 330)


@pytest.mark.parametrize(("size", "scale"), list(itertools.product(SIZES, SCALES)))
def test_the_first_window_lies_on_every_listed_screen_at_every_scale(size, scale):
    screen = logical(Rect(0, 0, *size), scale)
    plan = plan_window(screen)
    assert screen.contains(plan.frame)
    assert plan.frame.width >= SMALLEST[0] and plan.frame.height >= SMALLEST[1]
    # The docks the plan sizes fit inside the frame, with room for the panes between them.
    assert plan.tools_height >= min(150, 0.19 * plan.frame.height)
    assert plan.frame.height - plan.tools_height >= 0.5 * plan.frame.height
    if plan.side_panels:
        assert plan.frame.width - plan.side_width >= 0.75 * plan.frame.width
    assert plan.panes == (2 if plan.projector else 4)
    if plan.projector:  # the room sees the same window at any scale: it fills the screen
        assert plan.maximized and plan.frame == screen and not plan.side_panels
    else:
        assert not plan.maximized and plan.side_panels
        assert plan.frame.width >= PREFERRED_FRAME[0]
        # centred, with room to spare on every side
        assert plan.frame.x - screen.x == screen.right - plan.frame.right
        assert plan.frame.y - screen.y >= 24 and screen.bottom - plan.frame.bottom >= 24


def test_which_screens_get_the_projector_layout():
    def plan(w, h, scale=1.0):
        return plan_window(logical(Rect(0, 0, w, h), scale))

    assert plan(1280, 720).projector and plan(1366, 768).projector
    assert plan(1920, 1080, 1.5).projector and plan(2560, 1440, 2).projector
    assert not plan(1920, 1080).projector and not plan(2560, 1440, 1.5).projector
    # 2560x1440 at scale 2 is, to the window, the same screen as a 1280x720 projector.
    assert plan(2560, 1440, 2) == plan(1280, 720)
    # Larger screens: the preferred 1600x950, up to 80 % of the screen, centred.
    assert plan(1920, 1080).frame == Rect(160, 65, 1600, 950)
    big = plan(2560, 1440)
    assert not big.maximized and (big.frame.width, big.frame.height) == (2048, 1224)
    assert plan(2560, 1600, 1.25).frame == Rect(205, 96, 1638, 1088)  # 2048x1280


def test_a_frame_on_a_second_screen_keeps_its_offset():
    screens = [Rect(0, 0, 1920, 1080), Rect(1920, 0, 1280, 720)]
    plan = plan_window(screens[1])
    assert plan.frame == screens[1]
    inside = Rect(2000, 50, 800, 600)
    assert fit_frame(inside, screens) == inside


def test_remembered_frames_are_clamped_back_onto_a_screen():
    projector = Rect(0, 0, 1280, 720)
    # Saved on a 1920x1080 laptop screen, opened on the projector: shrunk to fit.
    assert fit_frame(Rect(160, 65, 1602, 975), [projector]) == Rect(0, 0, 1280, 720)
    # Fits, but hangs off the bottom right: moved back, size kept.
    assert fit_frame(Rect(900, 500, 800, 600), [projector]) == Rect(480, 120, 800, 600)
    # Left on a screen that has gone: onto the nearest one left.
    screens = [Rect(0, 0, 1366, 768)]
    assert fit_frame(Rect(2100, 100, 1000, 700), screens) == Rect(366, 68, 1000, 700)
    # Too small a screen for the window's minimum: its top-left corner stays visible.
    assert fit_frame(Rect(50, 50, 900, 700), [Rect(0, 0, 640, 360)], (700, 400)) == \
        Rect(0, 0, 700, 400)


def test_a_frame_across_two_screens_goes_to_the_one_it_covers_most():
    left, right = Rect(0, 0, 1920, 1080), Rect(1920, 0, 1280, 720)
    across = Rect(1500, 100, 1000, 600)  # 420 px on the left, 580 px on the right
    assert screen_of(across, [left, right]) == right
    fitted = fit_frame(across, [left, right])
    assert right.contains(fitted) and (fitted.width, fitted.height) == (1000, 600)
    with pytest.raises(ValueError, match="no screens"):
        screen_of(across, [])


def test_a_projector_sized_window_opens_examples_on_two_panes():
    assert panes_for(1280, 720) == 2 and panes_for(1366, 768) == 2
    assert panes_for(1600, 950) == 4 and panes_for(1600, 700) == 2
