"""The ESC/POS receipt printer: exact bytes, wrapping, and faults on real ptys and loop://."""

from __future__ import annotations

import os
import select
import threading
import time
import tty

import pytest
import serial

from hardware.escpos import CJK_OFF, CJK_ON, qr_bytes, qr_version, slip_bytes, wrap_text
from hardware.printer import REPRINT_LINE, ReceiptPrinter
from hardware.status import FAULT, READY, WAITING, Status
from serial_helpers import recording_opener, wait_until

QUERY = b"\x10\x04\x04"  # DLE EOT 4
OK_BYTE = 0x12  # fixed bits only: paper present
PAPER_END_BYTE = 0x72  # 0x12 | 0x60
CUT = b"\x1d\x56\x42\x03"  # GS V 66 3


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


# -- QR codes must fit the 384-dot head of a 58 mm printer ----------------

def module_size_of(code: bytes) -> int:
    at = code.index(gs_k(3, 0, 49, 67))  # fn 167
    return code[at + 7]


def test_qr_version_follows_the_level_m_byte_capacity():
    assert [qr_version(n) for n in (1, 14, 15, 251, 252, 1125, 1126, 2331)] == [
        1, 1, 2, 11, 12, 27, 28, 40]


def test_qr_module_size_shrinks_until_the_code_fits_384_dots():
    assert module_size_of(qr_bytes("x" * 251)) == 6  # version 11: 61 modules * 6 = 366
    assert module_size_of(qr_bytes("x" * 252)) == 5  # version 12: 65 * 6 = 390 > 384
    assert module_size_of(qr_bytes("x" * 1125)) == 3  # version 27: 125 * 3 = 375
    assert module_size_of(qr_bytes("x" * 600, module_size=2)) == 2  # never enlarged
    for n in (1, 100, 251, 252, 500, 800, 1125):
        version = qr_version(n)
        assert (17 + 4 * version) * module_size_of(qr_bytes("x" * n)) <= 384


def test_qr_too_wide_at_level_m_falls_back_to_level_l():
    code = qr_bytes("x" * 1126)  # level M: version 28, 129 * 3 = 387 dots; level L: version 27
    assert gs_k(3, 0, 49, 69, 48) in code and module_size_of(code) == 3
    assert gs_k(3, 0, 49, 69, 49) in qr_bytes("x" * 1125)  # M whenever it fits
    assert qr_version(1465, "L") == 27 and qr_version(1466, "L") == 28


def test_qr_too_wide_for_the_paper_is_refused_naming_the_limit():
    with pytest.raises(ValueError, match=r"384 dots.*1465 bytes"):
        qr_bytes("x" * 1466)  # level L, version 28: 129 * 3 = 387 dots
    with pytest.raises(ValueError, match=r"60 dots.*271 bytes"):  # version 10: 57 modules
        qr_bytes("x" * 300, module_size=1, max_dots=60)
    printer = ReceiptPrinter("/dev/nonexistent-printer")
    with pytest.raises(ValueError, match="384 dots"):
        printer.print_slip("x", qr="x" * 1500)
    assert printer.pending == []
    printer.close()


# -- through pyserial -------------------------------------------------------

def test_loop_url_receives_the_exact_slip():
    opener, ports = recording_opener()

    printer = ReceiptPrinter("loop://", check_paper=False, opener=opener)
    job = printer.print_slip("Cy wins", qr="game-7")
    assert job.wait(5) and printer.pending == []
    expected = slip_bytes("Cy wins", "game-7", 32)
    assert ports[0].read(len(expected)) == expected
    assert printer.wait_idle()
    assert printer.status == Status(READY, "printer ready")
    printer.close()


def test_a_normal_slip_longer_than_timeout_on_the_wire_prints():
    # 20 full lines = 666 bytes: 0.69 s at 9600 baud, more than the 0.5 s timeout
    opener, ports = recording_opener()

    text = "\n".join(f"{i:2d} " + "x" * 29 for i in range(20))
    expected = slip_bytes(text)
    assert len(expected) == 666 and len(expected) * 10 / 9600 > 0.5
    printer = ReceiptPrinter("loop://", timeout=0.5, check_paper=False, retry_interval=60,
                             opener=opener)
    job = printer.print_slip(text)
    assert job.wait(5)
    assert ports[-1].read(len(expected)) == expected
    assert ports[-1].write_timeout >= len(expected) * 10 / 9600
    assert printer.status == Status(READY, "printer ready")
    printer.close()


