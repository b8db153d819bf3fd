"""ESC/POS thermal receipt printer (58 mm, 32 columns) on a serial port or USB.

The bytes of a slip come from a pure function, :func:`hardware.escpos.slip_bytes`; the
:class:`ReceiptPrinter` queues slips and a background worker thread sends them
through a link (:mod:`hardware.printer_link`: pyserial for a serial port, the
device file for a USB printer-class device such as ``/dev/usb/lp0``). The
game-facing calls (:meth:`~ReceiptPrinter.print_slip`, :meth:`~ReceiptPrinter.poll`,
:attr:`~ReceiptPrinter.status`, :attr:`~ReceiptPrinter.pending`) never touch the
port and never wait for it: a
printer that is unplugged, silent or out of paper never blocks or raises into
the game. The slip waits in the queue, :attr:`ReceiptPrinter.status` says why,
and the worker retries every ``retry_interval`` seconds. Slips print in order.

A slip whose write fails after it began (write timeout, cable pulled) may have
printed in part, and no link can say how much. It is never sent again as
if nothing had happened: the next attempt prints it whole under a
``*** REPRINT ***`` line (:data:`REPRINT_LINE`), so the half slip above it can
be torn off and thrown away. Otherwise every slip prints exactly once.

With ``check_paper`` the printer is asked ``DLE EOT 4`` before each slip. A
printer wired TX-only (a common Raspberry Pi UART wiring) can never answer:
after ``status_tries`` unanswered queries on a port that opens fine, and as
long as the printer has never answered on that port, the printer prints
without the paper check and reports READY "printer ready (no status line:
paper not checked)". A printer that was switched off behind a USB adapter at
start-up looks the same, and slips sent to it then are lost; one that has
answered once is never given up on this way.

What the bytes of a slip are (code page 437, Chinese mode, QR codes, the cut)
is :mod:`hardware.escpos`'s. The QR code is the printer's own command or an image
(the ``qr`` mode: :data:`QR_MODES`).

>>> printer = ReceiptPrinter("loop://", check_paper=False)
>>> job = printer.print_slip("Ann wins with $42,000", qr="https://example.org/g/7")
>>> job.wait(5), printer.status.state
(True, 'ready')
>>> printer.close()
"""

from __future__ import annotations

import itertools
import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Self

from hardware.escpos import ESC_INIT, cjk_codec, qr_image_available, slip_bytes
from hardware.printer_link import TIMEOUTS, link_kind, open_link
from hardware.serial_link import IO_ERRORS, Opener, close_quietly, tell
from hardware.status import FAULT, READY, WAITING, Status
from tabletop.messages import Message

log = logging.getLogger(__name__)


STATUS_QUERY = b"\x10\x04\x04"  # DLE EOT 4: real-time roll paper sensor status
PAPER_END = 0x60  # bits 5-6 of the DLE EOT 4 reply: paper end detected
PAPER_LOW = 0x0C  # bits 2-3: paper near end
REPRINT_LINE = b"*** REPRINT ***\n"  # heads a slip sent again after a failed write
#: How the QR code is printed: the printer's ``GS ( k``, a raster image, or "auto": the
#: image on a USB printer-class device (its 20 kB take no time there, and it prints on
#: printers without GS ( k), the native command on a serial port (the image would take
#: 20 s at 9600 baud) or where segno is not installed.
QR_MODES = ("native", "image", "auto")

# Printer conditions behind the status.
_UNKNOWN, _OK, _LOW, _NO_PAPER, _UNPLUGGED, _OFFLINE, _UNCHECKED = (
    "unknown", "ok", "low", "no_paper", "unplugged", "offline", "unchecked")


