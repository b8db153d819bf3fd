"""USB printer-class receipt printers (device files) and the QR code printed as an image.

The "device" is real: a FIFO (a unidirectional printer: it takes bytes and never
answers), a pty slave opened as a file (a bidirectional one: it answers DLE EOT 4),
a character device node of the usblp major. The QR images are read back with OpenCV.
"""

from __future__ import annotations

import os
import select
import stat
import sys
import threading
import time

import cv2
import numpy as np
import pytest
import serial

from hardware.escpos import QR_MAX_DOTS, QR_QUIET, qr_image_bytes, qr_matrix, slip_bytes
from hardware.printer import REPRINT_LINE, ReceiptPrinter
from hardware.printer_link import DeviceFile, backend_for, link_kind, open_link
from hardware.status import FAULT, READY, WAITING, Status
from serial_helpers import wait_until
from test_printer import OK_BYTE, PAPER_END_BYTE, QUERY, FakePrinter

CUT = b"\x1d\x56\x42\x03"
GS_V0 = b"\x1dv0\x00"


class FifoPrinter:
    """A unidirectional USB printer stand-in: a FIFO at ``path`` and a thread reading it.

    With ``vanish_after`` it unlinks the FIFO and closes its end once it has that many
    bytes, as a printer pulled out mid-slip (its device node goes, writes fail).
    """

    def __init__(self, path: str, *, reading: bool = True, vanish_after: int | None = None) -> None:
        self.path, self.vanish_after = path, vanish_after
        os.mkfifo(path)
        self._fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        self.received = bytearray()
        self._lock = threading.Lock()
        self._reading, self._stop = threading.Event(), threading.Event()
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
            if not select.select([self._fd], [], [], 0.02)[0]:
                continue
            chunk = os.read(self._fd, 4096)
            if not chunk:  # no writer yet
                time.sleep(0.005)
                continue
            with self._lock:
                self.received += chunk
            if self.vanish_after is not None and len(self.received) >= self.vanish_after:
                self._gone()
                return

    def _gone(self) -> None:
        os.unlink(self.path)
        os.close(self._fd)
        self._fd = -1

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)
        if self._fd >= 0:
            self._gone()


@pytest.fixture
def fifo_path(tmp_path):
    return str(tmp_path / "lp0")


# -- the bug: pyserial cannot open a device that is not a terminal ---------------------------

def test_pyserial_fails_on_a_device_file_and_the_file_backend_prints(tmp_path, fifo_path):
    plain = tmp_path / "printer.bin"
    plain.touch()
    device = FifoPrinter(fifo_path)
    try:
        for path in (str(plain), fifo_path):
            with pytest.raises(serial.SerialException, match="Inappropriate ioctl for device"):
                serial.serial_for_url(path, timeout=0.5, write_timeout=0.5)
        with ReceiptPrinter("serial:" + fifo_path, check_paper=False, retry_interval=60) as wrong:
            wrong.print_slip("never")
            assert wrong.wait_idle()
            assert wrong.status == Status(FAULT, "printer unplugged; 1 slip waiting")

        for url, got in ((f"file:{plain}", plain.read_bytes), (f"file:{fifo_path}", device.data)):
            with ReceiptPrinter(url, check_paper=False, retry_interval=60) as printer:
                assert printer.print_slip("Ann wins", qr="g/7").wait(5)
                assert printer.status == Status(READY, "printer ready")
            assert wait_until(lambda: got() == slip_bytes("Ann wins", "g/7"))
    finally:
        device.close()


def test_the_backend_is_chosen_by_how_the_url_looks(tmp_path):
    assert backend_for("/dev/usb/lp0") == ("file", "/dev/usb/lp0")
    assert backend_for("/dev/tabletop-lp") == ("file", "/dev/tabletop-lp")
    assert backend_for("file:/tmp/p") == ("file", "/tmp/p")
    assert backend_for("serial:/dev/usb/lp0") == ("serial", "/dev/usb/lp0")
    for url in ("/dev/ttyUSB0", "/dev/serial0", "loop://", "socket://10.0.0.5:9100", "COM3"):
        assert link_kind(url) == "serial", url
    plain = tmp_path / "printer.bin"
    plain.touch()
    link, port = open_link(f"file:{plain}", timeout=0.1), open_link("loop://", timeout=0.1)
    assert isinstance(link, DeviceFile) and isinstance(port, serial.SerialBase)
    link.close()
    port.close()


