"""The four entry points of :mod:`jaxviz` (``show``, ``view``, ``timing``, ``sharding``)."""

from __future__ import annotations

from typing import Any

from jaxviz.notebook.shipping import ShippingError
from jaxviz.notebook.view import DEFAULT_DEVICES, DEFAULT_TIMEOUT, JaxvizError, View

__all__ = ["JaxvizError", "ShippingError", "sharding", "show", "timing", "view"]


def view(f: Any, *args: Any, variant: str | None = None, devices: int = DEFAULT_DEVICES,
         timeout: float = DEFAULT_TIMEOUT, theme: str = "light",
         size: tuple[int, int] = (960, 540), **options: Any) -> View:
    """Trace one variant of ``f(*args)`` in jaxviz's engine and show it inline.

    Args:
        f: a function defined with ``def`` in a notebook cell or a file (its
            source is sent to the engine, see :mod:`jaxviz.notebook.shipping`).
        *args: concrete arrays (their values are sent) or ``jax.ShapeDtypeStruct``.
            For ``vmap`` and ``pmap`` they are the batched arguments, as
            ``jax.pmap(f)(*args)`` takes them.
        variant: ``plain``, ``jit``, ``vmap``, ``pmap``, ``sharded``, ``shard_map`` or
            ``as_written``; default ``sharded`` when an argument carries a
            ``NamedSharding``, ``as_written`` for a function already jitted, else ``plain``.
        devices: the engine's (simulated CPU) device count.
        timeout: seconds the engine may take.
        theme, size: the device view's colours (``light``/``dark``) and frame size.
        **options: the window's settings: ``in_axes``, ``axis_name``, ``batch``,
            ``mesh``, ``specs``, ``out_specs``, ``axis_types``, ``out_axes``,
            ``static``, ``devices_order``, ``check_vma``.

    Returns:
        a :class:`~jaxviz.notebook.view.View`: displayed inline in Jupyter, with
        ``.jaxpr``, ``.phases``, ``.notes``, ``.diff(a, b)`` and ``.save(path)``.

    Raises:
        ShippingError: ``f`` or an argument cannot be sent to the engine.
        JaxvizError: tracing failed (JAX's message and your line).

    Example:
        >>> jaxviz.view(convolve, xs, ws, variant="pmap")        # doctest: +SKIP
    """
    return View(f, args, variant or _default_variant(f, args, options), devices, timeout,
                options, theme, size)


def _default_variant(f: Any, args: tuple[Any, ...], options: dict[str, Any]) -> str:
    from jaxviz.notebook.requests import carried_sharding

    if options.get("specs") or carried_sharding(list(args)):
        return "sharded"
    if f is not getattr(f, "__wrapped__", f):
        return "as_written"
    return "plain"


def timing(f: Any, *args: Any, variants: str | list[str] | tuple[str, ...] = ("jit",),
           **kwargs: Any) -> Any:
    """Measure dispatch versus completion of ``f(*args)`` in the engine and plot it inline
    (the four plots of ``jaxviz time``). See :func:`jaxviz.notebook.timing.timing`."""
    from jaxviz.notebook.timing import timing as measure

    return measure(f, args, variants, **kwargs)


def sharding(x: Any, **kwargs: Any) -> Any:
    """How the live array ``x`` lies on its devices, drawn inline (any rank).
    See :func:`jaxviz.notebook.layout.sharding`."""
    from jaxviz.notebook.layout import sharding as draw

    return draw(x, **kwargs)


def show(f: Any, *args: Any, variants: list[str] | None = None, devices: int | None = None,
         wait: bool = False, **options: Any) -> Any:
    """Open the desktop window on ``f(*args)`` and return at once; a second call reuses
    the window.

    Args:
        f, args: as :func:`view` takes them.
        variants: the jaxpr panes to show besides the window's own.
        devices: the window's device count when this call starts it.
        wait: wait until the window has the function (a script that ends right after).
        **options: the window's settings (``in_axes``, ``mesh``, ``specs`` ...).

    Returns:
        the window handle (:class:`jaxviz.notebook.channel.Window`): ``.wait()`` gives
        the window's reply, ``.close()`` ends it.

    Example:
        >>> jaxviz.show(convolve, x, w, variants=["vmap", "pmap"])  # doctest: +SKIP
    """
    from jaxviz.notebook.channel import show as open_window

    return open_window(f, args, variants=variants, devices=devices, options=options,
                       wait=wait)
