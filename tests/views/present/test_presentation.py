"""The presentation's key map, cursor, screen choice and folding (no Qt)."""

from __future__ import annotations

import pytest

from jaxviz.views.present.presentation import (
    KEY_MAP,
    PresentationCursor,
    ScreenInfo,
    choose_screens,
    elapsed_text,
    fold_lines,
    wrap_line,
)

NEXT = ["PgDown", "Right", "Space", "Down", "N"]
BACK = ["PgUp", "Left", "Backspace", "Up", "P"]


@pytest.mark.parametrize("key", NEXT)
def test_next_keys_move_one_slide_forward(key):
    cursor = PresentationCursor(5, 2)
    pressed = cursor.press(key)
    assert (pressed.action, pressed.changed, cursor.index) == ("next", True, 3)


@pytest.mark.parametrize("key", BACK)
def test_back_keys_move_one_slide_back(key):
    cursor = PresentationCursor(5, 2)
    pressed = cursor.press(key)
    assert (pressed.action, pressed.changed, cursor.index) == ("back", True, 1)


def test_home_and_end_go_to_the_first_and_last_slide():
    cursor = PresentationCursor(7, 3)
    assert cursor.press("End").changed and cursor.index == 6
    assert cursor.press("Home").changed and cursor.index == 0


def test_the_edges_do_not_move_and_say_so():
    cursor = PresentationCursor(3, 0)
    pressed = cursor.press("PgUp")
    assert not pressed.changed and cursor.index == 0 and "first" in pressed.message
    cursor.go(2)
    pressed = cursor.press("Space")
    assert not pressed.changed and cursor.index == 2 and "last" in pressed.message


@pytest.mark.parametrize("key,blank", [("B", "black"), (".", "black"), ("W", "white"),
                                       (",", "white")])
def test_black_and_white_screens_toggle_without_moving(key, blank):
    cursor = PresentationCursor(5, 2)
    cursor.press(key)
    assert cursor.blank == blank and cursor.index == 2
    cursor.press(key)
    assert cursor.blank is None and cursor.index == 2


@pytest.mark.parametrize("key", ["PgDown", "Left", "Return", "Esc", "Home"])
def test_a_move_key_leaves_a_blank_screen_without_moving(key):
    cursor = PresentationCursor(5, 2)
    cursor.press("B")
    pressed = cursor.press(key)
    assert pressed.action == "unblank" and cursor.blank is None and cursor.index == 2


def test_a_number_then_enter_jumps_to_that_slide():
    cursor = PresentationCursor(20, 0)
    cursor.press("1")
    cursor.press("2")
    assert cursor.typed == "12" and cursor.index == 0  # nothing moves before Enter
    pressed = cursor.press("Return")
    assert pressed.action == "jump" and cursor.index == 11 and cursor.typed == ""


def test_a_number_out_of_range_is_refused_with_the_range():
    cursor = PresentationCursor(9, 4)
    for key in ("4", "2", "Enter"):
        pressed = cursor.press(key)
    assert not pressed.changed and cursor.index == 4 and "1 to 9" in pressed.message


def test_enter_without_digits_is_next_and_esc_forgets_digits_before_leaving():
    cursor = PresentationCursor(5, 0)
    assert cursor.press("Return").action == "next" and cursor.index == 1
    cursor.press("3")
    assert cursor.press("Esc").action == "forget" and cursor.typed == ""
    assert cursor.press("Esc").action == "leave" and cursor.index == 1


def test_every_key_of_the_map_does_exactly_its_action():
    for key, action in KEY_MAP.items():
        cursor = PresentationCursor(10, 5)
        cursor.press(key)
        expected = {"next": 6, "back": 4, "first": 0, "last": 9, "enter": 6}.get(action, 5)
        assert cursor.index == expected, key
        assert cursor.blank == (action if action in ("black", "white") else None), key


def test_unknown_keys_do_nothing():
    cursor = PresentationCursor(5, 1)
    assert cursor.press("F7").action == "" and cursor.index == 1


def test_the_console_goes_to_the_primary_screen_and_the_audience_to_the_largest_other():
    laptop = ScreenInfo("eDP-1", 1920, 1200, primary=True)
    projector = ScreenInfo("HDMI-1", 1280, 720)
    tv = ScreenInfo("DP-1", 3840, 2160)
    assert choose_screens([laptop]) == (0, None)
    assert choose_screens([laptop, projector]) == (1, 0)
    assert choose_screens([projector, laptop, tv]) == (2, 1)
    assert choose_screens([]) == (0, None)


def test_elapsed_time_reads_as_a_clock():
    assert elapsed_text(0) == "0:00"
    assert elapsed_text(725) == "12:05"
    assert elapsed_text(3725) == "1:02:05"


def test_a_text_that_fits_is_shown_whole_and_long_lines_wrap_never_cut():
    lines = ["def f(x):", "    return " + " + ".join(f"x{i}" for i in range(30))]
    rows = fold_lines(lines, [1], 10, 40)
    assert all(len(r.text) <= 40 for r in rows)
    joined = " ".join(r.text.strip() for r in rows if r.line == 1)
    assert joined.split() == lines[1].split()


def test_a_long_text_keeps_the_lit_lines_and_folds_the_rest_into_markers():
    lines = [f"line {i}" for i in range(60)]
    rows = fold_lines(lines, [30, 31], 12, 40)
    assert len(rows) <= 12
    shown = [r.line for r in rows if r.line >= 0]
    assert {0, 30, 31, 59} <= set(shown)
    folded = sum(r.folded for r in rows if r.line < 0)
    assert folded + len(set(shown)) == 60  # every line is shown or counted in a marker


def test_wrap_line_indents_continuations():
    pieces = wrap_line("    c = dot_general[dimension_numbers=(([0], [0]), ([], []))] a b", 30)
    assert len(pieces) > 1 and all(p.startswith("    ") for p in pieces)


def test_the_slide_matching_the_window_is_its_view_variant_and_phase():
    from jaxviz.views.present.presentation import OnScreen, matching_slide

    deck = [OnScreen("title"), OnScreen("source"), OnScreen("jaxpr", "plain"),
            OnScreen("diff", pair=("plain", "vmap")), OnScreen("program", "pmap"),
            OnScreen("device", "pmap", 0), OnScreen("device", "pmap", 1),
            OnScreen("device", "pmap", 3), OnScreen("summary")]
    assert matching_slide(deck, OnScreen("device", "pmap", 1)) == 6
    assert matching_slide(deck, OnScreen("device", "pmap", 2)) == 6  # the nearest before
    assert matching_slide(deck, OnScreen("device", "vmap", 0)) == 5  # the device view
    assert matching_slide(deck, OnScreen("jaxpr", "plain")) == 2
    assert matching_slide(deck, OnScreen("jaxpr", "pmap")) == 4  # its program slide
    assert matching_slide(deck, OnScreen("diff", pair=("plain", "vmap"))) == 3
    assert matching_slide(deck, OnScreen("timing")) == 1  # none: the first past the title
    assert matching_slide([], OnScreen("source")) == 0
