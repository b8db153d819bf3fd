"""The ``gpio`` backend of :mod:`hardware.controls`: buttons, light, buzzer via gpiozero."""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable, Mapping
from typing import Any

from hardware.controls.base import (
    BEEPS,
    BUTTONS,
    DEFAULT_BOUNCE_TIME,
    DEFAULT_HOLD_TIME,
    DEFAULT_PINS,
    ENV_VAR,
    LIGHTS,
    LONG_PRESS,
    PRESS,
    ButtonEvent,
    Controls,
    ControlsUnavailable,
    _button_name,
)
from hardware.status import READY


def _start_timer(delay: float, action: Callable[[], None]) -> threading.Timer:
    timer = threading.Timer(delay, action)
    timer.daemon = True
    timer.start()
    return timer


def _cancel(timer: threading.Timer | None) -> None:
    if timer is not None:
        timer.cancel()


class _Debouncer:
    """Turns one bouncing button line into ``press`` / ``long_press`` decisions.

    Every raw edge restarts a ``bounce_time`` settle timer; when the line has
    been still that long its level is read and, if it changed, taken. A press
    taken starts a ``hold_time`` timer that gives one ``long_press``; a release
    gives ``press`` unless the long press was already given. (Done here rather
    than by the pin driver: mock pins do not debounce, and some drivers drop
    the release edge that follows a debounced press.)
    """

    def __init__(
        self,
        name: str,
        is_pressed: Callable[[], bool],
        emit: Callable[[str, str], None],
        bounce_time: float,
        hold_time: float,
    ) -> None:
        self.name = name
        self._is_pressed = is_pressed
        self._emit = emit
        self._bounce_time = bounce_time
        self._hold_time = hold_time
        self._lock = threading.Lock()
        self.down = False
        self._held = False
        self._settle: threading.Timer | None = None
        self._hold: threading.Timer | None = None
        self._closed = False

    def edge(self) -> None:
        """Called on every raw change of the line."""
        if not self._bounce_time:
            self._settled()
            return
        with self._lock:
            if self._closed:
                return
            _cancel(self._settle)
            self._settle = _start_timer(self._bounce_time, self._settled)

    def _settled(self) -> None:
        if self._closed:
            return
        pressed = bool(self._is_pressed())
        with self._lock:
            if self._closed or pressed == self.down:
                return
            self.down = pressed
            if pressed:
                self._held = False
                self._hold = _start_timer(self._hold_time, self._held_long)
                return
            _cancel(self._hold)
            if self._held:
                return
        self._emit(self.name, PRESS)

    def _held_long(self) -> None:
        with self._lock:
            if self._closed or not self.down or self._held:
                return
            self._held = True
        self._emit(self.name, LONG_PRESS)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            _cancel(self._settle)
            _cancel(self._hold)


def _merge_pins(
    pins: Mapping[str, int | str | None] | None,
) -> dict[str, int | str | None]:
    merged = dict(DEFAULT_PINS)
    for key, pin in (pins or {}).items():
        name = str(key).upper()
        if name not in DEFAULT_PINS:
            raise ValueError(
                f"unknown pin role {key!r}; roles are {', '.join(DEFAULT_PINS)}"
            )
        merged[name] = pin
    for button in BUTTONS:
        if merged[button] is None:
            raise ValueError(f"button {button} needs a pin")
    return merged


def _import_gpiozero() -> Any:
    try:
        import gpiozero
    except ImportError as exc:
        raise ControlsUnavailable(
            "GPIO controls need gpiozero (pip install gpiozero); "
            f"set {ENV_VAR}=keyboard or mock on a laptop"
        ) from exc
    return gpiozero


def _ensure_pin_factory(gpiozero: Any) -> None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            gpiozero.Device.ensure_pin_factory()
    except Exception as exc:
        raise ControlsUnavailable(
            f"GPIO controls unavailable: gpiozero found no GPIO pins ({exc}). "
            f"Not a Raspberry Pi? Set {ENV_VAR}=keyboard or mock"
        ) from exc


