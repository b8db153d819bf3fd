"""Serial button panel: a microcontroller with arcade buttons, an LED and a beeper.

For tables whose GPIO header is taken. The line protocol (ASCII lines ending
in ``\\n``) is specified in ``hardware/PANEL.md``:

* panel -> host: ``HELLO <version>`` at boot, ``P <BUTTON>`` for a press,
  ``L <BUTTON>`` for a long press (held :data:`LONG_PRESS_TIME` = the GPIO
  buttons' ``DEFAULT_HOLD_TIME``, 1.5 s), BUTTON being CONFIRM, UNDO or NEXT;
* host -> panel: ``LED READY|WAITING|FAULT|OFF`` (steady, blinking, off, off)
  and ``BEEP SHORT|LONG``.

:class:`SerialPanel` reads in a daemon thread and hands out
:class:`PanelEvent` objects through a thread-safe queue (or to ``on_event``).
Noise never crashes it: garbled lines are counted in :attr:`SerialPanel.status`;
an unplugged port gives a FAULT status and the thread keeps trying to reopen
it; an open port is only WAITING until the panel speaks (``HELLO`` or a valid
button line), since it may be some other device. As a ``hardware.controls``
backend it is :class:`hardware.controls.serial_panel.PanelControls`
(``open_controls("panel", url=...)``).

>>> panel = SerialPanel("loop://", clock=lambda: 1.5, start=False)
>>> panel.feed(b"P CONF")
>>> panel.feed(b"IRM\\nL UNDO\\n")
>>> panel.get_event(timeout=0)
PanelEvent(button='CONFIRM', kind='press', time=1.5)
>>> panel.get_event(timeout=0).kind
'long_press'
>>> panel.close()
"""

from __future__ import annotations

import logging
import os
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Self

import serial

from hardware.controls.base import DEFAULT_HOLD_TIME, ButtonEvent, Controls, ControlsUnavailable
from hardware.serial_link import IO_ERRORS, Opener, close_quietly, tell
from hardware.status import FAULT, READY, WAITING, Status

log = logging.getLogger(__name__)


BUTTONS = ("CONFIRM", "UNDO", "NEXT")
KINDS = {"P": "press", "L": "long_press"}
LED_STATES = ("READY", "WAITING", "FAULT", "OFF")
BEEPS = ("SHORT", "LONG")
MAX_LINE = 256  # bytes before the newline; longer lines are dropped
#: Seconds a button is held before the panel sends ``L``: the firmware's
#: ``LONG_MS`` (PANEL.md), the same as the GPIO buttons' ``DEFAULT_HOLD_TIME``.
LONG_PRESS_TIME = DEFAULT_HOLD_TIME


class GarbledLine(ValueError):
    """A line from the panel that is not in the protocol."""


@dataclass(frozen=True)
class PanelEvent:
    """A button press: ``button`` in CONFIRM/UNDO/NEXT, ``kind`` "press" or "long_press".

    ``time`` is the host clock when the line arrived.

    >>> PanelEvent("NEXT", "press", 0.0).button
    'NEXT'
    """

    button: str
    kind: str
    time: float


@dataclass(frozen=True)
class Hello:
    """The panel's boot line: ``HELLO <version>``."""

    version: str


def parse_line(line: bytes, time: float = 0.0) -> PanelEvent | Hello | None:
    """Parse one line (without its ``\\n``); None for a blank line.

    Raises :class:`GarbledLine` for anything outside the protocol. Words are
    matched without regard to case; a trailing ``\\r`` is ignored.

    >>> parse_line(b"L UNDO\\r", time=2.0)
    PanelEvent(button='UNDO', kind='long_press', time=2.0)
    >>> parse_line(b"HELLO 1.2")
    Hello(version='1.2')
    """
    if any(b < 0x20 or b > 0x7E for b in line.rstrip(b"\r")):
        raise GarbledLine(f"non-printable bytes: {line!r}")
    words = line.decode("ascii").upper().split()
    if not words:
        return None
    if len(words) == 2 and words[0] == "HELLO":
        return Hello(words[1])
    if len(words) == 2 and words[0] in KINDS and words[1] in BUTTONS:
        return PanelEvent(words[1], KINDS[words[0]], time)
    raise GarbledLine(f"unknown line: {line!r}")


def command_bytes(word: str, arg: str) -> bytes:
    """The exact bytes of a host -> panel command.

    >>> command_bytes("LED", "ready")
    b'LED READY\\n'
    """
    arg = arg.upper()
    allowed = {"LED": LED_STATES, "BEEP": BEEPS}[word]
    if arg not in allowed:
        raise ValueError(f"{word} takes one of {', '.join(allowed)}, not {arg!r}")
    return f"{word} {arg}\n".encode("ascii")


