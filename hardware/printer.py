"""ESC/POS thermal receipt printer (58 mm, 32 columns) on a serial port.

The bytes of a slip come from a pure function, :func:`slip_bytes`; the
:class:`ReceiptPrinter` queues slips and sends them through pyserial. A printer
that is unplugged, silent or out of paper never blocks or raises into the
game: the slip waits in the queue, :attr:`ReceiptPrinter.status` says why, and
the next :meth:`~ReceiptPrinter.retry` (by hand, by :meth:`~ReceiptPrinter.poll`
or by the background thread) prints it. Slips print in order, each once.

Text is encoded as code page 437 (PC437, the table ``ESC @`` selects on
virtually every ESC/POS printer): ASCII plus the common accented letters, so
"Zoë" prints as it should. Any character that code page lacks, and any control
character, becomes ``?``; one character is always one byte and one column, so
wrapping to 32 columns is exact. QR data is sent as UTF-8.

>>> printer = ReceiptPrinter("loop://", check_paper=False)
>>> job = printer.print_slip("Ann wins with $42,000", qr="https://example.org/g/7")
>>> job.done, printer.status.state
(True, 'ready')
>>> printer.close()
"""

from __future__ import annotations

import itertools
import logging
import textwrap
import threading
import time
import unicodedata
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Self

import serial

from hardware.serial_link import IO_ERRORS, Opener
from hardware.status import FAULT, READY, WAITING, Status

log = logging.getLogger(__name__)


ENCODING = "cp437"
ESC_INIT = b"\x1b@"  # ESC @: initialize printer
STATUS_QUERY = b"\x10\x04\x04"  # DLE EOT 4: real-time roll paper sensor status
PAPER_END = 0x60  # bits 5-6 of the DLE EOT 4 reply: paper end detected
PAPER_LOW = 0x0C  # bits 2-3: paper near end
QR_MAX_BYTES = 2331  # model 2, version 40, error correction M, byte mode
_GS_K = b"\x1d(k"  # GS ( k: 2D code functions

# Printer conditions behind the status.
_UNKNOWN, _OK, _LOW, _NO_PAPER, _UNPLUGGED, _OFFLINE = (
    "unknown", "ok", "low", "no_paper", "unplugged", "offline")


def _printable(ch: str) -> str:
    """One character as the printer will show it: itself or ``?``."""
    if unicodedata.category(ch) in ("Cc", "Cf", "Cs"):
        return "?"
    try:
        ch.encode(ENCODING)
    except UnicodeEncodeError:
        return "?"
    return ch


def wrap_text(text: str, columns: int = 32) -> list[str]:
    """Split ``text`` into printable lines of at most ``columns`` characters.

    Long lines wrap at spaces (words longer than a line are cut); short lines,
    blank lines and inner spacing are kept as written.

    >>> wrap_text("Tower  7 tiles  $700\\nthe quick brown fox jumps", 12)
    ['Tower  7', 'tiles  $700', 'the quick', 'brown fox', 'jumps']
    """
    if columns < 1:
        raise ValueError("columns must be at least 1")
    text = unicodedata.normalize("NFC", text).expandtabs(4)
    lines: list[str] = []
    for raw in text.splitlines():
        line = "".join(_printable(ch) for ch in raw.rstrip())
        if len(line) <= columns:
            lines.append(line)
        else:
            lines.extend(textwrap.wrap(line, columns, break_on_hyphens=False))
    return lines


def qr_bytes(data: str, module_size: int = 6) -> bytes:
    """The GS ( k sequence that prints ``data`` as a QR code (model 2, level M).

    Functions 165 (model 2), 167 (module size), 169 (error correction M),
    180 (store the data) and 181 (print it).

    >>> qr_bytes("A")[-8:]  # fn 181: GS ( k 3 0 49 81 48
    b'\\x1d(k\\x03\\x001Q0'
    """
    payload = data.encode("utf-8")
    if len(payload) > QR_MAX_BYTES:
        raise ValueError(f"QR data too long: {len(payload)} bytes (max {QR_MAX_BYTES})")
    if not 1 <= module_size <= 16:
        raise ValueError("QR module size must be 1..16")
    n = len(payload) + 3
    return b"".join([
        _GS_K, b"\x04\x00\x31\x41\x32\x00",  # fn 165: model 2
        _GS_K, b"\x03\x00\x31\x43", bytes([module_size]),  # fn 167: module size
        _GS_K, b"\x03\x00\x31\x45\x31",  # fn 169: error correction M (49)
        _GS_K, bytes([n & 0xFF, n >> 8]), b"\x31\x50\x30", payload,  # fn 180: store
        _GS_K, b"\x03\x00\x31\x51\x30",  # fn 181: print
    ])