def test_a_usblp_device_node_is_recognised_by_its_major_and_reports_unplugged(tmp_path):
    node, link = tmp_path / "receipt", tmp_path / "printer-link"
    try:
        os.mknod(node, 0o660 | stat.S_IFCHR, os.makedev(180, 0))
    except PermissionError:
        pytest.skip("making a device node needs root")
    link.symlink_to(node)  # as the udev rule's /dev/tabletop-lp points at /dev/usb/lp0
    assert link_kind(str(node)) == link_kind(str(link)) == "file"
    # No usblp device behind the node here: open(2) says ENXIO, as after a pull
    with ReceiptPrinter(str(link), retry_interval=60) as printer:
        job = printer.print_slip("Bob: $3,100")
        assert printer.wait_idle() and not job.done
        assert printer.status == Status(FAULT, "printer unplugged; 1 slip waiting")


# -- a bidirectional USB printer: the pty slave opened as a device file ------------------------

def test_a_bidirectional_usb_printer_is_asked_for_paper_and_waits_for_it():
    device = FakePrinter(reply=PAPER_END_BYTE)
    try:
        with ReceiptPrinter("file:" + device.url, timeout=1.0, retry_interval=60) as printer:
            job = printer.print_slip("final scores")
            assert printer.wait_idle() and not job.done
            assert printer.status == Status(WAITING, "printer: out of paper; 1 slip waiting")
            device.reply = OK_BYTE
            assert printer.retry() == Status(READY, "printer ready") and job.done
            assert wait_until(lambda: device.data() == QUERY * 2 + slip_bytes("final scores"))
    finally:
        device.close()


def test_a_unidirectional_usb_printer_prints_without_the_paper_check(fifo_path):
    device = FifoPrinter(fifo_path)
    try:
        with ReceiptPrinter("file:" + fifo_path, timeout=0.1, retry_interval=60) as printer:
            job = printer.print_slip("x")
            assert printer.wait_idle() and not job.done  # 1 query, no answer
            assert printer.retry().state == FAULT  # 2
            assert printer.retry() == Status(
                READY, "printer ready (no status line: paper not checked)")  # 3
            assert job.done
            assert wait_until(lambda: device.data() == QUERY * 3 + slip_bytes("x"))
    finally:
        device.close()


# -- faults: a printer pulled out mid-slip, a printer that stops taking paper ----------------

def test_a_usb_printer_pulled_out_mid_slip_is_unplugged_then_reprints_once(fifo_path):
    big = "\n".join(f"line {i:06d} of a long slip" for i in range(6000))  # ~160 kB
    device = FifoPrinter(fifo_path, vanish_after=20_000)
    seen: list[Status] = []
    printer = ReceiptPrinter("file:" + fifo_path, baudrate=4_000_000, timeout=0.5,
                             check_paper=False, retry_interval=60, on_status=seen.append)
    try:
        job = printer.print_slip(big)
        assert printer.wait_idle()
        assert not job.done and job.reprint
        assert 20_000 <= len(device.data()) < len(job.data)  # half a slip on the paper
        assert printer.status == Status(FAULT, "printer unplugged; 1 slip waiting")
        assert not os.path.exists(fifo_path)
        assert printer.retry() == Status(FAULT, "printer unplugged; 1 slip waiting")  # ENOENT

        back = FifoPrinter(fifo_path)  # plugged in again
        try:
            assert printer.retry() == Status(READY, "printer ready") and job.done
            reprint = b"\x1b@" + REPRINT_LINE + slip_bytes(big)[2:]
            assert wait_until(lambda: back.data() == reprint)
            later = printer.print_slip("next")
            assert later.wait(5) and not later.reprint
            assert wait_until(lambda: back.data() == reprint + slip_bytes("next"))
        finally:
            back.close()
        assert seen == [Status(FAULT, "printer unplugged; 1 slip waiting"),
                        Status(READY, "printer ready")]
    finally:
        printer.close()
        device.close()


