"""The table's buttons, status light and buzzer, gpiozero-style: one interface, backends.

Three buttons (``CONFIRM``, ``UNDO``, ``NEXT``) give :class:`ButtonEvent` s: a
``press`` when released before ``hold_time``, or one ``long_press`` when held
that long (and then no ``press`` on release). What a long press *means* is up
to the caller. The status light shows ``ready`` (steady on), ``waiting``
(blinking) or ``fault`` (off; ``off`` is the same light for "nothing to
show"); the optional buzzer beeps ``tile_seen`` (short) or ``error`` (long
double beep), which is the audible fault signal.

Backends, picked by :func:`open_controls` from the :data:`BACKENDS` registry
(see :func:`backend_names`; :func:`register_backend` adds one):

``gpio``
    gpiozero devices on the pins of :data:`DEFAULT_PINS` (BCM numbering) or
    ``pins=``; uses gpiozero's current ``Device.pin_factory`` (tests set a
    ``MockFactory``).
``keyboard``
    a laptop stand-in reading keys from a terminal: ``c``/Enter CONFIRM,
    ``u``/Backspace UNDO, ``n``/Space NEXT, uppercase ``C``/``U``/``N`` a long
    press. The light and buzzer become a status line (``output=``) and the
    :attr:`Controls.status` message.
``panel``
    the serial button panel of ``hardware/PANEL.md`` (:class:`PanelControls`
    around :class:`hardware.controls.serial_panel.SerialPanel`) on ``url=`` or, without it,
    ``$TABLETOP_PANEL``; needs pyserial. The panel firmware decides long
    presses, at :data:`hardware.controls.base.DEFAULT_HOLD_TIME` like gpio.
``mock``
    no hardware: code pushes events with :meth:`MockControls.press`.

Without a kind, ``$TABLETOP_CONTROLS`` decides, else ``gpio`` if gpiozero
finds pins, else ``keyboard`` if stdin is a terminal, else ``mock``. The
automatic choice never opens the panel: ask for it with ``panel`` (a serial
port may be some other device).

:func:`open_controls` takes the table-wide settings ``hold_time``, ``pins``
and ``url`` (the panel's port) for any backend; each backend gets only those
its :class:`Backend` entry says it reads, so a caller needs no ``if`` on the
kind.

Choice on a machine without GPIO: asking for ``gpio`` explicitly (argument or
environment) raises :class:`ControlsUnavailable` with a readable reason, since
the configuration is wrong; the automatic choice never raises for that, it
falls back to the next backend.

>>> with open_controls("mock") as controls:
...     controls.press("confirm", long=True)
...     event = controls.events(timeout=1)
>>> event.button, event.kind
('CONFIRM', 'long_press')
"""

from __future__ import annotations

import inspect
import os
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from hardware.controls.base import (
    BEEPS,
    BUTTONS,
    CONFIRM,
    DEFAULT_PINS,
    ENV_VAR,
    LIGHTS,
    LONG_PRESS,
    NEXT,
    PRESS,
    UNDO,
    ButtonEvent,
    Controls,
    ControlsUnavailable,
    MockControls,
    log,
)
from hardware.controls.gpio import GpioControls, gpio_available
from hardware.controls.keyboard import KEYMAP, KeyboardControls


def _open_panel(**options: Any) -> Controls:
    """Build :class:`PanelControls`, importing pyserial only now (it is optional)."""
    try:
        from hardware.controls.serial_panel import PanelControls
    except ImportError as exc:
        raise ControlsUnavailable(
            f"panel controls need pyserial ({exc}); pip install pyserial"
        ) from exc
    return PanelControls(**options)


def __getattr__(name: str) -> Any:
    if name == "PanelControls":  # lazily: hardware.controls.serial_panel imports pyserial
        from hardware.controls.serial_panel import PanelControls

        return PanelControls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@dataclass(frozen=True)
class Backend:
    """One entry of :data:`BACKENDS`: how to build a kind of controls.

    ``options`` names every keyword option ``factory`` reads (``None``: any,
    for a factory taking ``**options``). :func:`open_controls` hands it those
    and drops the rest of the table-wide settings, so a new backend declares
    what it reads here instead of the caller testing its name.

    >>> backend = Backend("mock", MockControls, frozenset({"on_event"}))
    >>> backend.takes("on_event"), backend.takes("pins")
    (True, False)
    """

    name: str
    factory: Callable[..., Controls]
    options: frozenset[str] | None = frozenset()

    def takes(self, option: str) -> bool:
        """True if the factory reads keyword ``option``."""
        return self.options is None or option in self.options

    def open(self, options: Mapping[str, Any]) -> Controls:
        """``factory`` called with those of ``options`` it reads."""
        return self.factory(**{k: v for k, v in options.items() if self.takes(k)})


#: Backend name -> :class:`Backend`, in the order error messages list them.
#: Extend with :func:`register_backend`.
BACKENDS: dict[str, Backend] = {
    backend.name: backend
    for backend in (
        Backend("gpio", GpioControls,
                frozenset({"hold_time", "pins", "bounce_time", "pull_up", "on_event"})),
        Backend("keyboard", KeyboardControls,
                frozenset({"fd", "output", "raw", "on_event"})),
        Backend("panel", _open_panel,
                frozenset({"url", "baudrate", "reconnect_interval", "opener",
                           "on_status", "on_event"})),
        Backend("mock", MockControls, frozenset({"on_event"})),
    )
}


