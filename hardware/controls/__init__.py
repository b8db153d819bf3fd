"""The table's buttons, status light and buzzer, gpiozero-style: one interface, backends.

Three buttons (``CONFIRM``, ``UNDO``, ``NEXT``) give :class:`ButtonEvent` s: a
``press`` when released before ``hold_time``, or one ``long_press`` when held
that long (and then no ``press`` on release). What a long press *means* is up
to the caller. The status light shows ``ready`` (steady on), ``waiting``
(blinking) or ``fault`` (off; ``off`` is the same light for "nothing to
show"); the optional buzzer beeps ``tile_seen`` (short) or ``error`` (long
double beep), which is the audible fault signal.

Backends, picked by :func:`open_controls`:

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
    around :class:`hardware.panel.SerialPanel`) on ``url=`` or, without it,
    ``$TABLETOP_PANEL``; needs pyserial. The panel firmware decides long
    presses, at :data:`DEFAULT_HOLD_TIME` like gpio.
``mock``
    no hardware: code pushes events with :meth:`MockControls.press`.

Without a kind, ``$TABLETOP_CONTROLS`` decides, else ``gpio`` if gpiozero
finds pins, else ``keyboard`` if stdin is a terminal, else ``mock``. The
automatic choice never opens the panel: ask for it with ``panel`` (a serial
port may be some other device).

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
from collections.abc import Callable
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
from hardware.controls.base import DEFAULT_BOUNCE_TIME as DEFAULT_BOUNCE_TIME
from hardware.controls.base import DEFAULT_HOLD_TIME as DEFAULT_HOLD_TIME
from hardware.controls.base import _button_name as _button_name
from hardware.controls.gpio import GpioControls, gpio_available
from hardware.controls.gpio import _cancel as _cancel
from hardware.controls.gpio import _Debouncer as _Debouncer
from hardware.controls.gpio import _ensure_pin_factory as _ensure_pin_factory
from hardware.controls.gpio import _import_gpiozero as _import_gpiozero
from hardware.controls.gpio import _merge_pins as _merge_pins
from hardware.controls.gpio import _start_timer as _start_timer
from hardware.controls.keyboard import _ESCAPE as _ESCAPE
from hardware.controls.keyboard import KEYMAP, KeyboardControls
from hardware.controls.keyboard import _enter_cbreak as _enter_cbreak
from hardware.controls.keyboard import _keys as _keys
from hardware.controls.keyboard import _restore_terminal as _restore_terminal


def _open_panel(**options: Any) -> Controls:
    """Build :class:`PanelControls`, importing pyserial only now (it is optional)."""
    try:
        from hardware.controls.panel import PanelControls
    except ImportError as exc:
        raise ControlsUnavailable(
            f"panel controls need pyserial ({exc}); pip install pyserial"
        ) from exc
    return PanelControls(**options)


def __getattr__(name: str) -> Any:
    if name == "PanelControls":  # lazily: hardware.controls.panel imports pyserial
        from hardware.controls.panel import PanelControls

        return PanelControls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: Backend name -> factory taking keyword options. Extend with :func:`register_backend`.
BACKENDS: dict[str, Callable[..., Controls]] = {
    "gpio": GpioControls,
    "keyboard": KeyboardControls,
    "panel": _open_panel,
    "mock": MockControls,
}


def register_backend(name: str, factory: Callable[..., Controls]) -> None:
    """Make ``open_controls(name)`` build controls with ``factory(**options)``."""
    BACKENDS[name.lower()] = factory


def _stdin_is_tty() -> bool:
    try:
        return sys.stdin is not None and sys.stdin.isatty()
    except (AttributeError, ValueError):
        return False


def _accepted(
    factory: Callable[..., Controls], options: dict[str, Any]
) -> dict[str, Any]:
    """The options ``factory`` takes (the automatic choice drops the others)."""
    params = inspect.signature(factory).parameters
    if any(p.kind is p.VAR_KEYWORD for p in params.values()):
        return dict(options)
    return {key: value for key, value in options.items() if key in params}


def _open_auto(options: dict[str, Any]) -> Controls:
    if gpio_available():
        try:
            return BACKENDS["gpio"](**_accepted(BACKENDS["gpio"], options))
        except ControlsUnavailable as exc:
            log.warning("controls: %s; falling back", exc)
    if _stdin_is_tty():
        try:
            return BACKENDS["keyboard"](**_accepted(BACKENDS["keyboard"], options))
        except (ControlsUnavailable, OSError) as exc:
            log.warning("controls: keyboard unavailable (%s); using mock", exc)
    return BACKENDS["mock"](**_accepted(BACKENDS["mock"], options))


def open_controls(kind: str | None = None, **options: Any) -> Controls:
    """Open the table's controls with backend ``kind`` (see the module docstring).

    ``kind=None`` reads ``$TABLETOP_CONTROLS``; if unset (or ``auto``), it
    tries gpio, then keyboard (stdin a terminal), then mock, dropping options
    the chosen backend does not take. An explicit kind passes every option
    and raises :class:`ControlsUnavailable` if the backend cannot run here.

    >>> controls = open_controls("mock")
    >>> controls.status.ok
    True
    >>> controls.close()
    """
    chosen = (kind or os.environ.get(ENV_VAR, "")).strip().lower()
    if chosen in ("", "auto"):
        return _open_auto(options)
    if chosen not in BACKENDS:
        raise ValueError(
            f"unknown controls backend {chosen!r}; backends are {', '.join(BACKENDS)}"
        )
    return BACKENDS[chosen](**options)


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
    "ButtonEvent",
    "Controls",
    "ControlsUnavailable",
    "GpioControls",
    "KeyboardControls",
    "MockControls",
    "PanelControls",
    "gpio_available",
    "open_controls",
    "register_backend",
]