def test_a_stuck_usb_printer_never_blocks_past_the_write_timeout(fifo_path):
    device = FifoPrinter(fifo_path, reading=False)  # plugged in, takes nothing
    printer = ReceiptPrinter("file:" + fifo_path, baudrate=4_000_000, timeout=0.2,
                             check_paper=False, retry_interval=60)
    try:
        big = "\n".join(f"line {i:06d}" for i in range(8000))  # ~96 kB, more than a pipe holds
        job = printer.print_slip(big)
        assert printer.wait_idle()
        started = time.monotonic()
        assert printer.retry() == Status(FAULT, "printer offline; 1 slip waiting")
        write_timeout = 0.2 + 2 * 10 * len(job.data) / 4_000_000
        assert time.monotonic() - started < write_timeout + 1.0  # a loaded machine: margin
        assert not job.done and job.reprint
        device.start_reading()
        printer.timeout = 5.0
        assert printer.retry().state == READY and job.done
        assert wait_until(lambda: device.data().endswith(
            b"\x1b@" + REPRINT_LINE + slip_bytes(big)[2:]))
    finally:
        printer.close()
        device.close()


# -- the QR code as a raster image ----------------------------------------------------------

def raster_of(data: bytes) -> tuple[np.ndarray, int]:
    """The picture the GS v 0 commands in ``data`` put on the paper (white 255, black 0),
    384 dots wide, and where the first command starts."""
    bands, at, first = [], data.index(GS_V0), data.index(GS_V0)
    while data.startswith(GS_V0, at):
        x, y = data[at + 4] | data[at + 5] << 8, data[at + 6] | data[at + 7] << 8
        rows = np.frombuffer(data[at + 8:at + 8 + x * y], np.uint8).reshape(y, x)
        bands.append(np.unpackbits(rows, axis=1))
        at += 8 + x * y
    bits = np.vstack(bands)
    assert bits.shape[1] <= QR_MAX_DOTS, "wider than the 58 mm head"
    bits = np.pad(bits, ((0, 0), (0, QR_MAX_DOTS - bits.shape[1])))
    return np.where(bits == 1, 0, 255).astype(np.uint8), first


def on_paper(image: np.ndarray, feed: int) -> np.ndarray:
    """The image on a 58 mm slip: 5 mm of white margin (40 dots) each side, ``feed`` dots
    above and below."""
    return cv2.copyMakeBorder(image, feed, feed, 40, 40, cv2.BORDER_CONSTANT, value=255)


def decoded(paper: np.ndarray) -> str:
    """What OpenCV reads in the picture, with the detectors ``tabletop verify PHOTO`` uses
    (ArUco-based first: the classic one misses some dense version 27 codes, even clean)."""
    for detector in (cv2.QRCodeDetectorAruco(), cv2.QRCodeDetector()):
        for scale in (1, 2):
            sized = cv2.resize(paper, None, fx=scale, fy=scale, interpolation=cv2.INTER_NEAREST)
            text, _points, _code = detector.detectAndDecode(sized)
            if text:
                return text
    return ""


@pytest.fixture(scope="module")
def slip_payloads(tmp_path_factory):
    """Real score slips' QR texts (tabletop.journal.slip.qr_payload) for 4, 5 and 6 players."""
    from journal.test_slip import KEY, random_script, record
    from tabletop.journal.journal import Journal
    from tabletop.journal.slip import make_slip, qr_payload

    folder = tmp_path_factory.mktemp("slips")
    tables = {4: ["Ann", "Bob", "Cy", "Di"], 5: ["Ann", "Bob", "Zoë", "李小龍", "Émilie"],
              6: ["李小龍", "王大明", "Ann", "Bob", "Zoë", "Émilie"]}
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TABLETOP_DATA", str(folder / "data"))
        patch.setenv("TABLETOP_CONFIG", str(folder / "none.toml"))
        with Journal.open(folder / "journal.db", table_name="table 9") as journal:
            return {n: qr_payload(make_slip(journal, record(journal, random_script(seed, names)),
                                            KEY))
                    for seed, (n, names) in enumerate(tables.items(), start=1)}


def test_a_real_slip_s_qr_image_fits_the_head_centred_and_reads_back(slip_payloads):
    assert all(900 < len(text) < 1465 for text in slip_payloads.values())  # about 1 kB
    for players, text in slip_payloads.items():
        code = qr_image_bytes(text)
        matrix, module = qr_matrix(text)
        assert len(matrix) * module <= QR_MAX_DOTS and module >= 3
        image, _ = raster_of(code)
        dark = np.flatnonzero((image == 0).any(axis=0))
        left, right = dark[0], QR_MAX_DOTS - 1 - dark[-1]
        assert abs(left - right) <= 1, (players, left, right)  # centred on the head
        assert image.shape[0] == len(matrix) * module
        feed = bytes([0x1B, 0x4A, QR_QUIET * module])  # ESC J: the quiet zone above and below
        assert code.startswith(feed) and code.endswith(feed)
        assert decoded(on_paper(image, QR_QUIET * module)) == text, players


