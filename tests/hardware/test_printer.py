"""The ESC/POS receipt printer: exact bytes, wrapping, and faults on real ptys and loop://."""

from __future__ import annotations

import os
import select
import threading
import time
import tty

import pytest
import serial

from hardware.printer import ReceiptPrinter, qr_bytes, slip_bytes, wrap_text
from hardware.status import FAULT, READY, WAITING, Status

QUERY = b"\x10\x04\x04"  # DLE EOT 4
OK_BYTE = 0x12  # fixed bits only: paper present
PAPER_END_BYTE = 0x72  # 0x12 | 0x60
CUT = b"\x1d\x56\x42\x03"  # GS V 66 3


def wait_until(predicate, timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.005)
    return predicate()


class FakePrinter:
    """The device end of a pseudo-terminal: records bytes, answers DLE EOT 4 with ``reply``."""

    def __init__(self, reply: int | None = OK_BYTE, reading: bool = True) -> None:
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        self.url = os.ttyname(self.slave)
        self.reply = reply
        self.received = bytearray()
        self._asked = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._reading = threading.Event()
        if reading:
            self._reading.set()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def start_reading(self) -> None:
        self._reading.set()

    def data(self) -> bytes:
        with self._lock:
            return bytes(self.received)

    def _run(self) -> None:
        while not self._stop.is_set():
            if not self._reading.wait(0.02):
                continue
            ready, _, _ = select.select([self.master], [], [], 0.02)
            if not ready:
                continue
            try:
                chunk = os.read(self.master, 65536)
            except OSError:
                return
            with self._lock:
                self.received += chunk
                asked = self.received.count(QUERY)
            while self._asked < asked:
                self._asked += 1
                if self.reply is not None:
                    os.write(self.master, bytes([self.reply]))

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)
        os.close(self.master)
        os.close(self.slave)


@pytest.fixture
def device():
    fake = FakePrinter()
    yield fake
    fake.close()


def gs_k(*body: int) -> bytes:
    return bytes([0x1D, 0x28, 0x6B, *body])


# -- the bytes, computed by hand from the ESC/POS manual -------------------

def test_slip_bytes_exact_with_qr():
    expected = (
        b"\x1b\x40"  # ESC @
        + b"Ann    $4,200\n" + b"Bob    $3,100\n"
        + b"\x1b\x61\x01"  # ESC a 1: centre
        + gs_k(4, 0, 49, 65, 50, 0)  # fn 165: QR model 2
        + gs_k(3, 0, 49, 67, 6)  # fn 167: module size 6
        + gs_k(3, 0, 49, 69, 49)  # fn 169: error correction M
        + gs_k(6, 0, 49, 80, 48) + b"ABC"  # fn 180: store 3 bytes (pL = 3 + 3)
        + gs_k(3, 0, 49, 81, 48)  # fn 181: print
        + b"\x1b\x61\x00"  # ESC a 0: left
        + b"\x1d\x56\x42\x03"  # GS V 66 3: feed and partial cut
    )
    assert slip_bytes("Ann    $4,200\nBob    $3,100\n", "ABC", 32) == expected


def test_slip_bytes_without_qr_has_no_2d_code():
    assert slip_bytes("Hi\n\nthere", None) == b"\x1b@Hi\n\nthere\n" + CUT
    assert slip_bytes("Hi", "") == b"\x1b@Hi\n" + CUT
    assert slip_bytes("", None) == b"\x1b@" + CUT


def test_qr_length_uses_low_and_high_bytes():
    data = "x" * 300  # k + 3 = 303 = 0x012F
    code = qr_bytes(data)
    assert gs_k(0x2F, 0x01, 49, 80, 48) + b"x" * 300 in code
    assert code.endswith(gs_k(3, 0, 49, 81, 48))


def test_qr_data_is_utf8_and_size_is_checked():
    assert gs_k(5, 0, 49, 80, 48) + "é".encode() in qr_bytes("é")
    assert gs_k(3, 0, 49, 67, 3) in qr_bytes("A", module_size=3)
    with pytest.raises(ValueError):
        qr_bytes("x" * 2332)
    with pytest.raises(ValueError):
        qr_bytes("A", module_size=17)


