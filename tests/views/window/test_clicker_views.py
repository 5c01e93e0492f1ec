"""Presenter keys and the registry of stepping views (Qt-free)."""

from __future__ import annotations

import pytest

from jaxviz.views.window.clicker_views import (
    PRESENTER_KEYS,
    TEXT_FIELD_KEYS,
    ClickerView,
    ClickerViews,
    presenter_move,
)


class Phases:
    """A view with ``count`` phases, like the device animation."""

    def __init__(self, count: int) -> None:
        self.count, self.at = count, 0

    def step_forward(self) -> bool:
        if self.at + 1 >= self.count:
            return False
        self.at += 1
        return True

    def step_back(self) -> bool:
        if self.at == 0:
            return False
        self.at -= 1
        return True


@pytest.mark.parametrize("key, typing, modified, move", [
    ("PgDown", False, False, 1), ("PgUp", False, False, -1),
    ("PgDown", True, False, 1),   # a clicker's page keys step even from a text field
    ("Right", False, False, 1), ("Left", False, False, -1), ("Space", False, False, 1),
    ("Right", True, False, None), ("Left", True, False, None), ("Space", True, False, None),
    ("Right", False, True, None),   # Shift+Right selects, Ctrl+Right jumps a word
    ("Up", False, False, None), ("Return", False, False, None),
])
def test_which_key_steps_how(key, typing, modified, move):
    assert presenter_move(key, typing, modified) == move


def test_a_text_field_keeps_only_the_keys_it_types_with():
    assert set(PRESENTER_KEYS) > TEXT_FIELD_KEYS
    assert {k for k in PRESENTER_KEYS if presenter_move(k, typing=True) is not None} == \
        {"PgDown", "PgUp"}


def test_the_keys_go_to_the_highest_view_shown():
    views = ClickerViews()
    devices, stepper = Phases(5), Phases(3)
    shown = {"devices": False, "step mode": False}
    views.register("devices", devices, shown=lambda: shown["devices"], priority=10)
    views.register("step mode", stepper, shown=lambda: shown["step mode"], priority=20)
    assert views.current() is None and not views.step(1)
    shown["devices"] = True
    assert views.current_name() == "devices" and views.step(1) and devices.at == 1
    shown["step mode"] = True
    assert views.step(1) and (stepper.at, devices.at) == (1, 1)
    assert views.step(-1) and stepper.at == 0 and not views.step(-1)
    views.unregister("step mode")
    assert views.names() == ["devices"] and views.current() is devices
    assert isinstance(devices, ClickerView)


def test_a_presentation_registered_later_takes_the_keys_while_shown():
    views = ClickerViews()
    devices, slides = Phases(4), Phases(9)
    on_screen = [False]
    views.register("devices", devices, shown=lambda: True, priority=10)
    views.register("presentation", slides, shown=lambda: on_screen[0], priority=30)
    assert views.step(1) and devices.at == 1
    on_screen[0] = True
    assert views.step(1) and slides.at == 1 and devices.at == 1
    views.register("presentation", slides, shown=lambda: False, priority=30)  # replaced
    assert views.current() is devices