class FlakyPort:
    """A port whose first ``fails`` slip writes send half the bytes, then time out."""

    def __init__(self, fails: int = 1) -> None:
        self.fails = fails
        self.write_timeout = None
        self.sent: list[bytes] = []
        self.threads: set[str] = set()

    def write(self, data: bytes) -> int:
        self.threads.add(threading.current_thread().name)
        if self.fails:
            self.fails -= 1
            self.sent.append(data[:len(data) // 2])
            raise serial.SerialTimeoutException("Write timeout")
        self.sent.append(bytes(data))
        return len(data)

    def flush(self) -> None:
        pass

    def close(self) -> None:
        pass


def test_a_slip_that_failed_part_way_is_reprinted_whole_and_marked():
    port = FlakyPort(fails=1)
    printer = ReceiptPrinter("fake://", check_paper=False, retry_interval=60,
                             opener=lambda url, **kw: port)
    job = printer.print_slip("Ann 1st\nBob 2nd", qr="g/9")
    assert printer.wait_idle()
    assert not job.done and job.reprint
    assert printer.status == Status(FAULT, "printer offline; 1 slip waiting")
    data = slip_bytes("Ann 1st\nBob 2nd", "g/9")
    assert port.sent == [data[:len(data) // 2]]  # half a slip is on the paper

    assert printer.retry() == Status(READY, "printer ready")
    assert job.done
    assert port.sent[1] == b"\x1b@" + REPRINT_LINE + data[2:]  # whole, and says so
    assert REPRINT_LINE == b"*** REPRINT ***\n"
    later = printer.print_slip("next")
    assert later.wait(5) and not later.reprint
    assert port.sent[2] == slip_bytes("next")  # a clean slip has no mark
    printer.close()


def test_write_timeout_grows_with_the_slip():
    port = FlakyPort(fails=0)
    printer = ReceiptPrinter("fake://", baudrate=9600, timeout=0.5, check_paper=False,
                             opener=lambda url, **kw: port)
    job = printer.print_slip("y" * 3000)
    assert job.wait(5)
    wire = len(job.data) * 10 / 9600  # about 3.2 s
    assert wire + 0.5 <= port.write_timeout <= 2 * wire + 0.5
    printer.close()


def test_pty_printer_gets_status_query_then_slip(device):
    printer = ReceiptPrinter(device.url, timeout=1.0)
    job = printer.print_slip("Ann 1st", qr="https://example.org/g/1")
    assert job.wait(5)
    expected = QUERY + slip_bytes("Ann 1st", "https://example.org/g/1")
    assert wait_until(lambda: device.data() == expected)
    assert printer.status.state == READY
    printer.close()


def test_offline_printer_keeps_jobs_then_prints_each_once_in_order(device):
    seen = []
    printer = ReceiptPrinter("/dev/nonexistent-printer", timeout=1.0, retry_interval=60,
                             on_status=seen.append)
    first = printer.print_slip("slip one")
    second = printer.print_slip("slip two", qr="2")
    assert printer.wait_idle()
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
    assert seen[-2:] == [Status(FAULT, "printer unplugged; 2 slips waiting"),
                         Status(READY, "printer ready")]
    assert all(s.state == FAULT for s in seen[:-1])
    printer.close()


def test_out_of_paper_waits_then_prints():
    device = FakePrinter(reply=PAPER_END_BYTE)
    try:
        seen = []
        printer = ReceiptPrinter(device.url, timeout=1.0, retry_interval=60,
                                 on_status=seen.append)
        job = printer.print_slip("final scores")
        assert printer.wait_idle()
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
        assert printer.print_slip("x").wait(5)
        assert printer.wait_idle()
        assert printer.status == Status(READY, "printer ready; paper low")
        printer.close()
    finally:
        device.close()


def test_silent_printer_is_offline_until_it_answers():
    device = FakePrinter(reply=None)
    try:
        printer = ReceiptPrinter(device.url, timeout=0.2, retry_interval=60)
        job = printer.print_slip("x")
        assert printer.wait_idle()
        assert printer.status == Status(FAULT, "printer offline; 1 slip waiting")
        device.reply = OK_BYTE
        assert printer.retry().state == READY and job.done
        printer.close()
    finally:
        device.close()


def test_game_calls_never_wait_for_the_port():
    device = FakePrinter(reply=None)  # silent: each status read waits the full timeout
    try:
        printer = ReceiptPrinter(device.url, timeout=1.0, retry_interval=60)
        started = time.monotonic()
        first = printer.print_slip("first")
        assert time.monotonic() - started < 0.25
        assert wait_until(lambda: device.data() == QUERY)  # the worker now waits 1 s for a reply
        started = time.monotonic()
        second = printer.print_slip("second")
        assert printer.pending == [first, second]
        printer.status
        printer.poll()
        assert time.monotonic() - started < 0.25  # nothing waited for the worker's read
        printer.close()
    finally:
        device.close()


def test_the_worker_starts_on_first_use_and_close_stops_it(device):
    threads = []

    def opener(url, **kw):
        threads.append(threading.current_thread())
        return serial.serial_for_url(url, **kw)

    printer = ReceiptPrinter(device.url, timeout=1.0, opener=opener)
    assert printer._thread is None and printer.status.state == WAITING  # nothing yet
    job = printer.print_slip("x")
    worker = printer._thread
    assert worker is not None and worker.daemon
    assert job.wait(5)
    assert threads and threading.main_thread() not in threads  # no I/O on the caller's thread
    printer.close()
    assert not worker.is_alive()
    again = printer.print_slip("y")  # usable again: a new worker
    assert again.wait(5)
    printer.close()
    assert wait_until(lambda: device.data().count(slip_bytes("y")) == 1)
    assert device.data().count(slip_bytes("x")) == 1


def test_tx_only_printer_prints_without_the_paper_check_after_three_queries():
    device = FakePrinter(reply=None)  # RX not wired: DLE EOT 4 is never answered
    try:
        printer = ReceiptPrinter(device.url, timeout=0.1, retry_interval=60)
        job = printer.print_slip("x")
        assert printer.wait_idle()
        assert not job.done and printer.status.state == FAULT  # 1 query unanswered
        assert printer.retry().state == FAULT and not job.done  # 2
        assert printer.retry() == Status(
            READY, "printer ready (no status line: paper not checked)")  # 3: fall back
        assert job.done
        assert wait_until(lambda: device.data() == QUERY * 3 + slip_bytes("x"))
        later = printer.print_slip("y")  # no more queries, no more waiting
        assert later.wait(5)
        assert wait_until(lambda: device.data() == QUERY * 3 + slip_bytes("x") + slip_bytes("y"))
        printer.close()
    finally:
        device.close()


def test_a_printer_that_answered_once_is_not_given_up():
    device = FakePrinter(reply=OK_BYTE)
    try:
        printer = ReceiptPrinter(device.url, timeout=0.1, retry_interval=60)
        assert printer.print_slip("a").wait(5)
        device.reply = None  # switched off behind its USB adapter
        job = printer.print_slip("b")
        assert printer.wait_idle()
        for _ in range(4):
            assert printer.retry() == Status(FAULT, "printer offline; 1 slip waiting")
        assert not job.done and slip_bytes("b") not in device.data()
        device.reply = OK_BYTE
        assert printer.retry() == Status(READY, "printer ready") and job.done
        printer.close()
    finally:
        device.close()


def test_write_timeout_keeps_the_job():
    device = FakePrinter(reading=False)  # nobody drains the pty: writes block
    try:
        # a pty is as fast as it is fed: a high baud rate keeps the sized write timeout short
        printer = ReceiptPrinter(device.url, baudrate=4_000_000, timeout=0.2,
                                 check_paper=False, retry_interval=60)
        big = "\n".join(f"line {i:06d}" for i in range(8000))  # ~96 kB, more than a pty buffers
        job = printer.print_slip(big)
        assert printer.wait_idle()
        assert not job.done and job.reprint
        assert printer.status == Status(FAULT, "printer offline; 1 slip waiting")
        printer.timeout = 5.0
        device.start_reading()
        assert printer.retry().state == READY and job.done
        reprint = b"\x1b@" + REPRINT_LINE + slip_bytes(big)[2:]
        assert wait_until(lambda: device.data().endswith(reprint))
        assert device.data().count(REPRINT_LINE) == 1
        printer.close()
    finally:
        device.close()


def test_unplugged_mid_session_reports_fault_and_recovers():
    old, new = FakePrinter(), FakePrinter()
    try:
        printer = ReceiptPrinter(old.url, timeout=0.5, retry_interval=60)
        assert printer.print_slip("a").wait(5)
        old.close()  # the device disappears
        job = printer.print_slip("b")
        assert printer.wait_idle()
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
    job = printer.print_slip("x")  # the worker's try 1 at t=100
    assert printer.wait_idle() and len(calls) == 1
    now[0] = 105
    assert printer.poll().state == FAULT  # too soon
    assert printer.wait_idle() and len(calls) == 1
    now[0] = 110
    printer.poll()  # try 2 at t=110, fails
    assert printer.wait_idle() and len(calls) == 2 and not job.done
    now[0] = 119.9
    printer.poll()
    assert printer.wait_idle() and len(calls) == 2
    now[0] = 120
    printer.poll()
    assert job.wait(5) and len(calls) == 3
    assert printer.wait_idle() and printer.status.state == READY
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
    job = printer.print_slip("x")
    assert printer.wait_idle()
    assert not job.done and printer.status.state == FAULT
    printer.close()


def test_status_before_any_check_and_long_qr_is_refused_up_front():
    printer = ReceiptPrinter("/dev/nonexistent-printer")
    assert printer.status == Status(WAITING, "printer: not checked yet")
    with pytest.raises(ValueError):
        printer.print_slip("x", qr="x" * 5000)
    assert printer.pending == []
    printer.close()


# -- wide (CJK) names: two columns, the Chinese mode, or ?? --------------------------------

def test_a_printer_without_a_chinese_font_prints_wide_characters_as_two_question_marks():
    # 李小龍 and 王大明 were both "3. ???", one column short: the amounts did not line up
    row = "3. 李小龍 (seat 2)       $9,000"
    assert slip_bytes(row, None)[2:-len(CUT)] == b"3. ?????? (seat 2)       $9,000\n"
    lines = wrap_text("1. Ann (seat 1)          $9,000\n" + row, 32)
    assert [len(line) for line in lines] == [31, 31]   # as wide on paper as in the text


def test_a_printer_with_a_chinese_font_gets_the_names_in_its_chinese_mode():
    row = "3. 李小龍 (seat 2)"
    big5 = slip_bytes(row, None, cjk="big5")[2:-len(CUT)]
    assert big5 == b"3. " + CJK_ON + "李小龍".encode("big5") + CJK_OFF + b" (seat 2)\n"
    gb = slip_bytes("王大明 Zoë", None, cjk="gb18030")[2:-len(CUT)]
    # Chinese mode is left before Zoë: in it, the byte of ë (0x89) would start a character
    assert gb == CJK_ON + "王大明".encode("gb18030") + CJK_OFF + b" Zo\x89\n"
    # a wide character the font's encoding lacks stays two columns wide
    assert slip_bytes("\U0001F600", None, cjk="big5")[2:-len(CUT)] == b"??\n"
    with pytest.raises(ValueError, match="big5"):
        ReceiptPrinter("loop://", cjk="shift-jis")


def test_wide_lines_wrap_by_display_width():
    lines = wrap_text("第一张桌子在大厅的窗户旁边第二层楼 Ann", 32, cjk="gb18030")
    assert lines == ["第一张桌子在大厅的窗户旁边第二层", "楼 Ann"]
    assert wrap_text("李" * 20, 5) == ["?????"] * 8


def test_a_chinese_slip_reaches_the_printer_on_loop_url():
    opener, ports = recording_opener()
    printer = ReceiptPrinter("loop://", check_paper=False, cjk="big5", opener=opener)
    try:
        job = printer.print_slip("1. 李小龍 (seat 1)  $9,000", qr="TTSLIP1:abc")
        assert job.wait(5)
        sent = ports[0].read(ports[0].in_waiting)
        assert CJK_ON + "李小龍".encode("big5") + CJK_OFF in sent
        assert b"TTSLIP1:abc" in sent and sent.endswith(CUT)
    finally:
        printer.close()
