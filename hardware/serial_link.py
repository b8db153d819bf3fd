"""What the serial devices (printer, panel) share: the errors a port can raise."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import serial

try:  # a vanished tty fails in termios calls (flush, attributes), not only in read/write
    from termios import error as _TermiosError
except ImportError:  # pragma: no cover - not POSIX
    _TermiosError = OSError

#: Everything a serial port may raise when its cable is pulled or it never was there.
IO_ERRORS = (serial.SerialException, OSError, _TermiosError)

#: Opens a port from a URL (``serial.serial_for_url`` or a test's replacement).
Opener = Callable[..., Any]