class GpioControls(Controls):
    """Buttons, light and buzzer on GPIO pins through gpiozero.

    Buttons are wired to ground with the internal pull-up (pressed = low)
    unless ``pull_up=False``. Uses gpiozero's current ``Device.pin_factory``.
    The gpiozero ``Button`` objects (:attr:`buttons`) share ``hold_time``, so
    their ``is_held`` agrees with ``long_press``; closing while a button is
    held down may take up to ``hold_time`` (gpiozero joins its hold thread).

    >>> from hardware.controls import NEXT
    >>> from gpiozero import Device
    >>> from gpiozero.pins.mock import MockFactory
    >>> Device.pin_factory = MockFactory()
    >>> controls = GpioControls(bounce_time=0, pins={"BUZZER": None})
    >>> pin = Device.pin_factory.pin(DEFAULT_PINS[NEXT])
    >>> pin.drive_low(); pin.drive_high()
    >>> controls.events(timeout=1).button
    'NEXT'
    >>> controls.close(); Device.pin_factory.reset(); Device.pin_factory = None
    """

    kind = "gpio"

    def __init__(
        self,
        *,
        pins: Mapping[str, int | str | None] | None = None,
        hold_time: float = DEFAULT_HOLD_TIME,
        bounce_time: float | None = DEFAULT_BOUNCE_TIME,
        pull_up: bool = True,
        on_event: Callable[[ButtonEvent], Any] | None = None,
    ) -> None:
        super().__init__(on_event=on_event)
        self.pins = _merge_pins(pins)
        gpiozero = _import_gpiozero()
        _ensure_pin_factory(gpiozero)
        self.buttons: dict[str, Any] = {}
        self._debouncers: dict[str, _Debouncer] = {}
        self.led: Any = None
        self.buzzer: Any = None
        try:
            self._open_devices(gpiozero, hold_time, bounce_time or 0.0, pull_up)
        except gpiozero.GPIOZeroError as exc:
            self._release()
            raise ControlsUnavailable(f"GPIO controls unavailable: {exc}") from exc
        wiring = " ".join(f"{name}={self.pins[name]}" for name in DEFAULT_PINS)
        self._set_status(READY, f"gpio controls ready ({wiring})")

    def _open_devices(
        self, gpiozero: Any, hold: float, bounce: float, pull_up: bool
    ) -> None:
        for name in BUTTONS:
            button = gpiozero.Button(self.pins[name], pull_up=pull_up, hold_time=hold)
            self.buttons[name] = button
            debouncer = _Debouncer(
                name, lambda b=button: b.is_pressed, self._emit, bounce, hold
            )
            self._debouncers[name] = debouncer
            button.when_pressed = debouncer.edge
            button.when_released = debouncer.edge
        if self.pins["LED"] is not None:
            self.led = gpiozero.LED(self.pins["LED"])
        if self.pins["BUZZER"] is not None:
            self.buzzer = gpiozero.Buzzer(self.pins["BUZZER"])

    def is_pressed(self, button: str) -> bool:
        """The debounced state of ``button`` (held down now)."""
        return self._debouncers[_button_name(button)].down

    def _show_light(self, state: str) -> None:
        if self.led is None:
            return
        light = LIGHTS[state]
        if isinstance(light, tuple):
            self.led.blink(on_time=light[0], off_time=light[1])
        elif light:
            self.led.on()
        else:  # fault and off: the LED is dark (blink() stops on off())
            self.led.off()

    def _sound(self, kind: str) -> None:
        if self.buzzer is not None:
            on_time, off_time, count = BEEPS[kind]
            self.buzzer.beep(on_time=on_time, off_time=off_time, n=count)

    def _release(self) -> None:
        for debouncer in self._debouncers.values():
            debouncer.close()
        for button in self.buttons.values():
            button.when_pressed = button.when_released = None
        for device in (*self.buttons.values(), self.led, self.buzzer):
            if device is not None:
                device.close()


def gpio_available() -> bool:
    """True if gpiozero is installed and has (or finds) a pin factory.

    A factory the program set (``Device.pin_factory = MockFactory()``) counts.
    """
    try:
        gpiozero = _import_gpiozero()
        _ensure_pin_factory(gpiozero)
    except ControlsUnavailable:
        return False
    return True