class LineSplitter:
    """Cuts a byte stream into lines, holding partial lines and dropping over-long ones.

    >>> s = LineSplitter(max_line=4)
    >>> s.feed(b"ab"), s.feed(b"c\\nabcdefg"), s.feed(b"h\\nx\\n"), s.overlong
    ([], [b'abc'], [b'x'], 1)
    """

    def __init__(self, max_line: int = MAX_LINE) -> None:
        self.max_line = max_line
        self.overlong = 0
        self._buffer = bytearray()
        self._skipping = False

    def feed(self, data: bytes) -> list[bytes]:
        """Add bytes; return the lines completed by them (without the ``\\n``)."""
        lines = []
        *complete, rest = bytes(data).split(b"\n")
        for piece in complete:
            self._add(piece)
            if not self._skipping:
                lines.append(bytes(self._buffer))
            self._buffer.clear()
            self._skipping = False
        self._add(rest)
        return lines

    def _add(self, piece: bytes) -> None:
        if self._skipping:
            return
        self._buffer += piece
        if len(self._buffer) > self.max_line:
            self.overlong += 1
            self._buffer.clear()
            self._skipping = True


class SerialPanel:
    """The button panel on a serial port, read by a daemon thread.

    ``url`` is anything :func:`serial.serial_for_url` opens; ``opener``
    replaces that function. The port is (re)opened every ``reconnect_interval``
    seconds while it is missing; the last LED state is sent again after each
    reconnect and each ``HELLO`` (an Arduino reboots when the port opens).
    The status is WAITING from each (re)connect until the panel speaks: a
    ``HELLO`` or, for firmware without one, a valid button line.
    ``on_event``, if given, receives each event (from the reader thread)
    instead of the queue of :meth:`get_event`.
    ``start=False`` leaves the thread off (then use :meth:`feed`).
    """

    def __init__(self, url: str, baudrate: int = 115200, *, timeout: float = 0.1,
                 reconnect_interval: float = 1.0,
                 on_status: Callable[[Status], None] | None = None,
                 on_event: Callable[[PanelEvent], None] | None = None,
                 opener: Opener = serial.serial_for_url,
                 clock: Callable[[], float] = time.monotonic,
                 start: bool = True) -> None:
        self.url, self.baudrate, self.timeout = url, baudrate, timeout
        self.reconnect_interval, self.on_status = reconnect_interval, on_status
        self.on_event = on_event
        self._opener, self._clock = opener, clock
        self.version: str | None = None
        self.garbled = 0
        self.reconnects = 0
        self._alive = False  # the panel spoke (HELLO or a button line) since connecting
        self._events: queue.Queue[PanelEvent] = queue.Queue()
        self._splitter = LineSplitter()
        self._port: Any = None
        self._led: bytes | None = None
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._last_status: Status | None = None
        if start:
            self.start()

    # -- public API -------------------------------------------------------

    def get_event(self, timeout: float | None = None) -> PanelEvent | None:
        """The next button event, waiting up to ``timeout`` seconds; None if none came."""
        try:
            return self._events.get(timeout=timeout) if timeout != 0 else self._events.get_nowait()
        except queue.Empty:
            return None

    def show(self, state: str | Status) -> bool:
        """Set the LED: "ready", "waiting", "fault", "off" or a :class:`Status`.

        Returns True if the command was written; when the port is down the
        state is kept and sent on reconnect.
        """
        word = state.state if isinstance(state, Status) else state
        data = command_bytes("LED", word)
        with self._lock:
            self._led = data
            return self._write(data)

    def beep(self, kind: str = "short") -> bool:
        """Beep "short" or "long"; True if the command was written."""
        return self._write(command_bytes("BEEP", kind))

    def feed(self, data: bytes) -> None:
        """Handle bytes as if they came from the panel (the reader thread calls this).

        The status is published before the events are handed out.
        """
        with self._lock:
            before = self._splitter.overlong
            lines = self._splitter.feed(data)
            self.garbled += self._splitter.overlong - before
            events = [e for e in map(self._handle, lines) if e is not None]
        self._publish()
        for event in events:
            self._deliver(event)

    @property
    def connected(self) -> bool:
        return self._port is not None

    @property
    def alive(self) -> bool:
        """True once the panel has spoken (``HELLO`` or a valid button line) since
        the port was last opened."""
        return self._alive

    @property
    def status(self) -> Status:
        """FAULT while unplugged; WAITING while the open port has not spoken; READY
        after a ``HELLO`` or a valid button line. Garbled lines ignored are mentioned."""
        n = self.garbled
        noise = f"; {n} garbled line{'s' if n != 1 else ''} ignored" if n else ""
        if self._port is None:
            if self._thread is None:
                return Status(WAITING, "panel: not started")
            return Status(FAULT, "panel unplugged")
        if not self._alive:
            return Status(WAITING, "panel connected; waiting for HELLO" + noise)
        return Status(READY, "panel ready" + noise)

    def start(self) -> None:
        """Start the daemon reader thread (done by the constructor unless ``start=False``)."""
        if self._thread is None:
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name="serial-panel", daemon=True)
            self._thread.start()

    def close(self) -> None:
        """Stop the reader thread and close the port."""
        thread, self._thread = self._thread, None
        self._stop.set()
        if thread is not None:
            thread.join(timeout=5)
        with self._lock:
            self._close_port()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- internals --------------------------------------------------------

    def _handle(self, line: bytes) -> PanelEvent | None:
        """Parse one line (lock held); returns the event to hand out, if any."""
        try:
            item = parse_line(line, self._clock())
        except GarbledLine as exc:
            self.garbled += 1
            log.debug("panel: %s", exc)
            return None
        if isinstance(item, PanelEvent):
            self._alive = True  # firmware without HELLO: a valid line is proof enough
            return item
        if isinstance(item, Hello):
            self._alive = True
            self.version = item.version
            if self._led is not None:
                self._write(self._led)
        return None

    def _deliver(self, event: PanelEvent) -> None:
        callback = self.on_event
        if callback is None:
            self._events.put(event)
            return
        try:
            callback(event)
        except Exception:  # a bad callback must not kill the reader thread
            log.exception("panel on_event callback")

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                if self._port is None and not self._open():
                    self._stop.wait(self.reconnect_interval)
                    continue
                data = self._port.read(self._port.in_waiting or 1)
            except (*IO_ERRORS, ValueError, TypeError) as exc:
                # TypeError/ValueError: pyserial's own errors on a port closed under it
                log.info("panel %s: %s", self.url, exc)
                with self._lock:
                    self._close_port()
                self._publish()
                continue
            if data:
                self.feed(data)

    def _open(self) -> bool:
        try:
            port = self._opener(self.url, baudrate=self.baudrate, timeout=self.timeout,
                                write_timeout=0.5)
        except (*IO_ERRORS, ValueError) as exc:
            log.debug("panel %s: cannot open: %s", self.url, exc)
            self._publish()
            return False
        with self._lock:
            self._port = port
            self._alive = False  # wait for HELLO again: it may be another device now
            self._splitter = LineSplitter(self._splitter.max_line)  # drop a stale partial line
            self.reconnects += 1
            if self._led is not None:
                self._write(self._led)
        self._publish()
        return True

    def _write(self, data: bytes) -> bool:
        with self._lock:
            port = self._port
            if port is None:
                return False
            try:
                port.write(data)
                port.flush()
                return True
            except IO_ERRORS as exc:
                log.info("panel %s: write failed: %s", self.url, exc)
                return False

    def _close_port(self) -> None:
        port, self._port = self._port, None
        self._alive = False
        close_quietly(port, "panel")

    def _publish(self) -> None:
        status = self.status
        if status != self._last_status:
            self._last_status = status
            tell(self.on_status, status, "panel")


