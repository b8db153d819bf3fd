"""How the receipt printer reaches its device: a serial port, or a USB printer-class device file.

A printer on a UART or a USB-serial adapter is a terminal: pyserial opens it
(``/dev/ttyUSB0``, ``/dev/serial0``, ``loop://``, a pty). A USB printer of the
printer class is not: the kernel's usblp driver gives it ``/dev/usb/lp0`` (which
the udev rule also names ``/dev/tabletop-lp``), a plain character device on
which pyserial's termios calls fail ("Inappropriate ioctl for device"). It is
written as a file (:class:`DeviceFile`).

:func:`open_link` picks the backend from how the url looks (:func:`backend_for`):
an explicit ``file:`` or ``serial:`` prefix; else the first rule of
:data:`RULES` that claims the path (a usblp device by name or by its major
number); else serial. A new kind of device is one more entry in
:data:`BACKENDS` and, if its paths can be told apart, one in :data:`RULES`.

Both backends raise what the printer maps to its conditions: a timeout
(:data:`TIMEOUTS`) means the printer is there but does not take data, "offline";
any other :data:`hardware.serial_link.IO_ERRORS` (ENOENT, ENODEV, EIO, EPIPE,
ENXIO) means it is gone, "unplugged".

>>> backend_for("/dev/usb/lp0"), backend_for("/dev/ttyUSB0"), backend_for("file:/tmp/fifo")
(('file', '/dev/usb/lp0'), ('serial', '/dev/ttyUSB0'), ('file', '/tmp/fifo'))
"""

from __future__ import annotations

import errno
import fnmatch
import os
import select
import stat
import time
from collections.abc import Callable
from typing import Any, Protocol

import serial

USBLP_MAJOR = 180  # the usbmisc major the kernel's usblp driver registers its lp devices under
#: Paths that are USB printer-class devices by name.
USB_PRINTER_NAMES = ("/dev/usb/lp*", "/dev/usblp*", "/dev/tabletop-lp")
#: How long one write(2) may be (a usblp device takes at most a page per urb anyway).
CHUNK = 4096


class LinkTimeout(TimeoutError):
    """The device is there but did not take the data (or give a reply) in time."""


#: What a link raises when the printer is there but not taking data: the printer is "offline".
TIMEOUTS: tuple[type[BaseException], ...] = (serial.SerialTimeoutException, LinkTimeout)


class Link(Protocol):
    """What :class:`hardware.printer.ReceiptPrinter` needs of an open device."""

    write_timeout: float | None

    def write(self, data: bytes) -> int | None: ...

    def flush(self) -> None: ...

    def read(self, size: int = 1) -> bytes: ...

    def reset_input_buffer(self) -> None: ...

    def close(self) -> None: ...


class DeviceFile:
    """A printer device file (usblp, or a FIFO, pty or file for tests): non-blocking
    writes bounded by ``write_timeout``, reads bounded by ``timeout``.

    It is opened for reading too where that works (usblp on a bidirectional printer
    answers ``DLE EOT 4``); a FIFO is opened write-only, or it would read back our
    own queries, and a device that refuses reads turns write-only at the first
    refusal: :meth:`read` then returns ``b""`` at once, a printer without a status line.

    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile() as f:
    ...     link = DeviceFile(f.name, timeout=0.1, write_timeout=1.0)
    ...     link.write(b"\\x1b@Hi\\n"), link.read(1), open(f.name, "rb").read()
    ...     link.close()
    (5, b'', b'\\x1b@Hi\\n')
    """

    def __init__(self, path: str, *, timeout: float | None = 0.5,
                 write_timeout: float | None = None, **_serial_settings: Any) -> None:
        self.path, self.timeout, self.write_timeout = path, timeout, write_timeout
        self._fd: int | None = None
        self._deadline: float | None = None  # the last write's: flush waits no longer
        fifo = _is_fifo(path)
        flags = os.O_NOCTTY | os.O_NONBLOCK
        try:
            self._fd = os.open(path, flags | (os.O_WRONLY if fifo else os.O_RDWR))
            self.readable = not fifo
        except PermissionError:  # a device the group may write but not read
            self._fd = os.open(path, flags | os.O_WRONLY)
            self.readable = False

    def write(self, data: bytes) -> int:
        """Write all of ``data`` or raise :class:`LinkTimeout` when ``write_timeout`` passes."""
        deadline = self._deadline = _deadline(self.write_timeout)
        view, sent = memoryview(data), 0
        while sent < len(view):
            self._wait(select.POLLOUT, deadline)
            try:
                sent += os.write(self._fileno(), view[sent:sent + CHUNK])
            except BlockingIOError:  # usblp: the last urb is still going out (or no paper)
                time.sleep(0.005)
        return sent

    def flush(self) -> None:
        """Wait until the device takes more (usblp: the last urb is out), within the last
        write's ``write_timeout``."""
        deadline, self._deadline = self._deadline, None
        self._wait(select.POLLOUT, deadline or _deadline(self.write_timeout))

    def read(self, size: int = 1) -> bytes:
        """Up to ``size`` bytes, or ``b""`` after ``timeout`` (at once if write-only)."""
        if not self.readable:
            return b""
        try:
            self._wait(select.POLLIN, _deadline(self.timeout))
        except LinkTimeout:
            return b""
        try:
            return os.read(self._fileno(), size)
        except BlockingIOError:
            return b""
        except OSError as exc:
            if exc.errno not in (errno.EINVAL, errno.EOPNOTSUPP):
                raise
            self.readable = False  # a unidirectional printer: no status line
            return b""

    def reset_input_buffer(self) -> None:
        """Drop whatever the device sent before (a late reply to an earlier query)."""
        for _ in range(64):  # bounded: a device that never stops talking is not a printer
            if not self.readable or not self._poll(select.POLLIN, 0):
                return
            if not self.read(CHUNK):
                return

    def close(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)

    def fileno(self) -> int:
        return self._fileno()

    def _fileno(self) -> int:
        if self._fd is None:
            raise OSError(errno.EBADF, "printer device is closed", self.path)
        return self._fd

    def _poll(self, event: int, seconds: float) -> int:
        poller = select.poll()
        poller.register(self._fileno(), event)
        ready = poller.poll(max(0, int(seconds * 1000)))
        return ready[0][1] if ready else 0

    def _wait(self, event: int, deadline: float | None) -> None:
        """Return once ``event`` (or an error to read off the next call) is ready;
        :class:`LinkTimeout` at ``deadline``."""
        while True:
            left = 3600.0 if deadline is None else deadline - time.monotonic()
            if left <= 0:
                raise LinkTimeout(errno.ETIMEDOUT, "printer did not take the data in time",
                                  self.path)
            revents = self._poll(event, left)
            if revents & select.POLLNVAL:
                raise OSError(errno.EBADF, "printer device is closed", self.path)
            if revents:  # the event, or POLLERR/POLLHUP: the next read/write says which error
                return


