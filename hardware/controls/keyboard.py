"""The ``keyboard`` backend of :mod:`hardware.controls`: terminal keys as the buttons."""

from __future__ import annotations

import os
import re
import select
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any, TextIO

from hardware.controls.base import (
    BEEPS,
    CONFIRM,
    LONG_PRESS,
    NEXT,
    PRESS,
    UNDO,
    ButtonEvent,
    Controls,
    ControlsUnavailable,
)
from hardware.status import FAULT, READY

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
        """Read keys until closed; a bad or closed fd ends it with a FAULT status."""
        while not self._closed:
            try:
                ready, _, _ = select.select([self.fd, self._wake_r], [], [])
                if self._wake_r in ready:
                    return
                data = os.read(self.fd, 64)
            except (OSError, ValueError) as exc:  # fd closed or bad: EBADF, EIO, -1
                if not self._closed:
                    self._fault(f"keyboard input closed ({exc})")
                return
            if not data:
                self._fault("keyboard input closed")
                return
            self._handle(data)

    def _fault(self, message: str) -> None:
        with self._lock:  # not overwritten by a _render() checking for READY meanwhile
            self._set_status(FAULT, message)

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
        with self._lock:
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