def test_wraps_to_32_columns_at_spaces():
    text = ("Bonus: Tower majority shareholder Ann receives $5,000 "
            "and minority Bob $2,500\n" + "X" * 70)
    lines = wrap_text(text, 32)
    assert lines == [
        "Bonus: Tower majority",
        "shareholder Ann receives $5,000",
        "and minority Bob $2,500",
        "X" * 32, "X" * 32, "X" * 6,
    ]
    assert all(len(line) <= 32 for line in lines)
    body = slip_bytes(text, None)[2:-len(CUT)]
    assert body == "".join(line + "\n" for line in lines).encode("ascii")


def test_exactly_32_columns_is_not_wrapped_and_spacing_is_kept():
    row = "Tower" + " " * 22 + "$700"  # 31
    assert wrap_text(row + "!", 32) == [row + "!"]
    assert wrap_text("\tA  B   ", 32) == ["    A  B"]


def test_text_is_cp437_with_question_marks_for_the_rest():
    # ë is 0x89 in cp437; the euro sign and control characters are not printable there
    assert slip_bytes("Zoë €5\x1b@", None) == b"\x1b@Zo\x89 ?5?@\n" + CUT
    # decomposed e + combining acute composes to é (0x82): still one column
    assert slip_bytes("Ame\u0301lie", None) == b"\x1b@Am\x82lie\n" + CUT
    assert wrap_text("日本語" * 20, 32)[0] == "?" * 32


# -- through pyserial -------------------------------------------------------

def test_loop_url_receives_the_exact_slip():
    ports = []

    def opener(url, **kw):
        ports.append(serial.serial_for_url(url, **kw))
        return ports[-1]

    printer = ReceiptPrinter("loop://", check_paper=False, opener=opener)
    job = printer.print_slip("Cy wins", qr="game-7")
    assert job.done and printer.pending == []
    expected = slip_bytes("Cy wins", "game-7", 32)
    assert ports[0].read(len(expected)) == expected
    assert printer.status == Status(READY, "printer ready")
    printer.close()


def test_pty_printer_gets_status_query_then_slip(device):
    printer = ReceiptPrinter(device.url, timeout=1.0)
    job = printer.print_slip("Ann 1st", qr="https://example.org/g/1")
    assert job.done
    expected = QUERY + slip_bytes("Ann 1st", "https://example.org/g/1")
    assert wait_until(lambda: device.data() == expected)
    assert printer.status.state == READY
    printer.close()


def test_offline_printer_keeps_jobs_then_prints_each_once_in_order(device):
    seen = []
    printer = ReceiptPrinter("/dev/nonexistent-printer", timeout=1.0, on_status=seen.append)
    first = printer.print_slip("slip one")
    second = printer.print_slip("slip two", qr="2")
    assert not first.done and not second.done
    assert printer.pending == [first, second]
    assert printer.status == Status(FAULT, "printer unplugged; 2 slips waiting")
    assert printer.retry().state == FAULT  # still unplugged: nothing raised

    assert printer.reconnect(device.url) == Status(READY, "printer ready")
    assert first.done and second.done and printer.pending == []
    one, two = slip_bytes("slip one", None), slip_bytes("slip two", "2")
    assert wait_until(lambda: device.data() == QUERY + one + QUERY + two)

    printer.retry()  # nothing left: only a status check
    assert wait_until(lambda: device.data() == QUERY + one + QUERY + two + QUERY)
    assert device.data().count(one) == 1 and device.data().count(two) == 1
    assert [s.state for s in seen] == [FAULT, FAULT, READY]
    printer.close()


def test_out_of_paper_waits_then_prints():
    device = FakePrinter(reply=PAPER_END_BYTE)
    try:
        seen = []
        printer = ReceiptPrinter(device.url, timeout=1.0, on_status=seen.append)
        job = printer.print_slip("final scores")
        assert not job.done
        assert printer.status == Status(WAITING, "printer: out of paper; 1 slip waiting")
        assert printer.pending == [job]
        assert device.data() == QUERY  # the slip itself was not sent

        device.reply = OK_BYTE  # paper loaded
        assert printer.retry() == Status(READY, "printer ready")
        assert job.done
        assert wait_until(lambda: device.data() == QUERY + QUERY + slip_bytes("final scores"))
        assert seen == [Status(WAITING, "printer: out of paper; 1 slip waiting"),
                        Status(READY, "printer ready")]
        printer.close()
    finally:
        device.close()


def test_paper_low_still_prints():
    device = FakePrinter(reply=0x12 | 0x0C)
    try:
        printer = ReceiptPrinter(device.url, timeout=1.0)
        assert printer.print_slip("x").done
        assert printer.status == Status(READY, "printer ready; paper low")
        printer.close()
    finally:
        device.close()


