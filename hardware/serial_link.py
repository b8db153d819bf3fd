"""What the serial devices (printer, panel) share: the errors a port can raise."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import serial

log = logging.getLogger("hardware")

try:  # a vanished tty fails in termios calls (flush, attributes), not only in read/write
    from termios import error as _TermiosError
except ImportError:  # pragma: no cover - not POSIX
    _TermiosError = OSError

#: Everything a serial port may raise when its cable is pulled or it never was there.
IO_ERRORS = (serial.SerialException, OSError, _TermiosError)

#: Opens a port from a URL (``serial.serial_for_url`` or a test's replacement).
Opener = Callable[..., Any]


def close_quietly(port: Any, what: str) -> None:
    """Close ``port`` if there is one; closing a dead port may fail, and it is gone anyway."""
    if port is not None:
        try:
            port.close()
        except Exception:  # noqa: BLE001
            log.debug("%s close failed", what, exc_info=True)


def tell(on_status: Callable[[Any], None] | None, status: Any, what: str) -> None:
    """Hand ``status`` to the screen's callback; a failing callback never stops the device."""
    if on_status is not None:
        try:
            on_status(status)
        except Exception:  # noqa: BLE001
            log.exception("%s on_status callback", what)