def slip_bytes(text: str, qr: str | None = None, columns: int = 32, *,
               qr_module_size: int = 6, cut_feed: int = 3) -> bytes:
    """Every byte of one slip: init, text, centred QR code, feed and partial cut.

    ``ESC @``; each line of :func:`wrap_text` in code page 437 followed by LF;
    if ``qr`` is given, ``ESC a 1`` (centre), :func:`qr_bytes`, ``ESC a 0``;
    then ``GS V 66 n``: feed to the cutter plus ``n`` dots and cut partially.

    >>> slip_bytes("Hi")
    b'\\x1b@Hi\\n\\x1dVB\\x03'
    """
    lines = wrap_text(text, columns)
    body = b"".join(line.encode(ENCODING) + b"\n" for line in lines)
    code = b"\x1ba\x01" + qr_bytes(qr, qr_module_size) + b"\x1ba\x00" if qr else b""
    return ESC_INIT + body + code + b"\x1dVB" + bytes([cut_feed])


@dataclass(eq=False)
class Job:
    """One slip in the queue; ``done`` turns true once it is printed.

    >>> Job(1, b"\\x1b@").done
    False
    """

    number: int
    data: bytes
    text: str = ""
    qr: str | None = None
    _printed: threading.Event = field(default_factory=threading.Event, repr=False)

    @property
    def done(self) -> bool:
        return self._printed.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until printed or ``timeout`` seconds pass; True if printed."""
        return self._printed.wait(timeout)


class ReceiptPrinter:
    """A serial ESC/POS printer with a queue that survives faults.

    ``url`` is anything :func:`serial.serial_for_url` opens (``/dev/ttyUSB0``,
    ``loop://``, a pty path). ``opener`` replaces that function (a factory for
    tests or other transports); ``clock`` times :meth:`poll`'s minimum
    ``retry_interval``; ``on_status`` is called with each new :class:`Status`.
    With ``check_paper`` the printer is asked ``DLE EOT 4`` before each slip.

    >>> p = ReceiptPrinter("/dev/nonexistent-printer")
    >>> p.print_slip("Bob: $3,100").done
    False
    >>> p.status
    Status(state='fault', message='printer unplugged; 1 slip waiting')
    >>> p.reconnect("loop://").state
    'ready'
    >>> p.close()
    """

    def __init__(self, url: str, baudrate: int = 9600, columns: int = 32, *,
                 timeout: float = 0.5, retry_interval: float = 5.0,
                 check_paper: bool = True, qr_module_size: int = 6,
                 on_status: Callable[[Status], None] | None = None,
                 opener: Opener = serial.serial_for_url,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.url, self.baudrate, self.columns = url, baudrate, columns
        self.timeout, self.retry_interval = timeout, retry_interval
        self.check_paper, self.qr_module_size = check_paper, qr_module_size
        self.on_status, self._opener, self._clock = on_status, opener, clock
        self._port: Any = None
        self._queue: deque[Job] = deque()
        self._numbers = itertools.count(1)
        self._lock = threading.RLock()
        self._condition = _UNKNOWN
        self._last_status = self.status
        self._last_try: float | None = None
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # -- public API -------------------------------------------------------

    def print_slip(self, text: str, qr: str | None = None) -> Job:
        """Queue a slip and try to print it now (or wake the background thread).

        Raises ValueError only for a QR payload too long for any QR code.
        """
        data = slip_bytes(text, qr, self.columns, qr_module_size=self.qr_module_size)
        job = Job(next(self._numbers), data, text, qr)
        with self._lock:
            self._queue.append(job)
        if self._thread is not None:
            self._wake.set()
        else:
            self.retry()
        return job

    def retry(self) -> Status:
        """Try now to print every waiting slip, in order; with none, check the printer."""
        with self._lock:
            self._last_try = self._clock()
            if not self._ensure_open():
                return self._publish()
            if not self._queue:
                self._check_paper()
            while self._queue and self._check_paper():
                if not self._send(self._queue[0]):
                    break
                self._queue.popleft()._printed.set()
            return self._publish()

    def poll(self) -> Status:
        """Call :meth:`retry` if ``retry_interval`` has passed since the last try."""
        last = self._last_try
        if last is None or self._clock() - last >= self.retry_interval:
            return self.retry()
        return self.status

    def reconnect(self, url: str | None = None) -> Status:
        """Close the port, optionally switch to ``url``, and retry at once."""
        with self._lock:
            self._close_port()
            if url is not None:
                self.url = url
        return self.retry()

    @property
    def pending(self) -> list[Job]:
        """The slips still waiting, oldest first."""
        with self._lock:
            return list(self._queue)

    @property
    def status(self) -> Status:
        """READY, WAITING (out of paper, or slips not yet sent) or FAULT, for the screen."""
        n = len(self._queue)
        waiting = f"{n} slip{'s' if n != 1 else ''} waiting"
        suffix = f"; {waiting}" if n else ""
        if self._condition == _UNPLUGGED:
            return Status(FAULT, "printer unplugged" + suffix)
        if self._condition == _OFFLINE:
            return Status(FAULT, "printer offline" + suffix)
        if self._condition == _NO_PAPER:
            return Status(WAITING, "printer: out of paper" + suffix)
        if n or self._condition == _UNKNOWN:
            return Status(WAITING, "printer: " + (waiting if n else "not checked yet"))
        if self._condition == _LOW:
            return Status(READY, "printer ready; paper low")
        return Status(READY, "printer ready")

    def start(self) -> None:
        """Print and retry from a daemon thread: at once for new slips, else every interval."""
        if self._thread is None:
            self._stop.clear()
            self._wake.set()
            self._thread = threading.Thread(target=self._run, name="receipt-printer",
                                            daemon=True)
            self._thread.start()

    def close(self) -> None:
        """Stop the background thread and close the port; waiting slips stay in :attr:`pending`."""
        thread, self._thread = self._thread, None
        if thread is not None:
            self._stop.set()
            self._wake.set()
            thread.join(timeout=5)
        with self._lock:
            self._close_port()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- internals --------------------------------------------------------

    def _run(self) -> None:
        tick = max(0.01, min(self.retry_interval, 0.5))
        while not self._stop.is_set():
            woken = self._wake.wait(tick)
            if self._stop.is_set():
                break
            try:
                if woken:
                    self._wake.clear()
                    self.retry()
                else:
                    self.poll()
            except Exception:  # never let the thread die
                log.exception("printer thread")

    def _ensure_open(self) -> bool:
        if self._port is not None:
            return True
        try:
            self._port = self._opener(self.url, baudrate=self.baudrate,
                                      timeout=self.timeout, write_timeout=self.timeout)
            return True
        except (*IO_ERRORS, ValueError) as exc:
            log.info("printer %s: cannot open: %s", self.url, exc)
            self._condition = _UNPLUGGED
            return False

    def _check_paper(self) -> bool:
        """Ask DLE EOT 4 (when enabled); True if the printer can print."""
        if not self.check_paper:
            self._condition = _OK
            return True
        try:
            self._port.reset_input_buffer()
            self._port.write(STATUS_QUERY)
            self._port.flush()
            reply = self._port.read(1)
        except serial.SerialTimeoutException:
            return self._fail(_OFFLINE, "status query timed out")
        except IO_ERRORS as exc:
            return self._fail(_UNPLUGGED, f"status query failed: {exc}")
        if not reply:
            self._condition = _OFFLINE  # keep the port: it may wake up
            return False
        byte = reply[0]
        self._condition = (_NO_PAPER if byte & PAPER_END
                           else _LOW if byte & PAPER_LOW else _OK)
        return self._condition != _NO_PAPER

    def _send(self, job: Job) -> bool:
        try:
            self._port.write(job.data)
            self._port.flush()
        except serial.SerialTimeoutException:
            return self._fail(_OFFLINE, f"slip {job.number}: write timed out")
        except IO_ERRORS as exc:
            return self._fail(_UNPLUGGED, f"slip {job.number}: write failed: {exc}")
        if not self.check_paper:
            self._condition = _OK
        return True

    def _fail(self, condition: str, why: str) -> bool:
        log.info("printer %s: %s", self.url, why)
        self._condition = condition
        self._close_port()
        return False

    def _close_port(self) -> None:
        port, self._port = self._port, None
        if port is not None:
            try:
                port.close()
            except Exception:  # closing a dead port may fail; it is gone anyway
                log.debug("printer close failed", exc_info=True)

    def _publish(self) -> Status:
        status = self.status
        if status != self._last_status:
            self._last_status = status
            if self.on_status is not None:
                try:
                    self.on_status(status)
                except Exception:
                    log.exception("printer on_status callback")
        return status
