"""The shared part of :mod:`hardware.controls`: constants, events and the base class.

Backends (:mod:`hardware.controls.gpio`, :mod:`hardware.controls.keyboard`,
:mod:`hardware.controls.serial_panel`) import from here, not from the package,
so no import goes in a circle; :mod:`hardware.controls` re-exports its public
names. :class:`MockControls` lives here too: it needs no hardware and the
:class:`Controls` example uses it.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Self

from hardware.status import READY, WAITING, Status

# The package's logger (``hardware.controls``), as before the split into modules.
log = logging.getLogger(__package__)
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

#: Light states: ``True`` steady on, ``False`` off, or a blink (on seconds, off seconds).
#: As the issue has it: steady = ready, blinking = waiting, off = fault (the
#: ``error`` beep is the audible fault signal); ``off`` is the same pin state as
#: ``fault``, for "nothing to show".
LIGHTS: dict[str, bool | tuple[float, float]] = {
    "ready": True,
    "waiting": (0.5, 0.5),
    "fault": False,
    "off": False,
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

    def _emit(self, button: str, kind: str, at: float | None = None) -> None:
        """Queue (and call back) an event; ``at`` is its time (default: now, monotonic)."""
        if self._closed:
            return
        event = ButtonEvent(button, kind, time.monotonic() if at is None else at)
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
        """Set the status light: ``ready`` (steady), ``waiting`` (blinking), ``fault``
        (off) or ``off``."""
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


class MockControls(Controls):
    """No hardware: events are pushed with :meth:`press`; lights and beeps are recorded
    (the last :data:`MOCK_MEMORY` of each).

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
        _keep_last(self.shown, state)

    def _sound(self, kind: str) -> None:
        _keep_last(self.beeps, kind)


#: How many lights and beeps a :class:`MockControls` remembers: it stands in for real
#: buttons on a laptop table for hours, so the record must not grow with the game.
MOCK_MEMORY = 100


def _keep_last(record: list[str], item: str) -> None:
    record.append(item)
    del record[:-MOCK_MEMORY]