def test_silent_printer_is_offline_until_it_answers():
    device = FakePrinter(reply=None)
    try:
        printer = ReceiptPrinter(device.url, timeout=0.2)
        started = time.monotonic()
        job = printer.print_slip("x")
        assert time.monotonic() - started < 2  # bounded by the timeout
        assert printer.status == Status(FAULT, "printer offline; 1 slip waiting")
        device.reply = OK_BYTE
        assert printer.retry().state == READY and job.done
        printer.close()
    finally:
        device.close()


def test_write_timeout_keeps_the_job():
    device = FakePrinter(reading=False)  # nobody drains the pty: writes block
    try:
        printer = ReceiptPrinter(device.url, timeout=0.2, check_paper=False)
        big = "\n".join(f"line {i:06d}" for i in range(8000))  # ~96 kB, more than a pty buffers
        job = printer.print_slip(big)
        assert not job.done
        assert printer.status == Status(FAULT, "printer offline; 1 slip waiting")
        printer.timeout = 5.0
        device.start_reading()
        assert printer.retry().state == READY and job.done
        assert wait_until(lambda: device.data().endswith(slip_bytes(big)))
        printer.close()
    finally:
        device.close()


def test_unplugged_mid_session_reports_fault_and_recovers():
    old, new = FakePrinter(), FakePrinter()
    try:
        printer = ReceiptPrinter(old.url, timeout=0.5)
        assert printer.print_slip("a").done
        old.close()  # the device disappears
        job = printer.print_slip("b")
        assert not job.done and printer.status.state == FAULT
        printer.reconnect(new.url)
        assert job.done
        assert wait_until(lambda: new.data() == QUERY + slip_bytes("b"))
        printer.close()
    finally:
        new.close()


def test_poll_respects_the_minimum_interval_with_an_injected_clock(device):
    now = [100.0]
    calls = []

    def opener(url, **kw):
        calls.append(url)
        if len(calls) < 3:
            raise serial.SerialException("no such port")
        return serial.serial_for_url(device.url, **kw)

    printer = ReceiptPrinter("/dev/ttyUSB9", retry_interval=10, timeout=1.0,
                             opener=opener, clock=lambda: now[0])
    job = printer.print_slip("x")  # try 1 at t=100
    assert len(calls) == 1
    now[0] = 105
    assert printer.poll().state == FAULT and len(calls) == 1  # too soon
    now[0] = 110
    printer.poll()  # try 2 at t=110, fails
    assert len(calls) == 2 and not job.done
    now[0] = 119.9
    printer.poll()
    assert len(calls) == 2
    now[0] = 120
    assert printer.poll().state == READY and job.done and len(calls) == 3
    printer.close()


def test_background_thread_prints_and_retries(device):
    now = [0.0]
    plugged = threading.Event()
    calls = []

    def opener(url, **kw):
        calls.append(url)
        if not plugged.is_set():
            raise serial.SerialException("unplugged")
        return serial.serial_for_url(device.url, **kw)

    printer = ReceiptPrinter("/dev/ttyUSB9", retry_interval=0.05, timeout=1.0,
                             opener=opener, clock=lambda: now[0])
    printer.start()
    assert wait_until(lambda: len(calls) == 1)  # the first check, at once
    job = printer.print_slip("background")
    assert wait_until(lambda: len(calls) == 2)  # a new slip wakes the thread
    assert printer.status == Status(FAULT, "printer unplugged; 1 slip waiting")
    plugged.set()
    assert not job.wait(0.2)  # the injected clock has not moved: no retry yet
    now[0] = 1.0
    assert job.wait(5)
    assert wait_until(lambda: device.data().count(slip_bytes("background")) == 1)
    thread = printer._thread
    printer.close()
    assert thread is not None and not thread.is_alive()
    assert device.data().count(slip_bytes("background")) == 1


def test_status_callback_errors_do_not_reach_the_game():
    def broken(status):
        raise RuntimeError("screen is gone")

    printer = ReceiptPrinter("/dev/nonexistent-printer", on_status=broken)
    assert not printer.print_slip("x").done
    assert printer.status.state == FAULT
    printer.close()


def test_status_before_any_check_and_long_qr_is_refused_up_front():
    printer = ReceiptPrinter("/dev/nonexistent-printer")
    assert printer.status == Status(WAITING, "printer: not checked yet")
    with pytest.raises(ValueError):
        printer.print_slip("x", qr="x" * 5000)
    assert printer.pending == []
    printer.close()
