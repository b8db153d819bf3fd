"""The table's buttons, status light and buzzer, gpiozero-style: one interface, backends.

Three buttons (``CONFIRM``, ``UNDO``, ``NEXT``) give :class:`ButtonEvent` s: a
``press`` when released before ``hold_time``, or one ``long_press`` when held
that long (and then no ``press`` on release). What a long press *means* is up
to the caller. The status light shows ``ready`` (steady), ``waiting``
(blinking), ``fault`` (fast blink) or ``off``; the optional buzzer beeps
``tile_seen`` (short) or ``error`` (long double beep).

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
``mock``
    no hardware: code pushes events with :meth:`MockControls.press`.

Without a kind, ``$TABLETOP_CONTROLS`` decides, else ``gpio`` if gpiozero
finds pins, else ``keyboard`` if stdin is a terminal, else ``mock``.

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
import logging
import os
import queue
import re
import select
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Self, TextIO

from hardware.status import FAULT, READY, WAITING, Status

log = logging.getLogger(__name__)

CONFIRM, UNDO, NEXT = "CONFIRM", "UNDO", "NEXT"
BUTTONS = (CONFIRM, UNDO, NEXT)
PRESS, LONG_PRESS = "press", "long_press"

#: Default wiring, BCM numbering. ``BUZZER: None`` (or ``LED: None``) means absent.
DEFAULT_PINS: dict[str, int | str | None] = {
    CONFIRM: 17,
    UNDO: 27,
    NEXT: 22,
    "LED": 23,
    "BUZZER": 24,
}
DEFAULT_HOLD_TIME = 1.5
DEFAULT_BOUNCE_TIME = 0.02

#: Light states and their blink timing (on seconds, off seconds); ``None`` = not blinking.
LIGHTS: dict[str, tuple[float, float] | None] = {
    "ready": None,
    "waiting": (0.5, 0.5),
    "fault": (0.1, 0.1),
    "off": None,
}
#: Beeps: (on seconds, off seconds, count).
BEEPS: dict[str, tuple[float, float, int]] = {
    "tile_seen": (0.08, 0.0, 1),
    "error": (0.3, 0.15, 2),
}
ENV_VAR = "TABLETOP_CONTROLS"


class ControlsUnavailable(RuntimeError):
    """The chosen backend cannot run here (no GPIO pins, no terminal, pin in use)."""


@dataclass(frozen=True)
class ButtonEvent:
    """One decided button action; ``time`` is ``time.monotonic()`` when it was decided.

    >>> ButtonEvent(NEXT, PRESS, 12.5).kind
    'press'
    """

    button: str
    kind: str
    time: float


def _button_name(button: str) -> str:
    name = str(button).upper()
    if name not in BUTTONS:
        raise ValueError(f"unknown button {button!r}; buttons are {', '.join(BUTTONS)}")
    return name


class Controls:
    """The interface every backend shares: an event queue, a light, a buzzer.

    Events are delivered through a thread-safe queue (:meth:`events`) and, if
    set, to ``on_event(event)`` from the thread that decided them.

    >>> controls = MockControls()
    >>> controls.show("waiting"); controls.light
    'waiting'
    >>> controls.close(); controls.events(timeout=0) is None
    True
    """

    kind = "base"

    def __init__(self, *, on_event: Callable[[ButtonEvent], Any] | None = None) -> None:
        self.on_event = on_event
        self._queue: queue.Queue[ButtonEvent | None] = queue.Queue()
        self._lock = threading.RLock()
        self._light = "off"
        self._last_beep: str | None = None
        self._closed = False
        self._status = Status(READY, f"{self.kind} controls ready")

    # -- events ---------------------------------------------------------
    def events(self, timeout: float | None = None) -> ButtonEvent | None:
        """The next event, waiting up to ``timeout`` seconds (``None``: until one comes
        or the controls close); ``None`` if there was none."""
        try:
            item = self._queue.get(timeout=timeout)
        except queue.Empty:
            return None
        if item is None:  # closed: leave the marker for other readers
            self._queue.put(None)
        return item

    def get_event(self, timeout: float | None = None) -> ButtonEvent | None:
        """Same as :meth:`events`."""
        return self.events(timeout)

    def _emit(self, button: str, kind: str) -> None:
        if self._closed:
            return
        event = ButtonEvent(button, kind, time.monotonic())
        self._queue.put(event)
        callback = self.on_event
        if callback is not None:
            try:
                callback(event)
            except Exception:  # a bad callback must not kill the input thread
                log.exception("controls: on_event callback failed")

    # -- light and buzzer -----------------------------------------------
    @property
    def light(self) -> str:
        """The state last given to :meth:`show`."""
        return self._light

    @property
    def last_beep(self) -> str | None:
        """The kind of the last :meth:`beep`, or ``None``."""
        return self._last_beep

    def show(self, state: str) -> None:
        """Set the status light: ``ready``, ``waiting``, ``fault`` or ``off``."""
        if state not in LIGHTS:
            raise ValueError(
                f"unknown light state {state!r}; states are {', '.join(LIGHTS)}"
            )
        with self._lock:
            if self._closed:
                return
            self._light = state
            self._show_light(state)

    def beep(self, kind: str) -> None:
        """Beep ``tile_seen`` (short) or ``error`` (long, double); silent without a buzzer."""
        if kind not in BEEPS:
            raise ValueError(f"unknown beep {kind!r}; beeps are {', '.join(BEEPS)}")
        with self._lock:
            if self._closed:
                return
            self._last_beep = kind
            self._sound(kind)

    # -- status and life cycle -------------------------------------------
    @property
    def status(self) -> Status:
        """What the controls say about themselves, for the screen."""
        return self._status

    def _set_status(self, state: str, message: str) -> None:
        self._status = Status(state, message)

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        """Release pins and threads; idempotent. A blocked :meth:`events` returns ``None``."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        self._release()
        self._set_status(WAITING, f"{self.kind} controls closed")
        self._queue.put(None)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- backend hooks ----------------------------------------------------
    def _show_light(self, state: str) -> None:
        """Drive the light (called with the lock held)."""

    def _sound(self, kind: str) -> None:
        """Drive the buzzer (called with the lock held)."""

    def _release(self) -> None:
        """Free the backend's resources."""