def _and_waiting(state: Message, waiting: int) -> Message:
    """The printer's ``state``, and the slips waiting when there are any."""
    if waiting > 1:
        return Message("{state}; {count} slips waiting", state=state, count=waiting)
    if waiting:
        return Message("{state}; {count} slip waiting", state=state, count=waiting)
    return state

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
    #: A write of this slip failed after it began, so part of it may be on paper:
    #: it is sent again whole under :data:`REPRINT_LINE`.
    reprint: bool = False
    _printed: threading.Event = field(default_factory=threading.Event, repr=False)

    @property
    def done(self) -> bool:
        return self._printed.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until printed or ``timeout`` seconds pass; True if printed."""
        return self._printed.wait(timeout)

    def payload(self) -> bytes:
        """The bytes to send now: :attr:`data`, or with :data:`REPRINT_LINE` after ``ESC @``.

        >>> job = Job(1, b"\\x1b@Hi\\n", reprint=True)
        >>> job.payload()
        b'\\x1b@*** REPRINT ***\\nHi\\n'
        """
        if not self.reprint:
            return self.data
        return ESC_INIT + REPRINT_LINE + self.data.removeprefix(ESC_INIT)


class ReceiptPrinter:
    """A serial or USB ESC/POS printer with a queue that survives faults.

    ``url`` is anything :func:`hardware.printer_link.open_link` opens: a serial
    port or pyserial url (``/dev/ttyUSB0``, ``loop://``, a pty path), a USB
    printer-class device (``/dev/usb/lp0``, ``/dev/tabletop-lp``), either forced by
    a ``serial:`` or ``file:`` prefix. ``opener`` replaces that function (a
    factory for tests or other transports); ``clock`` times the minimum
    ``retry_interval`` between tries; ``on_status`` is called with each new :class:`Status`, from
    the worker thread (or from whoever called :meth:`retry`). With
    ``check_paper`` the printer is asked ``DLE EOT 4`` before each slip; after
    ``status_tries`` unanswered queries from a printer that never answered, it
    prints without asking (see the module docstring).

    ``cjk``: the double-byte encoding of a printer with a Chinese font
    (``"gb18030"`` for simplified Chinese models, ``"big5"`` for traditional
    ones); None for a printer without one (wide characters print as ``??``).

    ``qr``: how QR codes print (:data:`QR_MODES`): ``"native"`` (``GS ( k``),
    ``"image"`` (a raster bit image, for printers without ``GS ( k``) or ``"auto"``.

    ``timeout`` is the read timeout of the status reply and the margin of
    every write: a write may take twice its time on the wire
    (``10 * len(data) / baudrate`` seconds) plus ``timeout``.

    All port I/O happens on one daemon worker thread, started by the first
    :meth:`print_slip`, :meth:`poll` or :meth:`start` and stopped by
    :meth:`close` (a later call starts it again). :meth:`retry` and
    :meth:`reconnect` do the I/O on the caller's thread and wait for it, for
    tests and tools; the game should not call them.

    >>> p = ReceiptPrinter("/dev/nonexistent-printer")
    >>> job = p.print_slip("Bob: $3,100")  # returns at once; the worker prints
    >>> p.retry()  # the same try, on this thread
    Status(state='fault', message='printer unplugged; 1 slip waiting')
    >>> job.done
    False
    >>> p.reconnect("loop://").state
    'ready'
    >>> job.done
    True
    >>> p.close()
    """

    def __init__(self, url: str, baudrate: int = 9600, columns: int = 32, *,
                 timeout: float = 0.5, retry_interval: float = 5.0,
                 check_paper: bool = True, status_tries: int = 3,
                 qr_module_size: int = 6, cjk: str | None = None, qr: str = "native",
                 on_status: Callable[[Status], None] | None = None,
                 opener: Opener = open_link,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.url, self.baudrate, self.columns = url, baudrate, columns
        self.timeout, self.retry_interval = timeout, retry_interval
        self.check_paper, self.status_tries = check_paper, status_tries
        self.qr_module_size = qr_module_size
        self.cjk = cjk_codec(cjk)
        if qr not in QR_MODES:
            raise ValueError(f"unknown QR mode {qr!r:.20} (one of {', '.join(QR_MODES)})")
        self.qr_mode = qr
        self.on_status, self._opener, self._clock = on_status, opener, clock
        self._port: Any = None
        self._queue: deque[Job] = deque()
        self._numbers = itertools.count(1)
        self._io_lock = threading.RLock()  # held during port I/O (retry, reconnect, close)
        self._queue_lock = threading.Lock()  # never held during I/O
        self._thread_lock = threading.Lock()  # starting and stopping the worker
        self._condition = _UNKNOWN
        self._unanswered = 0  # status queries in a row without a reply
        self._answered = False  # the printer has answered a status query on this url
        self._no_status_line = False  # printing without the paper check
        self._last_status = self.status
        self._last_try: float | None = None
        self._kick = False  # the worker should try at once, whatever the interval
        self._busy = False  # the worker is handling a wake-up or tick
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # -- public API: never waits for the port ------------------------------

    def print_slip(self, text: str, qr: str | None = None) -> Job:
        """Queue a slip and wake the worker; returns at once, without any I/O.

        Raises ValueError only for a QR payload too long to print
        (see :func:`qr_bytes`), or in the image mode without segno installed.
        """
        data = slip_bytes(text, qr, self.columns, qr_module_size=self.qr_module_size,
                          cjk=self.cjk, qr_mode=self._qr_mode())
        with self._queue_lock:
            job = Job(next(self._numbers), data, text, qr)
            self._queue.append(job)
            self._kick = True
        self._ensure_worker()
        self._wake.set()
        return job

    def poll(self) -> Status:
        """The current status; wakes the worker if ``retry_interval`` has passed. No I/O."""
        self._ensure_worker()
        if self._due():
            self._wake.set()
        return self.status

    @property
    def pending(self) -> list[Job]:
        """The slips still waiting, oldest first."""
        with self._queue_lock:
            return list(self._queue)

    @property
    def status(self) -> Status:
        """READY, WAITING (out of paper, or slips not yet sent) or FAULT, for the screen."""
        n = len(self._queue)
        condition = self._condition
        if condition == _UNPLUGGED:
            return Status(FAULT, _and_waiting(Message("printer unplugged"), n))
        if condition == _OFFLINE:
            return Status(FAULT, _and_waiting(Message("printer offline"), n))
        if condition == _NO_PAPER:
            return Status(WAITING, _and_waiting(Message("printer: out of paper"), n))
        if n > 1:
            return Status(WAITING, Message("printer: {count} slips waiting", count=n))
        if n:
            return Status(WAITING, Message("printer: {count} slip waiting", count=n))
        if condition == _UNKNOWN:
            return Status(WAITING, Message("printer: not checked yet"))
        if condition == _LOW:
            return Status(READY, Message("printer ready; paper low"))
        if condition == _UNCHECKED:
            return Status(READY, Message("printer ready (no status line: paper not checked)"))
        return Status(READY, Message("printer ready"))

    def start(self) -> None:
        """Start the worker now (it otherwise starts on first use) and check the printer at once."""
        with self._queue_lock:
            self._kick = True
        self._ensure_worker()
        self._wake.set()

    def close(self) -> None:
        """Stop the worker and close the port; waiting slips stay in :attr:`pending`.

        Waits for a write in progress to end (at most its write timeout).
        """
        with self._thread_lock:
            thread, self._thread = self._thread, None
            stop = self._stop
        stop.set()
        self._wake.set()
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=5)
        with self._io_lock:
            self._close_port()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- synchronous I/O, for the worker, tests and tools -----------------

    def retry(self) -> Status:
        """Print every waiting slip now, in order, on this thread; with none, check the printer.

        Blocks for the I/O (and for the worker's, if it is busy).
        """
        with self._io_lock:
            self._last_try = self._clock()
            if not self._ensure_open():
                return self._publish()
            if not self.pending:
                self._check_paper()
            while True:
                with self._queue_lock:
                    job = self._queue[0] if self._queue else None
                if job is None or not self._check_paper() or not self._send(job):
                    break
                with self._queue_lock:
                    self._queue.popleft()
                job._printed.set()
            return self._publish()

    def reconnect(self, url: str | None = None) -> Status:
        """Close the port, optionally switch to ``url``, and :meth:`retry` at once (blocking).

        A new ``url`` also forgets what was learnt about the status line.
        """
        with self._io_lock:
            self._close_port()
            if url is not None and url != self.url:
                self.url = url
                self._unanswered, self._answered, self._no_status_line = 0, False, False
            return self.retry()

    def wait_idle(self, timeout: float = 5.0) -> bool:
        """Block until the worker has handled every request so far; False on timeout.

        For tests and tools that want to look at the result of the worker's try.
        """
        deadline = time.monotonic() + timeout
        while True:
            thread = self._thread
            with self._queue_lock:
                kicked = self._kick
            if thread is None or not thread.is_alive() or not (
                    kicked or self._busy or self._wake.is_set()):
                return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.002)

    # -- internals --------------------------------------------------------

    def _ensure_worker(self) -> None:
        with self._thread_lock:
            if self._thread is not None and self._thread.is_alive():
                return
            self._stop = threading.Event()
            self._thread = threading.Thread(target=self._run, args=(self._stop,),
                                            name="receipt-printer", daemon=True)
            self._thread.start()

    def _qr_mode(self) -> str:
        if self.qr_mode != "auto":
            return self.qr_mode
        usb = link_kind(self.url) == "file"
        return "image" if usb and qr_image_available() else "native"

    def _due(self) -> bool:
        last = self._last_try
        return last is None or self._clock() - last >= self.retry_interval

    def _run(self, stop: threading.Event) -> None:
        tick = max(0.01, min(self.retry_interval, 0.5))
        while not stop.is_set():
            self._wake.wait(tick)
            self._busy = True  # before clearing the wake-up, so wait_idle sees no gap
            self._wake.clear()
            try:
                if stop.is_set():
                    break
                with self._queue_lock:
                    kick, self._kick = self._kick, False
                if kick or self._due():
                    self.retry()
            except Exception:  # never let the thread die
                log.exception("printer thread")
            finally:
                self._busy = False

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

    def _write(self, data: bytes) -> None:
        """Write and drain ``data`` with a write timeout sized to it."""
        write_timeout = self.timeout + 2 * 10 * len(data) / self.baudrate
        if getattr(self._port, "write_timeout", None) != write_timeout:
            self._port.write_timeout = write_timeout
        self._port.write(data)
        self._port.flush()

    def _check_paper(self) -> bool:
        """Ask DLE EOT 4 (when enabled); True if the printer can print."""
        if not self.check_paper:
            self._condition = _OK
            return True
        if self._no_status_line:
            self._condition = _UNCHECKED
            return True
        try:
            self._port.reset_input_buffer()
            self._write(STATUS_QUERY)
            reply = self._port.read(1)
        except TIMEOUTS:
            return self._fail(_OFFLINE, "status query timed out")
        except IO_ERRORS as exc:
            return self._fail(_UNPLUGGED, f"status query failed: {exc}")
        if not reply:
            self._unanswered += 1
            if not self._answered and self._unanswered >= self.status_tries:
                log.warning("printer %s: %d status queries unanswered; printing without "
                            "the paper check (TX-only wiring, or a one-way USB printer?)", self.url,
                            self._unanswered)
                self._no_status_line = True
                self._condition = _UNCHECKED
                return True
            self._condition = _OFFLINE  # keep the port: it may wake up
            return False
        self._unanswered, self._answered = 0, True
        byte = reply[0]
        self._condition = (_NO_PAPER if byte & PAPER_END
                           else _LOW if byte & PAPER_LOW else _OK)
        return self._condition != _NO_PAPER

    def _send(self, job: Job) -> bool:
        try:
            self._write(job.payload())
        except TIMEOUTS:
            job.reprint = True
            return self._fail(_OFFLINE, f"slip {job.number}: write timed out")
        except IO_ERRORS as exc:
            job.reprint = True
            return self._fail(_UNPLUGGED, f"slip {job.number}: write failed: {exc}")
        return True

    def _fail(self, condition: str, why: str) -> bool:
        log.info("printer %s: %s", self.url, why)
        self._condition = condition
        self._close_port()
        return False

    def _close_port(self) -> None:
        port, self._port = self._port, None
        close_quietly(port, "printer")

    def _publish(self) -> Status:
        status = self.status
        if status != self._last_status:
            self._last_status = status
            tell(self.on_status, status, "printer")
        return status