def _keywords(factory: Callable[..., Any]) -> frozenset[str] | None:
    """The keyword options ``factory`` takes, read from its signature (``None``: any)."""
    try:
        params = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):  # no signature to read: let it take anything
        return None
    if any(p.kind is p.VAR_KEYWORD for p in params):
        return None
    return frozenset(p.name for p in params if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD))


def register_backend(
    name: str, factory: Callable[..., Controls], options: Iterable[str] | None = None
) -> Backend:
    """Make ``open_controls(name)`` build controls with ``factory``.

    ``options`` names the keyword options it reads; without it they are read
    from ``factory``'s signature. Returns the registry entry.

    >>> entry = register_backend("quiet", MockControls)
    >>> sorted(entry.options), "quiet" in backend_names()
    (['on_event'], True)
    >>> del BACKENDS["quiet"]
    """
    declared = _keywords(factory) if options is None else frozenset(options)
    backend = Backend(name.lower(), factory, declared)
    BACKENDS[backend.name] = backend
    return backend


def backend_names() -> tuple[str, ...]:
    """The registered backends, in registration order.

    >>> backend_names()[:4]
    ('gpio', 'keyboard', 'panel', 'mock')
    """
    return tuple(BACKENDS)


def _stdin_is_tty() -> bool:
    try:
        return sys.stdin is not None and sys.stdin.isatty()
    except (AttributeError, ValueError):
        return False


def _open_auto(options: Mapping[str, Any]) -> Controls:
    if gpio_available():
        try:
            return BACKENDS["gpio"].open(options)
        except ControlsUnavailable as exc:
            log.warning("controls: %s; falling back", exc)
    if _stdin_is_tty():
        try:
            return BACKENDS["keyboard"].open(options)
        except (ControlsUnavailable, OSError) as exc:
            log.warning("controls: keyboard unavailable (%s); using mock", exc)
    return BACKENDS["mock"].open(options)


def _backend(chosen: str) -> Backend:
    try:
        return BACKENDS[chosen]
    except KeyError:
        raise ValueError(
            f"unknown controls backend {chosen!r}; backends are {', '.join(BACKENDS)}"
        ) from None


def _refuse_unread(backend: Backend, extras: Mapping[str, Any]) -> None:
    """A backend-specific option the named backend does not read is a caller's mistake."""
    unread = sorted(key for key in extras if not backend.takes(key))
    if unread:
        reads = ", ".join(sorted(backend.options or ())) or "none"
        raise TypeError(
            f"{backend.name} controls take no option {', '.join(unread)} (they take: {reads})"
        )


def open_controls(
    kind: str | None = None,
    *,
    hold_time: float | None = None,
    pins: Mapping[str, int | str | None] | None = None,
    url: str | None = None,
    **options: Any,
) -> Controls:
    """Open the table's controls with backend ``kind`` (see the module docstring).

    ``hold_time`` (seconds to a long press), ``pins`` (role -> pin) and
    ``url`` (the serial panel's port) go to the backends that read them and
    are dropped for the others; ``None`` leaves a backend's default. Other
    keyword ``options`` are backend-specific (``bounce_time=``, ``fd=``,
    ...): an explicit kind must read each one (else :class:`TypeError`).

    ``kind=None`` reads ``$TABLETOP_CONTROLS``; if unset (or ``auto``), it
    tries gpio, then keyboard (stdin a terminal), then mock, dropping every
    option the chosen backend does not read. An explicit kind raises
    :class:`ControlsUnavailable` if the backend cannot run here.

    >>> controls = open_controls("mock", hold_time=2.0, pins={"LED": 4}, url=None)
    >>> controls.status.ok
    True
    >>> controls.close()
    >>> open_controls("joystick")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ValueError: unknown controls backend 'joystick'; backends are gpio, keyboard, panel, mock...
    """
    given = {"hold_time": hold_time, "pins": pins, "url": url}
    settings = {key: value for key, value in given.items() if value is not None}
    chosen = (kind or os.environ.get(ENV_VAR, "")).strip().lower()
    if chosen in ("", "auto"):
        return _open_auto({**settings, **options})
    backend = _backend(chosen)
    _refuse_unread(backend, options)
    return backend.open({**settings, **options})


__all__ = [
    "BACKENDS",
    "BEEPS",
    "BUTTONS",
    "CONFIRM",
    "DEFAULT_PINS",
    "KEYMAP",
    "LIGHTS",
    "LONG_PRESS",
    "NEXT",
    "PRESS",
    "UNDO",
    "Backend",
    "ButtonEvent",
    "Controls",
    "ControlsUnavailable",
    "GpioControls",
    "KeyboardControls",
    "MockControls",
    "PanelControls",
    "backend_names",
    "gpio_available",
    "open_controls",
    "register_backend",
]