# ---------------------------------------------------------------------------
# gpio backend
# ---------------------------------------------------------------------------


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
        blink = LIGHTS[state]
        if blink is not None:
            self.led.blink(on_time=blink[0], off_time=blink[1])
        elif state == "ready":
            self.led.on()
        else:
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


# ---------------------------------------------------------------------------
# keyboard backend
# ---------------------------------------------------------------------------

#: Keys of the keyboard stand-in: byte -> (button, long press?).
KEYMAP: dict[int, tuple[str, bool]] = {
    ord("c"): (CONFIRM, False),
    ord("\r"): (CONFIRM, False),
    ord("\n"): (CONFIRM, False),
    ord("u"): (UNDO, False),
    0x7F: (UNDO, False),  # Backspace (DEL)
    0x08: (UNDO, False),  # Backspace (^H)
    ord("n"): (NEXT, False),
    ord(" "): (NEXT, False),
    ord("C"): (CONFIRM, True),
    ord("U"): (UNDO, True),
    ord("N"): (NEXT, True),
}
_ESCAPE = re.compile(rb"\x1b(\[[0-?]*[ -/]*[@-~]|O.|.)?", re.DOTALL)  # arrow keys etc.


def _keys(data: bytes) -> Iterator[tuple[str, bool]]:
    """The button actions typed in ``data``; escape sequences are skipped.

    >>> list(_keys(b"c\\x1b[CU"))
    [('CONFIRM', False), ('UNDO', True)]
    """
    for byte in _ESCAPE.sub(b"", data):
        if byte in KEYMAP:
            yield KEYMAP[byte]


def _enter_cbreak(fd: int, raw: bool) -> list[Any] | None:
    """Put terminal ``fd`` in cbreak (or raw) mode; returns the settings to restore."""
    if not os.isatty(fd):
        return None
    try:
        import termios
        import tty
    except ImportError as exc:
        raise ControlsUnavailable("keyboard controls need a POSIX terminal") from exc
    saved = termios.tcgetattr(fd)
    (tty.setraw if raw else tty.setcbreak)(fd)
    return saved


def _restore_terminal(fd: int, saved: list[Any] | None) -> None:
    if saved is None:
        return
    import termios

    try:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)
    except (OSError, termios.error):
        pass