# --- the ``panel`` backend of hardware.controls: the panel as Controls ---

#: The environment variable naming the panel's port when no ``url=`` is given.
PANEL_ENV_VAR = "TABLETOP_PANEL"

#: Controls beep -> the panel's ``BEEP`` word.
PANEL_BEEPS = {"tile_seen": "short", "error": "long"}


class PanelControls(Controls):
    """Buttons, light and beeper on a serial panel (``hardware/PANEL.md``).

    ``url`` is the port (``/dev/tabletop-panel``, ``loop://``, ...), by
    default ``$TABLETOP_PANEL``. The panel is read by
    :class:`~hardware.controls.serial_panel.SerialPanel`'s daemon thread, which reconnects
    on its own; :attr:`status` is the panel's (FAULT while unplugged, WAITING
    until it says ``HELLO``). The firmware decides long presses, at
    ``DEFAULT_HOLD_TIME`` (1.5 s) like the GPIO buttons.

    >>> controls = PanelControls(url="loop://")
    >>> controls.panel.feed(b"L NEXT\\n")
    >>> event = controls.events(timeout=1)
    >>> event.button, event.kind
    ('NEXT', 'long_press')
    >>> controls.close(); controls.panel.connected
    False
    """

    kind = "panel"

    def __init__(
        self,
        *,
        url: str | None = None,
        baudrate: int = 115200,
        reconnect_interval: float = 1.0,
        opener: Opener = serial.serial_for_url,
        on_status: Callable[[Status], None] | None = None,
        on_event: Callable[[ButtonEvent], Any] | None = None,
    ) -> None:
        super().__init__(on_event=on_event)
        url = url or os.environ.get(PANEL_ENV_VAR, "").strip()
        if not url:
            raise ControlsUnavailable(
                f"panel controls need a serial port: url=... or ${PANEL_ENV_VAR}"
            )
        self.url = url
        self.panel = SerialPanel(
            url,
            baudrate,
            reconnect_interval=reconnect_interval,
            on_status=on_status,
            on_event=self._on_panel_event,
            opener=opener,
        )

    def _on_panel_event(self, event: PanelEvent) -> None:
        self._emit(event.button, event.kind, at=event.time)

    @property
    def status(self) -> Status:
        """The panel's status (see :attr:`hardware.controls.serial_panel.SerialPanel.status`)."""
        if self._closed:
            return self._status
        return self.panel.status

    def _show_light(self, state: str) -> None:
        self.panel.show(state)  # kept and re-sent on reconnect if the port is down

    def _sound(self, kind: str) -> None:
        self.panel.beep(PANEL_BEEPS[kind])

    def _release(self) -> None:
        self.panel.close()