def _deadline(seconds: float | None) -> float | None:
    return None if seconds is None else time.monotonic() + seconds


def _is_fifo(path: str) -> bool:
    try:
        return stat.S_ISFIFO(os.stat(path).st_mode)
    except OSError:
        return False  # let open() say what is wrong


def open_serial(path: str, **settings: Any) -> Any:
    """A pyserial port (``serial.serial_for_url``: device paths, ``loop://``, ...)."""
    return serial.serial_for_url(path, **settings)


def open_device_file(path: str, **settings: Any) -> DeviceFile:
    """A :class:`DeviceFile` (``baudrate`` and other serial settings do not apply)."""
    return DeviceFile(path, timeout=settings.get("timeout", 0.5),
                      write_timeout=settings.get("write_timeout"))


def is_usb_printer(path: str) -> bool:
    """A usblp device: named like one (``/dev/usb/lp*``, ``/dev/tabletop-lp``, plugged
    in or not) or a character device of the usblp major (a symlink the udev rule made).

    >>> [is_usb_printer(path) for path in ("/dev/usb/lp1", "/dev/tabletop-lp", "/dev/ttyS0")]
    [True, True, False]
    """
    if any(fnmatch.fnmatchcase(path, pattern) for pattern in USB_PRINTER_NAMES):
        return True
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return False
    return stat.S_ISCHR(info.st_mode) and os.major(info.st_rdev) == USBLP_MAJOR


#: The backends, by name (the name is also the url prefix that forces one: ``file:/dev/x``).
BACKENDS: dict[str, Callable[..., Any]] = {"serial": open_serial, "file": open_device_file}
#: How a url without a prefix chooses its backend: the first rule that claims the path.
RULES: list[tuple[Callable[[str], bool], str]] = [(is_usb_printer, "file")]
DEFAULT_BACKEND = "serial"


def backend_for(url: str) -> tuple[str, str]:
    """``(backend name, path)`` for ``url``: its ``name:`` prefix, the first rule that
    claims it, or :data:`DEFAULT_BACKEND`. ``loop://`` and other pyserial urls are serial.

    >>> backend_for("file:///dev/usb/lp0"), backend_for("serial:/dev/tabletop-lp")
    (('file', '/dev/usb/lp0'), ('serial', '/dev/tabletop-lp'))
    """
    name, sep, rest = url.partition(":")
    if sep and name in BACKENDS:
        return name, rest[2:] if rest.startswith("///") else rest
    for claims, backend in RULES:
        if claims(url):
            return backend, url
    return DEFAULT_BACKEND, url


def link_kind(url: str) -> str:
    """The backend :func:`open_link` would use for ``url`` (``"file"`` or ``"serial"``)."""
    return backend_for(url)[0]


def open_link(url: str, **settings: Any) -> Any:
    """Open ``url`` with its backend (:func:`backend_for`); ``settings`` as for pyserial
    (``baudrate``, ``timeout``, ``write_timeout``). Raises what the backend raises."""
    name, path = backend_for(url)
    return BACKENDS[name](path, **settings)