class KeyboardControls(Controls):
    """A laptop stand-in: keys typed on a terminal are the buttons.

    ``fd`` is the terminal to read (default stdin), switched to cbreak mode
    (``raw=True``: raw mode, where Ctrl-C still interrupts the main thread)
    and restored on :meth:`close`. The light and beeps show in
    :attr:`status` and, if ``output`` is a writable text stream, as a status
    line written there (beeps also ring the terminal bell).

    >>> reader, writer = os.pipe()
    >>> controls = KeyboardControls(fd=reader)
    >>> _ = os.write(writer, b"n")
    >>> controls.events(timeout=2).button
    'NEXT'
    >>> controls.close(); os.close(reader); os.close(writer)
    """

    kind = "keyboard"

    def __init__(
        self,
        *,
        fd: int | None = None,
        output: TextIO | None = None,
        raw: bool = False,
        on_event: Callable[[ButtonEvent], Any] | None = None,
    ) -> None:
        super().__init__(on_event=on_event)
        self.fd = sys.stdin.fileno() if fd is None else fd
        self.output = output
        self._raw = raw
        self._saved = _enter_cbreak(self.fd, raw)
        self._wake_r, self._wake_w = os.pipe()
        self._thread = threading.Thread(
            target=self._read_loop, name="controls-keyboard", daemon=True
        )
        self._thread.start()
        self._render()

    def _read_loop(self) -> None:
        while not self._closed:
            ready, _, _ = select.select([self.fd, self._wake_r], [], [])
            if self._wake_r in ready:
                return
            try:
                data = os.read(self.fd, 64)
            except OSError as exc:
                self._set_status(FAULT, f"keyboard controls: cannot read keys ({exc})")
                return
            if not data:
                self._set_status(FAULT, "keyboard controls: input closed")
                return
            self._handle(data)

    def _handle(self, data: bytes) -> None:
        if self._raw and b"\x03" in data:
            import _thread

            _thread.interrupt_main()
        for button, long in _keys(data):
            self._emit(button, LONG_PRESS if long else PRESS)

    def _describe(self) -> str:
        beep = f", beep {self._last_beep}" if self._last_beep else ""
        return f"keyboard controls: light {self._light}{beep}"

    def _render(self, bell: str = "") -> None:
        if self._status.state == READY:
            self._set_status(READY, self._describe())
        if self.output is None:
            return
        try:
            self.output.write(f"{bell}\r\x1b[K[{self._describe()}]")
            self.output.flush()
        except (OSError, ValueError):
            pass

    def _show_light(self, state: str) -> None:
        self._render()

    def _sound(self, kind: str) -> None:
        self._render(bell="\a" * BEEPS[kind][2])

    def _release(self) -> None:
        os.write(self._wake_w, b"x")
        if self._thread is not threading.current_thread():
            self._thread.join(timeout=2)
        _restore_terminal(self.fd, self._saved)
        os.close(self._wake_r)
        os.close(self._wake_w)


# ---------------------------------------------------------------------------
# mock backend
# ---------------------------------------------------------------------------


class MockControls(Controls):
    """No hardware: events are pushed with :meth:`press`; lights and beeps are recorded.

    >>> controls = MockControls()
    >>> controls.press(UNDO); controls.beep("error")
    >>> controls.get_event(timeout=1).button, controls.beeps
    ('UNDO', ['error'])
    """

    kind = "mock"

    def __init__(self, *, on_event: Callable[[ButtonEvent], Any] | None = None) -> None:
        super().__init__(on_event=on_event)
        self.shown: list[str] = []
        self.beeps: list[str] = []

    def press(self, button: str, long: bool = False) -> None:
        """Act as if ``button`` was pressed (``long=True``: held past the hold time)."""
        self._emit(_button_name(button), LONG_PRESS if long else PRESS)

    def set_status(self, status: Status) -> None:
        """Pretend the device reports ``status`` (to test how callers show faults)."""
        self._status = status

    def _show_light(self, state: str) -> None:
        self.shown.append(state)

    def _sound(self, kind: str) -> None:
        self.beeps.append(kind)


# ---------------------------------------------------------------------------
# choosing a backend
# ---------------------------------------------------------------------------

#: Backend name -> factory taking keyword options. Extend with :func:`register_backend`.
BACKENDS: dict[str, Callable[..., Controls]] = {
    "gpio": GpioControls,
    "keyboard": KeyboardControls,
    "mock": MockControls,
}


def register_backend(name: str, factory: Callable[..., Controls]) -> None:
    """Make ``open_controls(name)`` build controls with ``factory(**options)``."""
    BACKENDS[name.lower()] = factory


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
    "gpio_available",
    "open_controls",
    "register_backend",
]
