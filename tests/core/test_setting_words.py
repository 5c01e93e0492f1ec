"""Messages in the window name its fields, not the command line's flags (issue 26)."""

from __future__ import annotations

from jaxviz import core
from jaxviz.model import Target, TraceRequest
from jaxviz.model.setting_words import FLAG_SETTINGS, result_for_window

SOURCE = "import jax.numpy as jnp\n\n\ndef f(x):\n    return jnp.sin(x)\n"


def window_labels() -> dict[str, str]:
    """The window's own field labels: the Arguments panel's, read off a real panel
    (the caller holds the ``qapp`` fixture: the suite's application, on its screen)."""
    from jaxviz.ui.panels.args import ArgsPanel

    labels = ArgsPanel().labels()
    labels.setdefault("devices", "Devices")
    return labels


def test_a_message_naming_flags_names_the_window_fields_there(qapp):
    req = TraceRequest(target=Target(SOURCE, "<editor:f.py>", "f"), variants=["vmap"],
                       want=["jaxpr"], args="f32[8]", mesh="i=8", specs="P('i')",
                       in_axes="None")
    result = core.trace_request(req)
    error = result.error or result.variant("vmap").error
    assert error is not None
    cli = error.message
    flags = [f for f in FLAG_SETTINGS if f in cli]
    assert flags, cli  # the CLI's words: its flags
    labels = window_labels()
    result_for_window(result, labels)
    window = (result.error or result.variant("vmap").error).message
    for flag in flags:
        assert flag not in window
        assert labels[FLAG_SETTINGS[flag]] in window
    assert window != cli