def test_a_short_code_prints_big_and_reads_back():
    matrix, module = qr_matrix("https://example.org/g/7")
    assert module == 6  # the requested size: nothing to shrink
    image, _ = raster_of(qr_image_bytes("https://example.org/g/7"))
    assert decoded(on_paper(image, 24)) == "https://example.org/g/7"


def test_an_image_too_wide_for_the_paper_is_refused_like_the_native_code():
    with pytest.raises(ValueError, match=r"384 dots.*1465 bytes"):
        qr_image_bytes("x" * 1466)
    with ReceiptPrinter("loop://", qr="image") as printer:
        with pytest.raises(ValueError, match="384 dots"):
            printer.print_slip("x", qr="x" * 1500)
        assert printer.pending == []
    with pytest.raises(ValueError, match="native, image, auto"):
        ReceiptPrinter("loop://", qr="picture")


def test_a_usb_printer_in_image_mode_receives_the_slip_with_a_readable_code(slip_payloads):
    device = FakePrinter()  # bidirectional: it answers the paper query
    text = "1. 李小龍 (seat 1)  $9,000\n2. Ann (seat 3)     $7,100"
    try:
        with ReceiptPrinter("file:" + device.url, timeout=1.0, qr="image") as printer:
            assert printer.print_slip(text, qr=slip_payloads[6]).wait(10)
            expected = QUERY + slip_bytes(text, slip_payloads[6], qr_mode="image")
            assert wait_until(lambda: device.data() == expected, timeout=60)
        sent = device.data()
        assert b"\x1d(k" not in sent  # no native QR command for a printer without one
        image, at = raster_of(sent)
        assert sent[len(QUERY):at].startswith(b"\x1b@1. ??????")  # text first, then the code
        assert sent.endswith(CUT)
        assert decoded(on_paper(image, 24)) == slip_payloads[6]
    finally:
        device.close()


def test_a_director_verifies_a_photo_of_the_image_printed_slip(tmp_path, slip_payloads):
    from journal.test_slip import KEY
    from tabletop.assembly.qr_photo import read_qr_photo
    from tabletop.journal.slip import slip_from_qr, verify

    image, _ = raster_of(slip_bytes("Ann wins", slip_payloads[4], qr_mode="image"))
    photo = tmp_path / "slip.png"
    cv2.imwrite(str(photo), on_paper(image, 24))
    text = read_qr_photo(str(photo)).decode("ascii")
    assert text == slip_payloads[4]
    assert str(verify(slip_from_qr(text), KEY)) == "valid"


def test_auto_mode_prints_an_image_on_usb_and_the_native_command_on_serial(fifo_path):
    device = FifoPrinter(fifo_path)
    try:
        with ReceiptPrinter("file:" + fifo_path, check_paper=False, qr="auto") as usb:
            assert usb.print_slip("a", qr="g/1").wait(5)
        assert wait_until(lambda: device.data() == slip_bytes("a", "g/1", qr_mode="image"))
    finally:
        device.close()
    with ReceiptPrinter("loop://", check_paper=False, qr="auto") as serial_printer:
        job = serial_printer.print_slip("a", qr="g/1")
        assert job.wait(5) and job.data == slip_bytes("a", "g/1") and b"\x1d(k" in job.data


def test_without_segno_the_image_mode_says_so_and_auto_prints_the_native_code(monkeypatch,
                                                                              fifo_path):
    monkeypatch.setitem(sys.modules, "segno", None)  # import segno now fails
    with ReceiptPrinter("loop://", qr="image") as printer:
        with pytest.raises(ValueError, match="needs segno"):
            printer.print_slip("x", qr="g/1")
        assert printer.print_slip("no code").wait(5)  # a slip without a code still prints
    device = FifoPrinter(fifo_path)
    try:
        with ReceiptPrinter("file:" + fifo_path, check_paper=False, qr="auto") as usb:
            assert usb.print_slip("a", qr="g/1").wait(5)
        assert wait_until(lambda: device.data() == slip_bytes("a", "g/1"))
    finally:
        device.close()
